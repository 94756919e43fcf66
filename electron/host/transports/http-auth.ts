/**
 * Who may talk to the headless host: the holder of the 256-bit API token (a 0600 file in the
 * data folder), or a browser that exchanged a one-time sign-in code for a session cookie. `/mcp`
 * also takes the MCP token (its own 0600 file), which reaches the served tools and nothing else.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { API_TOKEN_FILE, MCP_TOKEN_FILE, loadOrCreateTokenFile } from '../../core/lib/token-file';

export const TOKEN_FILE = API_TOKEN_FILE;
const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;

/**
 * The session cookie's name on the host at `port`. Cookies are not kept per port, so two hosts
 * on one machine (two data folders) under one name would each replace the other's cookie and
 * sign the browser out of it.
 */
export function sessionCookieName(port: number): string {
  return `toolsmith_session_${port}`;
}

/** Reads the API token, or creates it with mode 0600; a wrong mode on an existing file is corrected. */
export async function loadOrCreateToken(dataDir: string): Promise<{ token: string; file: string }> {
  const file = path.join(dataDir, TOKEN_FILE);
  return { token: await loadOrCreateTokenFile(file), file };
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1];
}

/**
 * The MCP token as its file holds it now: Settings → MCP server (this process or the command
 * line) may rotate it at any time, and the old one must stop working at once. The file is read
 * again only when it changed (a rotation renames a new file over it).
 */
export class McpTokenFile {
  private cached: { key: string; token: string } | undefined;

  constructor(readonly file: string) {}

  static forDataDir(dataDir: string): McpTokenFile {
    return new McpTokenFile(path.join(dataDir, MCP_TOKEN_FILE));
  }

  async current(): Promise<string> {
    const key = await this.version();
    if (key && this.cached?.key === key) return this.cached.token;
    const token = await loadOrCreateTokenFile(this.file);
    // Kept only when the file did not change while it was read.
    const after = await this.version();
    this.cached = after && after === key ? { key, token } : undefined;
    return token;
  }

  private async version(): Promise<string | undefined> {
    const st = await fs.stat(this.file).catch(() => undefined);
    return st && `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  }
}

export class HostAuth {
  private readonly sessions = new Set<string>();
  private readonly codes = new Map<string, number>();

  /** `cookieName` is asked when needed: the port is known only once the host listens. */
  constructor(
    readonly token: string,
    private readonly cookieName: () => string,
    private readonly mcpToken?: McpTokenFile,
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

  /** Only the API token signs a browser in: the MCP token never becomes a session. */
  redeemToken(token: string): string | null {
    return sameSecret(token, this.token) ? this.newSession() : null;
  }

  private newSession(): string {
    const id = randomBytes(32).toString('base64url');
    this.sessions.add(id);
    return id;
  }

  /** The API token or a session cookie; nothing else (never the MCP token). */
  isAuthorised(req: IncomingMessage): boolean {
    if (typeof req.headers.authorization === 'string') {
      const given = bearerOf(req);
      return given !== undefined && sameSecret(given, this.token);
    }
    const sid = readCookie(req.headers.cookie, this.cookieName());
    return sid !== undefined && this.sessions.has(sid);
  }

  /**
   * For `/mcp` only: what isAuthorised takes, or the MCP token. The API token keeps working there,
   * so configs written before the MCP token existed still connect (it reaches more already).
   */
  async isMcpAuthorised(req: IncomingMessage): Promise<boolean> {
    if (this.isAuthorised(req)) return true;
    const given = bearerOf(req);
    return given !== undefined && this.mcpToken !== undefined && sameSecret(given, await this.mcpToken.current());
  }

  sessionCookie(id: string): string {
    return `${this.cookieName()}=${id}; HttpOnly; SameSite=Strict; Path=/`;
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
