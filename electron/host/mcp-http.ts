/**
 * The served registry over Streamable HTTP at `/mcp` on the headless host. The host's gate
 * runs first (own Host and Origin, no secret in the URL, the bearer token); here each client
 * gets a session (the `Mcp-Session-Id` header) with its own SDK server over the core.
 * Sessions end when the client sends DELETE, after an hour unused, or when the host closes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectedServer, McpServeService } from '../core/mcp-server/service';
import { serverOff } from '../core/mcp-server/service';
import type { BodyResult } from './http';

export const MCP_PATH = '/mcp';
export const MAX_MCP_SESSIONS = 64;
const IDLE_MS = 60 * 60_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  conn: ConnectedServer;
  lastSeen: number;
}

export interface McpHttpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, body: () => Promise<BodyResult>): Promise<void>;
  sessionCount(): number;
  close(): Promise<void>;
}

/** A JSON-RPC error answer, as MCP clients expect one outside a session. */
function rpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

export function createMcpHttpEndpoint(service: McpServeService, now: () => number = Date.now): McpHttpEndpoint {
  const sessions = new Map<string, Session>();

  const end = async (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.conn.close();
  };

  const sweep = async () => {
    const cutoff = now() - IDLE_MS;
    for (const [id, s] of [...sessions]) if (s.lastSeen < cutoff) await end(id);
  };

  async function open(req: IncomingMessage, res: ServerResponse, message: unknown): Promise<void> {
    await sweep();
    if (sessions.size >= MAX_MCP_SESSIONS) return rpcError(res, 503, `too many MCP sessions are open (${MAX_MCP_SESSIONS}): close one (DELETE ${MCP_PATH}) and try again`);
    const conn = service.createServer();
    let sessionId: string | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessionId = id;
        sessions.set(id, { transport, conn, lastSeen: now() });
      },
      onsessionclosed: (id) => end(id),
    });
    transport.onclose = () => {
      if (sessionId) void end(sessionId);
      else void conn.close();
    };
    await conn.server.connect(transport);
    await transport.handleRequest(req, res, message);
  }

  return {
    async handle(req, res, body) {
      if (!service.served.enabled()) return rpcError(res, 403, serverOff);
      const method = req.method ?? 'GET';
      const header = req.headers['mcp-session-id'];
      const sid = typeof header === 'string' ? header : undefined;
      const session = sid ? sessions.get(sid) : undefined;
      if (sid && !session) return rpcError(res, 404, 'this MCP session is unknown or has ended: initialize a new one');
      if (session) session.lastSeen = now();

      if (method === 'POST') {
        const b = await body();
        if (!b.ok) return rpcError(res, b.status, b.error.error.message);
        let message: unknown;
        try {
          message = JSON.parse(b.text);
        } catch {
          return rpcError(res, 400, 'the body is not JSON', -32700);
        }
        if (session) return session.transport.handleRequest(req, res, message);
        if (isInitializeRequest(message)) return open(req, res, message);
        return rpcError(res, 400, `no MCP session: send initialize first, then its Mcp-Session-Id header with every request`);
      }
      if (method === 'GET' || method === 'DELETE') {
        if (!session) return rpcError(res, 400, 'an Mcp-Session-Id header is required');
        return session.transport.handleRequest(req, res);
      }
      res.setHeader('Allow', 'GET, POST, DELETE');
      return rpcError(res, 405, `${method} is not allowed on ${MCP_PATH}`);
    },
    sessionCount: () => sessions.size,
    async close() {
      for (const id of [...sessions.keys()]) await end(id);
    },
  };
}
