/**
 * Streamable HTTP in front of `toolsmith mcp` (stdio), because the suite takes a URL only: one
 * `toolsmith mcp` process per MCP session, messages forwarded both ways as they are. The HTTP
 * side is the SDK's own server transport, so the scenarios that test the HTTP layer (SSE
 * streams, DNS rebinding) measure the SDK here, not Toolsmith; the tool and protocol scenarios
 * measure `toolsmith mcp`. Only the 2025 revision goes through: this transport is sessionful.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { start, stop } from './processes';
import type { Listening } from './proxy';

export interface BridgeOptions {
  /** The command that serves MCP over stdio, e.g. [node, bin/toolsmith.mjs, 'mcp', '--data-dir', dir]. */
  command: readonly string[];
  /** Where each child's stderr goes. */
  log: (line: string) => void;
}

export async function startBridge(o: BridgeOptions): Promise<Listening> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const open = new Set<StreamableHTTPServerTransport>();
  let port = 0;

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const [cmd, ...args] = o.command;
    const child = start(cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id: string) => {
        sessions.set(id, transport);
      },
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    });
    open.add(transport);
    // Responses find their POST by id; the server's own requests and notifications go to the GET stream.
    transport.onmessage = (m) => {
      child.stdin?.write(`${JSON.stringify(m)}\n`);
    };
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch {
        o.log(`[stdout, not JSON-RPC] ${line}`);
        return;
      }
      transport.send(message).catch(() => {});
    });
    readline.createInterface({ input: child.stderr! }).on('line', (line) => o.log(line));
    let closing = false;
    transport.onclose = () => {
      if (closing) return;
      closing = true;
      open.delete(transport);
      if (transport.sessionId) sessions.delete(transport.sessionId);
      child.stdin?.end();
      void stop(child);
    };
    child.on('exit', () => void transport.close().catch(() => {}));
    return transport;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      let body: unknown;
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
      }
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          const id = body && typeof body === 'object' && 'id' in body ? (body as { id: unknown }).id : null;
          res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'bridge: no such session; send initialize first' } }));
          return;
        }
        transport = await newSession();
      }
      await transport.handleRequest(req, res, body);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    close: async () => {
      await Promise.all([...open].map((t) => t.close().catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
