/**
 * Real servers on 127.0.0.1 for the transport's tests. Each counts the sockets it accepted,
 * so a test can prove that a refused request opened no connection at all.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface TestServer {
  port: number;
  /** `http://127.0.0.1:PORT` (or https) */
  origin: string;
  /** Sockets accepted so far. */
  readonly accepted: number;
  /** Requests received so far (HTTP servers only). */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => unknown;

/** An HTTP server on `host` (127.0.0.1 by default); the handler gets the whole request body. */
export async function startHttpServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  return listen(http.createServer(collect(requests, handler)), host, requests, 'http');
}

function collect(requests: SeenRequest[], handler: Handler): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(req, res, body)).catch(() => res.destroy());
    });
  };
}

/**
 * A self-signed certificate for a.test, b.test, localhost and 127.0.0.1 (valid 2000 to 2126),
 * made for these tests only: its key protects nothing. Trust it with `ca: TEST_CERT`.
 */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBvzCCAWagAwIBAgIBATAKBggqhkjOPQQDAjAlMSMwIQYDVQQDDBpUb29sc21p
dGggdGVzdCBjZXJ0aWZpY2F0ZTAgFw0wMDAxMDEwMDAwMDBaGA8yMTI2MDEwMTAw
MDAwMFowJTEjMCEGA1UEAwwaVG9vbHNtaXRoIHRlc3QgY2VydGlmaWNhdGUwWTAT
BgcqhkjOPQIBBggqhkjOPQMBBwNCAASGDFLDC0i1bxPXGwpUy27vj4V5ueq/s1uP
Y+QCHbMeRodB6oSYcKGZhOyrKg1iqppM64+DI9fIxq2ik5JwAMfVo4GEMIGBMCoG
A1UdEQQjMCGCBmEudGVzdIIGYi50ZXN0gglsb2NhbGhvc3SHBH8AAAEwDwYDVR0T
AQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAoQwEwYDVR0lBAwwCgYIKwYBBQUHAwEw
HQYDVR0OBBYEFEBEwoL5gBOCYmBttLp/rxluYNQVMAoGCCqGSM49BAMCA0cAMEQC
IHSS1H+6en8c0+BakraXmRv78ruA7j9zjz3RfnCxghIyAiB9tWw2LTTnJ71oyEaK
I52vYsih0AbVQuaX0Zmz0grBQQ==
-----END CERTIFICATE-----`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDQVjKqdTzS4zn0Wp
4rnPuPUeodkTArh0pjNxP1ok69mhRANCAASGDFLDC0i1bxPXGwpUy27vj4V5ueq/
s1uPY+QCHbMeRodB6oSYcKGZhOyrKg1iqppM64+DI9fIxq2ik5JwAMfV
-----END PRIVATE KEY-----`;

/** Like startHttpServer, over TLS with TEST_CERT; `origin` is `https://127.0.0.1:PORT`. */
export async function startHttpsServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  return listen(https.createServer({ key: TEST_KEY, cert: TEST_CERT }, collect(requests, handler)), '127.0.0.1', requests, 'https');
}

/** A TCP server that hands each accepted socket to `onSocket` (e.g. to never answer). */
export async function startRawServer(onSocket: (socket: net.Socket) => void, host = '127.0.0.1'): Promise<TestServer> {
  const server = net.createServer(onSocket);
  return listen(server, host, [], 'http');
}

/** A port on 127.0.0.1 with nothing listening on it (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A resolver for tests. Each name maps to an answer (an address, or several as an array), or
 * to `{ turns: [...] }`: one answer per call, the last repeating. Other names: ENOTFOUND.
 * Counts calls per name.
 */
export function fakeLookup(table: Record<string, string | string[] | { turns: (string | string[])[] }>): LookupFunction & { calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const fn = ((hostname: string, options: { all?: boolean }, callback: (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const n = (calls[name] = (calls[name] ?? 0) + 1);
    const entry = table[name];
    setImmediate(() => {
      if (entry === undefined) {
        const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }) as NodeJS.ErrnoException;
        return callback(err, options.all ? [] : '', 0);
      }
      const turn = typeof entry === 'object' && !Array.isArray(entry) ? entry.turns[Math.min(n, entry.turns.length) - 1]! : entry;
      const list = (Array.isArray(turn) ? turn : [turn]).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction & { calls: Record<string, number> };
  fn.calls = calls;
  return fn;
}

async function listen(server: net.Server, host: string, requests: SeenRequest[], scheme: 'http' | 'https'): Promise<TestServer> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    origin: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get accepted() {
      return accepted;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
