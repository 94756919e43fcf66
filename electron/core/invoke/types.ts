/**
 * The seams of invocation, so the dispatcher, the HTTP back-end, local tools and secrets
 * can be built and tested apart. Implementations live beside this file (dispatcher),
 * in ./http (HTTP tools and the safe transport), ../tools (local functions) and ../secrets.
 */

// ---- secrets -----------------------------------------------------------------------------

/** Resolves `${secret:NAME}` for one destination; refuses a host the secret is not bound to. */
export type { Redact, SecretResolver } from '../secrets/types';

// ---- the safe transport ------------------------------------------------------------------

/** The hosts a tool may reach: exact names, `*.example.com`, optional `:port`; from Settings. */
export type AllowedHosts = readonly string[];

/** A secret a request carries: the transport keeps it off every hop to a host it is not bound to. */
export interface CarriedSecret {
  /** The secret's name (for error messages; never the value). */
  name: string;
  value: string;
  /** Header names made from it without holding its value as such (Basic auth, a signature): dropped with it. */
  headers: readonly string[];
  /** Whether it may be sent to `host` (lowercase, no port, IPv6 in brackets). */
  boundTo(host: string): boolean;
}

export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Per attempt. */
  timeoutMs: number;
  maxRedirects: number;
  maxResponseBytes: number;
  signal: AbortSignal;
  /**
   * The secrets in this request. On each hop, a header holding one (or made from it) is
   * dropped, and a URL or a re-sent body holding one is refused, when the hop's host is not
   * one the secret is bound to.
   */
  secrets?: readonly CarriedSecret[];
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  /** The decoded (decompressed) body, at most maxResponseBytes. */
  body: Uint8Array;
  /** The URL after redirects. */
  finalUrl: string;
  redirects: string[];
}

/**
 * One HTTP exchange under the host rules: the allowlist on the first URL and on every
 * redirect hop, private/loopback/link-local addresses refused at DNS lookup time unless the
 * entry allows them (an IP listed, `private:`, `localhost`), credentials dropped across
 * origins and secrets kept to their hosts on every hop, bounded in bytes and time.
 * Errors are AppErrors: FORBIDDEN (host), TIMEOUT, PAYLOAD_TOO_LARGE, UNAVAILABLE (network), CANCELLED.
 */
export interface Transport {
  send(req: TransportRequest, allowed: AllowedHosts): Promise<TransportResponse>;
  /** The same, streaming the body: chunks arrive through onChunk (SSE). */
  stream(req: TransportRequest, allowed: AllowedHosts, onChunk: (chunk: Uint8Array) => void): Promise<Omit<TransportResponse, 'body'>>;
}

// ---- local functions ---------------------------------------------------------------------

export interface LocalToolContext {
  /** Absolute path of the workspace folder; file tools never leave it. */
  workspaceDir: string;
  signal: AbortSignal;
  now: () => Date;
  /** For fetch_url: the same transport and host rules as HTTP tools. */
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  /** How long one regular expression search may run (Settings' regexTimeLimitMs); absent: the tool's own default. */
  regexTimeLimitMs?: number;
  /** Whose buffers the call may use: the conversation or workflow run it runs in (absent for the tester and the REST API). */
  ownerId?: string;
  /** The call's invocation id (its card in the chat has it). */
  invocationId?: string;
  /** Streams partial output (e.g. progress); optional for the caller to show. */
  emit?: (event: { kind: string; data: unknown }) => void;
  /** Told of each workspace file the function wrote (relative path, and ownerId), and awaited: documents record it. */
  wrote?: (relPath: string, by: string | undefined) => void | Promise<void>;
}

/**
 * A local tool: a TypeScript function registered under a stable id such as `files.read`.
 * A function that declares fewer than three parameters is called without the third: it
 * reads `ctx.signal`, which is created on first read (an unread signal costs nothing).
 */
export type LocalFunction = (ctx: LocalToolContext, args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/**
 * A local function that may wait for the user (a consent card) says how long its calls may
 * take, over the dispatcher's default; a caller's own timeoutMs still wins.
 */
export type WaitingLocalFunction = LocalFunction & { timeoutMs?: number };
