/**
 * Who may talk to the headless host: the holder of the 256-bit token (a 0600 file in the
 * data folder), or a browser that exchanged a one-time sign-in code for a session cookie.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';

export const TOKEN_FILE = 'api-token';
export const SESSION_COOKIE = 'toolsmith_session';
const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;

/** Reads the token, or creates it with mode 0600; a wrong mode on an existing file is corrected. */
export async function loadOrCreateToken(dataDir: string): Promise<{ token: string; file: string }> {
  const file = path.join(dataDir, TOKEN_FILE);
  try {
    const token = (await fs.readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64}$/.test(token)) {
      const st = await fs.stat(file);
      if ((st.mode & 0o777) !== 0o600) await fs.chmod(file, 0o600);
      return { token, file };
    }
    await fs.rm(file, { force: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = randomBytes(32).toString('hex');
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(token + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { token, file };
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class HostAuth {
  private readonly sessions = new Set<string>();
  private readonly codes = new Map<string, number>();

  constructor(
    readonly token: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A code that signs one browser in, once, within ten minutes. */
  issueLoginCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, this.now() + LOGIN_CODE_TTL_MS);
    return code;
  }

  redeemLoginCode(code: string): string | null {
    const expires = this.codes.get(code);
    this.codes.delete(code);
    if (expires === undefined || expires < this.now()) return null;
    return this.newSession();
  }

  redeemToken(token: string): string | null {
    return sameSecret(token, this.token) ? this.newSession() : null;
  }

  private newSession(): string {
    const id = randomBytes(32).toString('base64url');
    this.sessions.add(id);
    return id;
  }

  /** Bearer token or session cookie; nothing else. */
  isAuthorised(req: IncomingMessage): boolean {
    const header = req.headers.authorization;
    if (typeof header === 'string') {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      return !!m && sameSecret(m[1]!, this.token);
    }
    const sid = readCookie(req.headers.cookie, SESSION_COOKIE);
    return sid !== undefined && this.sessions.has(sid);
  }

  sessionCookie(id: string): string {
    return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** DNS-rebinding defence: the Host header must name this very host and port. */
export function isOwnHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** A browser's Origin, when sent, must be this host's own. */
export function isOwnOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

/** Secrets never travel in URLs (they end up in logs and history). */
export function hasSecretInQuery(url: URL): boolean {
  for (const key of url.searchParams.keys()) {
    if (/^(token|access_token|api_key|apikey|key|auth)$/i.test(key)) return true;
  }
  return false;
}
