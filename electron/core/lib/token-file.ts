/**
 * A secret token kept in a file of the data folder, readable by its owner alone (0600): 256
 * random bits as 64 hex digits. The host's API token (`api-token`: every operation) and the
 * MCP token (`mcp-token`: the served tools at `/mcp` only) are such files.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { AlreadyExists, writeFileAtomic } from './atomic-write';
import { errnoOf } from './errno';

/** The full API token: the contract, the REST API, the WebSocket, and `/mcp`. */
export const API_TOKEN_FILE = 'api-token';
/** The token MCP clients put in their config: `/mcp` and nothing else. */
export const MCP_TOKEN_FILE = 'mcp-token';

const TOKEN = /^[0-9a-f]{64}$/;

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** The file's token, or undefined when it is missing or does not hold one. */
export async function readTokenFile(file: string): Promise<string | undefined> {
  try {
    const token = (await fs.readFile(file, 'utf8')).trim();
    return TOKEN.test(token) ? token : undefined;
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Reads the token, or creates the file with mode 0600; a wrong mode on an existing file is
 * corrected, and a file that holds no token is replaced. Two processes creating it at once
 * agree on one token (exclusive create; the loser reads the winner's).
 */
export async function loadOrCreateTokenFile(file: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const token = await readTokenFile(file);
    if (token) {
      const st = await fs.stat(file);
      if ((st.mode & 0o777) !== 0o600) await fs.chmod(file, 0o600);
      return token;
    }
    await fs.rm(file, { force: true });
    const fresh = newToken();
    try {
      await writeFileAtomic(file, fresh + '\n', { exclusive: true, mode: 0o600, exactMode: true });
      return fresh;
    } catch (e) {
      if (attempt >= 3 || !(e instanceof AlreadyExists)) throw e;
    }
  }
}

/** A new token replaces the old one at once (atomically: a reader sees the old or the new). */
export async function rotateTokenFile(file: string): Promise<string> {
  const fresh = newToken();
  await writeFileAtomic(file, fresh + '\n', { mode: 0o600, exactMode: true });
  return fresh;
}
