/**
 * The served registry over Streamable HTTP at `/mcp` on the headless host, in both revisions of
 * MCP. The host's gate runs first (own Host and Origin, no secret in the URL, the bearer token).
 * Then the SDK's own classification (`isLegacyRequest`) sends each request to its era:
 * - 2026-07-28 requests (they carry the per-request `_meta` envelope) go to the core's stateless
 *   handler (`McpServeService.modernHandler`): no session, a server per request;
 * - 2025-11-25 and older: each client gets a session (the `Mcp-Session-Id` header) with its own
 *   SDK server over the core.
 * Sessions end when the client sends DELETE, when the host closes, after some minutes unused with
 * no request running and no stream open (clients often quit without DELETE), or, when all
 * places are taken, for a new client: the session unused the longest among those idle. An ended
 * session's id answers 404, which tells the client to initialize again (the MCP spec).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import type { ConnectedServer, McpServeService } from '../../core/mcp-server/service';
import { serverOff } from '../../core/mcp-server/service';
import type { BodyResult } from './http';

export const MCP_PATH = '/mcp';
export const MAX_MCP_SESSIONS = 64;
export const MCP_SESSION_IDLE_MS = 10 * 60_000;

export interface McpHttpOptions {
  /** Sessions open at once (default 64). */
  maxSessions?: number;
  /** How long an idle session (no request running, no stream open) is kept (default 10 minutes). */
  idleMs?: number;
  now?: () => number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  conn: ConnectedServer;
  lastSeen: number;
  /** Responses still open: requests running, and the GET stream a client listens on. */
  open: number;
}

export interface McpHttpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, body: () => Promise<BodyResult>): Promise<void>;
  sessionCount(): number;
  close(): Promise<void>;
}

/**
 * The request's method and headers, which is all the SDK's era check reads besides the body it
 * is given already parsed (the body, read and checked by the host, is not copied again).
 */
function headersOnly(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
    else if (Array.isArray(v)) for (const one of v) headers.append(k, one);
  }
  return new Request(`http://127.0.0.1${MCP_PATH}`, { method: req.method ?? 'POST', headers });
}

/** A JSON-RPC error answer, as MCP clients expect one outside a session. */
export function rpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

export function createMcpHttpEndpoint(service: McpServeService, opts: McpHttpOptions = {}): McpHttpEndpoint {
  const { maxSessions = MAX_MCP_SESSIONS, idleMs = MCP_SESSION_IDLE_MS, now = Date.now } = opts;
  const sessions = new Map<string, Session>();

  const end = async (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.conn.close();
  };

  /** A response of the session is open until it closes; the session counts as used until then. */
  const track = (s: Session, res: ServerResponse) => {
    s.open++;
    s.lastSeen = now();
    res.once('close', () => {
      s.open--;
      s.lastSeen = now();
    });
  };

  /** Ends the idle sessions unused for longer than idleMs. */
  const sweep = async () => {
    const cutoff = now() - idleMs;
    for (const [id, s] of [...sessions]) if (s.open === 0 && s.lastSeen < cutoff) await end(id);
    await service.sweepModern(idleMs);
  };

  /** Ends the idle session unused the longest; false when every session is busy. */
  const evictOne = async () => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) if (entry[1].open === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    if (!oldest) return false;
    await end(oldest[0]);
    return true;
  };

  // 2026-07-28 requests: the stateless handler, written to the Node response (streamed when it streams).
  const modern = toNodeHandler(service.modernHandler(now, maxSessions));

  // Idle sessions end on time even while no client arrives: their stored outputs are removed.
  const sweeper = setInterval(() => void sweep().catch(() => undefined), Math.min(idleMs, 60_000));
  sweeper.unref();

  async function open(req: IncomingMessage, res: ServerResponse, message: unknown): Promise<void> {
    await sweep();
    if (sessions.size >= maxSessions && !(await evictOne())) {
      return rpcError(res, 503, `too many MCP sessions are busy (${maxSessions}, each with a request running or a stream open): close one (DELETE ${MCP_PATH}) or try again later`);
    }
    const conn = service.createServer();
    let sessionId: string | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessionId = id;
        const s: Session = { transport, conn, lastSeen: now(), open: 0 };
        sessions.set(id, s);
        track(s, res);
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
      const expired = session !== undefined && session.open === 0 && session.lastSeen < now() - idleMs;
      if (expired) await end(sid!);
      if (sid && (!session || expired)) return rpcError(res, 404, 'this MCP session is unknown or has ended: initialize a new one');
      if (session) track(session, res);

      if (method === 'POST') {
        const b = await body();
        if (!b.ok) return rpcError(res, b.status, b.error.error.message);
        let message: unknown;
        try {
          message = JSON.parse(b.text);
        } catch {
          return rpcError(res, 400, 'the body is not JSON', -32700);
        }
        if (!(await isLegacyRequest(headersOnly(req), message))) {
          // The shared 2026 session left idle past its time ends before this request is served.
          await service.sweepModern(idleMs);
          return modern(req, res, message);
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
      clearInterval(sweeper);
      for (const id of [...sessions.keys()]) await end(id);
      await service.closeModern();
    },
  };
}
