/**
 * The test server (test-server.mjs) over Streamable HTTP on 127.0.0.1: one MCP session per
 * client, as a real server keeps them. `stop()` ends it the way a crash would (connections cut).
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthTestServer } from './oauth-server';
// @ts-expect-error plain JavaScript test server, shared with the stdio tests
import { makeServer } from './test-server.mjs';

export interface HttpTestServer {
  url: string;
  port: number;
  /** Requests seen, with their headers (to check secrets and auth). */
  requests: { method: string; headers: http.IncomingHttpHeaders }[];
  calls: string[];
  stop(): Promise<void>;
}

export async function startHttpTestServer(opts: { mode?: string; port?: number; authorize?: (req: http.IncomingMessage) => boolean; oauth?: OAuthTestServer } = {}): Promise<HttpTestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: HttpTestServer['requests'] = [];
  const calls: string[] = [];
  const server = http.createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', headers: req.headers });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (opts.oauth && (await opts.oauth.handle(req, res, base))) return;
    if (opts.oauth && !opts.oauth.authorized(req)) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
      return;
    }
    if (opts.authorize && !opts.authorize(req)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    try {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string') {
          res.writeHead(404).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
          return;
        }
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, t) });
        const mcp = makeServer(opts.mode ?? 'normal', { onCall: (name: string) => calls.push(name), onDie: () => server.closeAllConnections() });
        await mcp.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res);
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
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const t of sessions.values()) await t.close().catch(() => undefined);
    },
  };
}
