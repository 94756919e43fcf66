/**
 * The test server (test-server.mjs) over Streamable HTTP on 127.0.0.1: one MCP session per
 * client, as a real server keeps them. `stop()` ends it the way a crash would (connections cut);
 * `forgetSessions()` forgets every session as a server that restarted on the same port has.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { readBody, type OAuthTestServer } from './oauth-server';
// @ts-expect-error plain JavaScript test server, shared with the stdio tests
import { makeServer } from './test-server.mjs';

export interface HttpTestServer {
  url: string;
  port: number;
  /** Requests seen, with their headers (to check secrets and auth). */
  requests: { method: string; headers: http.IncomingHttpHeaders }[];
  calls: string[];
  /** The JSON-RPC methods of the POSTs seen, in order (`initialize`, `tools/call`, …). */
  rpc: string[];
  /** In mode `late`: whether the answer stream of the last late_big call ended before all of it was written (the client stopped reading). */
  late: { closed: boolean; cut: boolean };
  /** With `hugeEvent`: the bytes of it the client took, and whether it stopped reading before the end. */
  hugeEvent: { written: number; cut: boolean; done: boolean };
  stop(): Promise<void>;
  /** Forgets every session now; with `beforeMethod`, just before the next POST of that JSON-RPC method. */
  forgetSessions(beforeMethod?: string): void;
}

/**
 * `hugeEvent`: the first GET event stream sends one event of that many bytes (a hostile server),
 * written as the client takes it; the later ones are the SDK's own. `unknownSession`: the answer
 * to a request carrying a session id it does not know: 404 as MCP says (the default), or 400 "No
 * valid session ID provided" as servers built on the SDK's examples answer. `scopes` (with `oauth`):
 * the handshake (initialize, or the server/discover probe) and notifications pass without a
 * token, as some servers let them; every other
 * request needs one (401 naming the scope `list`), tools/call a token holding `call` and the rest
 * one holding `list` (403 insufficient_scope naming the scope wanted).
 */
export async function startHttpTestServer(
  opts: { mode?: string; port?: number; authorize?: (req: http.IncomingMessage) => boolean; oauth?: OAuthTestServer; scopes?: { list: string; call: string }; hugeEvent?: number; unknownSession?: 404 | 400 } = {},
): Promise<HttpTestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: HttpTestServer['requests'] = [];
  const calls: string[] = [];
  const rpc: string[] = [];
  /** The tools add_tool added: the server's own, kept when it forgets its sessions. */
  const extra: unknown[] = [];
  const late = { closed: false, cut: false };
  let lateClosed: Promise<void> = Promise.resolve();
  let forgetBefore: string | undefined;
  const forget = () => {
    const gone = [...sessions.values()];
    sessions.clear();
    for (const t of gone) void t.close().catch(() => undefined);
  };
  const hugeEvent = { written: 0, cut: false, done: false };
  let hugeEventSent = false;
  const server = http.createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', headers: req.headers });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (opts.oauth && (await opts.oauth.handle(req, res, base))) return;
    let early: unknown;
    if (opts.oauth && opts.scopes) {
      if (req.method === 'POST') early = JSON.parse(await readBody(req));
      const method = (early as { method?: unknown } | undefined)?.method;
      if (!(method === 'initialize' || method === 'server/discover' || (typeof method === 'string' && method.startsWith('notifications/')))) {
        const held = opts.oauth.scopesOf(req);
        const wanted = method === 'tools/call' ? opts.scopes.call : opts.scopes.list;
        const prm = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
        if (!held) {
          res.writeHead(401, { 'www-authenticate': `Bearer scope="${opts.scopes.list}", ${prm}` }).end('{"error":"invalid_token"}');
          return;
        }
        if (!wanted.split(' ').every((s) => held.includes(s))) {
          res.writeHead(403, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${wanted}", ${prm}` }).end('{"error":"insufficient_scope"}');
          return;
        }
      }
    } else if (opts.oauth && !opts.oauth.authorized(req)) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
      return;
    }
    if (opts.authorize && !opts.authorize(req)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    if (opts.hugeEvent && !hugeEventSent && req.method === 'GET' && /text\/event-stream/.test(req.headers.accept ?? '')) {
      hugeEventSent = true;
      void sendHugeEvent(res, opts.hugeEvent, hugeEvent);
      return;
    }
    try {
      let body: unknown;
      if (req.method === 'POST') {
        body = early ?? JSON.parse(await readBody(req));
        const methods = (Array.isArray(body) ? body : [body]).flatMap((m: { method?: unknown }) => (typeof m?.method === 'string' ? [m.method] : []));
        rpc.push(...methods);
        if ((body as { params?: { name?: unknown } })?.params?.name === 'late_big') {
          // The stream its (late) answer goes to: the next call is answered once it closed.
          late.closed = false;
          late.cut = false;
          lateClosed = new Promise((resolve) =>
            res.on('close', () => {
              late.closed = true;
              late.cut = !res.writableFinished;
              resolve();
            }),
          );
        }
        if (forgetBefore !== undefined && methods.includes(forgetBefore)) {
          forgetBefore = undefined;
          forget();
        }
      }
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string') {
          if (opts.unknownSession === 400) res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}');
          else res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
          return;
        }
        // Mode `resume`: answer streams carry event ids and a 200 ms retry, so a closed one can be resumed.
        const resumable = opts.mode === 'resume' ? { eventStore: new InMemoryEventStore(), retryInterval: 200 } : {};
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, t), ...resumable });
        const mcp = makeServer(opts.mode ?? 'normal', { onCall: (name: string) => calls.push(name), onDie: () => server.closeAllConnections(), extra, afterLate: () => lateClosed });
        await mcp.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    calls,
    rpc,
    late,
    hugeEvent,
    forgetSessions(beforeMethod) {
      if (beforeMethod === undefined) forget();
      else forgetBefore = beforeMethod;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const t of sessions.values()) await t.close().catch(() => undefined);
    },
  };
}

/** One SSE event of `bytes` bytes of data, each chunk written once the last was taken (so `written` is what the client read, give or take the sockets' buffers). */
async function sendHugeEvent(res: http.ServerResponse, bytes: number, seen: HttpTestServer['hugeEvent']): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.on('close', () => {
    if (!res.writableFinished) seen.cut = true;
    seen.done = true;
  });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  res.write('event: message\ndata: ');
  while (seen.written < bytes && !res.destroyed) {
    const ok = res.write(chunk);
    seen.written += chunk.length;
    if (!ok) {
      await new Promise<void>((resolve) => {
        const on = () => {
          res.off('drain', on);
          res.off('close', on);
          resolve();
        };
        res.on('drain', on);
        res.on('close', on);
      });
    }
  }
  if (!res.destroyed) res.end('\n\n');
}
