/**
 * The headless host: the built renderer, the contract over RPC and WebSocket, and (later)
 * the REST API, on 127.0.0.1 only. Every request passes the same gate: own Host, own
 * Origin, no secret in the URL, then the API token or a session cookie; `/mcp` alone also
 * takes the MCP token. While it runs, `running-host.json` in the data folder tells
 * `toolsmith mcp` where to ask approvals (running-host.ts).
 */
import path from 'node:path';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HTTP_STATUS, fail, type Result } from '../../../shared/errors';
import { LIMITS, maxInputBytesOf } from '../../../shared/limits';
import type { Core } from '../../core/app';
import { HostAuth, McpTokenFile, hasSecretInQuery, isOwnHost, isOwnOrigin, loadOrCreateToken, sessionCookieName } from './http-auth';
import { LOGIN_SCRIPT, loginPageHtml } from './login-page';
import { MCP_PATH, createMcpHttpEndpoint, rpcError, type McpHttpOptions } from './mcp-http';
import { followApprovalsFile } from './data-file-watch';
import { announceRunningHost } from './running-host';
import { send, serveStatic } from '../static-files';
import { securityHeaders } from '../security';

export interface HttpHostOptions {
  core: Core;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  /** Extra JSON routes (the REST API); returns false when it does not own the path. */
  routes?: (req: IncomingMessage, res: ServerResponse, url: URL, body: () => Promise<BodyResult>) => Promise<boolean>;
  /** `/mcp`'s session limits (tests make them small). */
  mcp?: McpHttpOptions;
  /** The port of the listener for MCP Apps' frames; 0 (default) picks a free one. */
  framePort?: number;
}

export interface HttpHost {
  readonly url: string;
  readonly port: number;
  readonly tokenFile: string;
  /** The MCP token's file: it opens `/mcp` and nothing else. */
  readonly mcpTokenFile: string;
  /** A fresh one-time sign-in link for a browser. */
  loginUrl(): string;
  close(): Promise<void>;
}

export type BodyResult = { ok: true; text: string } | { ok: false; status: number; error: Result<never> & { ok: false } };

const LOOPBACK = '127.0.0.1';

export async function startHttpHost(opts: HttpHostOptions): Promise<HttpHost> {
  const { core } = opts;
  const { token, file: tokenFile } = await loadOrCreateToken(core.dataDir);
  const mcpToken = McpTokenFile.forDataDir(core.dataDir);
  await mcpToken.current();
  let port = 0;
  const auth = new HostAuth(token, () => sessionCookieName(port), mcpToken);
  // The served registry for MCP clients (Claude Desktop, Cursor, VS Code), behind the same gate.
  const mcp = createMcpHttpEndpoint(core.mcpServer, opts.mcp);
  const wss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.maxFileInputBytes + 1024 * 1024 });
  const sockets = new Set<WebSocket>();
  // The renderer's page names the frame listener's origin in its CSP once it listens.
  let pageHeaders: Record<string, string> = {};

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      console.error('request failed:', e);
      if (!res.headersSent) json(res, 500, fail('INTERNAL', 'internal error'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const gate = checkGate(req);
    // MCP clients read a 401 as an OAuth challenge (mcpTokenRefusal): /mcp refuses in JSON-RPC, never with 401.
    if (gate && pathnameOf(req) === MCP_PATH) return rpcError(res, 403, gate.message);
    if (gate) return json(res, gate.status, fail(gate.code, gate.message));
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const method = req.method ?? 'GET';

    // No OAuth here: an MCP client looking for its metadata learns that at once (not the app's page).
    if (url.pathname.startsWith('/.well-known/')) {
      return json(res, 404, fail('NOT_FOUND', `${url.pathname}: this host has no OAuth; MCP clients send the MCP token (Settings → MCP server)`));
    }

    if (url.pathname === '/login' && method === 'GET') return login(url, res);
    if (url.pathname === '/login' && method === 'POST') return loginWithToken(req, res);
    if (url.pathname === '/login.js') return send(res, 200, 'text/javascript; charset=utf-8', LOGIN_SCRIPT);

    // MCP clients hold the MCP token (or, in configs written before it, the API token); it opens nothing else.
    if (url.pathname === MCP_PATH) {
      if (!(await auth.isMcpAuthorised(req))) return rpcError(res, 403, mcpTokenRefusal(req, mcpToken.file));
      return mcp.handle(req, res, () => readBody(req));
    }
    if (!auth.isAuthorised(req)) {
      const wantsPage = method === 'GET' && (req.headers.accept ?? '').includes('text/html');
      if (wantsPage) return send(res, 401, 'text/html; charset=utf-8', loginPageHtml(tokenFile));
      return json(res, 401, fail('UNAUTHORIZED', 'a bearer token or a signed-in session is required'));
    }

    if (url.pathname.startsWith('/rpc/') && method === 'POST') {
      let name: string;
      try {
        name = decodeURIComponent(url.pathname.slice('/rpc/'.length));
      } catch {
        return json(res, 400, fail('VALIDATION_FAILED', 'the operation name is not valid percent-encoding'));
      }
      const body = await readBody(req, maxInputBytesOf(name));
      if (!body.ok) return json(res, body.status, body.error);
      // A caller that hangs up cancels a call that waits (an approval asked by `toolsmith mcp`).
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const result = await core.router.callJson(name, body.text, { transport: 'http', signal: gone.signal });
      return json(res, result.ok ? 200 : HTTP_STATUS[result.error.code], result);
    }
    if (url.pathname === '/auth/login-link' && method === 'POST') {
      return json(res, 200, { ok: true, value: { url: loginUrl() } });
    }
    if (opts.routes && (await opts.routes(req, res, url, () => readBody(req)))) return;
    if (method === 'GET' || method === 'HEAD') return serveStatic(opts.staticDir, url.pathname, res, pageHeaders);
    return json(res, 405, fail('VALIDATION_FAILED', `${method} is not allowed on ${url.pathname}`));
  }

  /** Host, Origin and query-string rules shared by HTTP requests and WebSocket upgrades. */
  function checkGate(req: IncomingMessage): { status: number; code: 'FORBIDDEN' | 'UNAUTHORIZED'; message: string } | null {
    if (!isOwnHost(req.headers.host, port)) return { status: 403, code: 'FORBIDDEN', message: 'unknown Host header' };
    const origin = req.headers.origin;
    if (!isOwnOrigin(typeof origin === 'string' ? origin : undefined, port)) {
      return { status: 403, code: 'FORBIDDEN', message: 'requests from other origins are refused' };
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (hasSecretInQuery(url)) {
      return { status: 401, code: 'UNAUTHORIZED', message: 'never put the token in the URL; send it as "Authorization: Bearer <token>"' };
    }
    return null;
  }

  function login(url: URL, res: ServerResponse): void {
    const session = auth.redeemLoginCode(url.searchParams.get('code') ?? '');
    if (!session) return send(res, 401, 'text/html; charset=utf-8', loginPageHtml(tokenFile, 'link-used'));
    send(res, 303, 'text/plain; charset=utf-8', 'signed in', { Location: '/', 'Set-Cookie': auth.sessionCookie(session) });
  }

  async function loginWithToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (!body.ok) return json(res, body.status, body.error);
    let given: unknown;
    try {
      given = (JSON.parse(body.text) as { token?: unknown }).token;
    } catch {
      return json(res, 400, fail('VALIDATION_FAILED', 'body must be JSON: {"token": "..."}'));
    }
    const session = typeof given === 'string' ? auth.redeemToken(given) : null;
    if (!session) return json(res, 401, fail('UNAUTHORIZED', 'wrong token'));
    res.setHeader('Set-Cookie', auth.sessionCookie(session));
    json(res, 200, { ok: true, value: {} });
  }

  server.on('upgrade', (req, socket, head) => {
    const gate = checkGate(req);
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'invalid'}`);
    const status = gate ? gate.status : url.pathname !== '/ws' ? 404 : !auth.isAuthorised(req) ? 401 : 0;
    if (status) {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      // A connected window can answer approvals of served tools and MCP servers' questions.
      const detach = core.attachWindow();
      ws.on('close', () => {
        sockets.delete(ws);
        detach();
      });
      ws.on('message', (data, isBinary) => void onMessage(ws, data as Buffer, isBinary));
    });
  });

  async function onMessage(ws: WebSocket, data: Buffer, isBinary: boolean): Promise<void> {
    const text = data.toString('utf8');
    // The client writes the id first, so an oversized or broken frame can still be answered.
    const idMatch = /^\{"id":(\d{1,15})/.exec(text);
    const id = idMatch ? Number(idMatch[1]) : null;
    let result: Result<unknown>;
    if (isBinary) result = fail('VALIDATION_FAILED', 'frames must be JSON text');
    else if (data.length > LIMITS.maxFileInputBytes) result = fail('PAYLOAD_TOO_LARGE', `a call may carry at most ${LIMITS.maxFileInputBytes} bytes`);
    else {
      let msg: { id?: unknown; name?: unknown; input?: unknown };
      try {
        msg = JSON.parse(text) as typeof msg;
      } catch {
        msg = {};
      }
      if (typeof msg !== 'object' || msg === null || typeof msg.id !== 'number' || typeof msg.name !== 'string') {
        result = fail('VALIDATION_FAILED', 'a call is {"id": number, "name": string, "input": object}');
      } else if (data.length > maxInputBytesOf(msg.name)) {
        // Only an operation that carries a whole file takes more than the usual call.
        result = fail('PAYLOAD_TOO_LARGE', `a call of ${msg.name} may carry at most ${maxInputBytesOf(msg.name)} bytes`);
      } else {
        result = await core.router.call(msg.name, msg.input, { transport: 'websocket' });
      }
    }
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, result }));
  }

  const offEvents = core.events.onAny((event, payload) => {
    const frame = JSON.stringify({ event, payload });
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(frame);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, LOOPBACK, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const base = `http://${LOOPBACK}:${port}`;
  // MCP Apps' pages load from a second loopback port: another origin than the app's, so a page
  // in its sandboxed frame reaches neither the app's API nor its cookies (docs/design/mcp-apps.md).
  const frames = await startFrameListener(core, opts.framePort ?? 0);
  pageHeaders = securityHeaders({ frameSrc: frames.origin });
  core.mcpApps.setFrameHost({ origin: frames.origin, ancestors: [base, `http://localhost:${port}`] });
  core.mcpServer.setEndpoints({ httpUrl: `${base}${MCP_PATH}`, tokenFile: mcpToken.file });
  // `toolsmith mcp` on this data folder finds this host here, to ask approvals in its window.
  const unannounce = await announceRunningHost(core.dataDir, `${base}/`);
  // `toolsmith mcp` records "Always allow" answered here in approvals.json: read it again.
  const unfollow = followApprovalsFile(core);

  function loginUrl(): string {
    return `${base}/login?code=${auth.issueLoginCode()}`;
  }

  return {
    url: `${base}/`,
    port,
    tokenFile,
    mcpTokenFile: mcpToken.file,
    loginUrl,
    async close() {
      offEvents();
      await unannounce();
      unfollow();
      core.mcpServer.setEndpoints({ httpUrl: null, tokenFile: null });
      core.mcpApps.setFrameHost(undefined);
      await frames.close();
      await mcp.close();
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The listener of MCP Apps' frame documents: `GET /<one-time id>` and nothing else, for its own
 * Host only (DNS rebinding), never reading cookies. The core says what each id serves, once.
 */
async function startFrameListener(core: Core, port: number): Promise<{ origin: string; close(): Promise<void> }> {
  let own = '';
  const server = http.createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== own && host !== own.replace(LOOPBACK, 'localhost')) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('forbidden');
      return;
    }
    const id = (req.url ?? '/').split('?')[0]!.slice(1);
    const dest = req.headers['sec-fetch-dest'];
    const r = core.mcpApps.frameDocument(id, { method: req.method ?? 'GET', ...(typeof dest === 'string' ? { secFetchDest: dest } : {}) });
    res.writeHead(r.status, r.headers).end(r.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => resolve());
  });
  own = `${LOOPBACK}:${(server.address() as AddressInfo).port}`;
  return {
    origin: `http://${own}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Why `/mcp` refused a request, and what to send. The refusal is 403, not 401: the MCP SDK's
 * client (Claude Code, Cursor, VS Code and mcp-remote use it) answers any 401 with OAuth
 * discovery (`/.well-known/oauth-protected-resource`, then an authorization server at this
 * origin) whatever WWW-Authenticate says, and shows an OAuth error instead of this message;
 * a 403 ends the connection with the body as its error.
 */
export function mcpTokenRefusal(req: IncomingMessage, tokenFile: string): string {
  const sent = typeof req.headers.authorization === 'string';
  return [
    sent ? 'Toolsmith refused this MCP client: the token it sent is not the MCP token (it may have been rotated).' : 'Toolsmith refused this MCP client: it sent no token.',
    // Only the file's name: whoever asks without a token need not learn where the data folder is.
    `Send the MCP token in the header "Authorization: Bearer <token>": it is in the file ${path.basename(tokenFile)} of Toolsmith's data folder`,
    '(Settings → MCP server shows it, with a client configuration to copy). This server does not use OAuth.',
  ].join(' ');
}

/** The request's path, read without trusting its Host header ('' when it cannot be read). */
function pathnameOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', `http://${LOOPBACK}`).pathname;
  } catch {
    return '';
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

/** JSON bodies only, and no larger than the contract allows. */
export async function readBody(req: IncomingMessage, max: number = LIMITS.maxInputBytes): Promise<BodyResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    await drain(req);
    return refusal(415, 'UNSUPPORTED_MEDIA_TYPE', 'request bodies must be application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      await drain(req);
      return refusal(413, 'PAYLOAD_TOO_LARGE', `a request body may be at most ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

function refusal(status: number, code: 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE', message: string): BodyResult {
  return { ok: false, status, error: fail(code, message) as Result<never> & { ok: false } };
}

/**
 * Reads and drops the rest of a refused body, so the client gets our answer instead of a
 * reset; past a hard cap the connection is cut.
 */
async function drain(req: IncomingMessage): Promise<void> {
  let seen = 0;
  for await (const chunk of req) {
    seen += (chunk as Buffer).length;
    if (seen > LIMITS.maxInputBytes * 8) {
      req.socket.destroy();
      return;
    }
  }
}
