/**
 * The loopback pieces between the suite and the server under test.
 *
 * - The **token proxy**: the suite connects with no headers at all, and `/mcp` answers 403
 *   without the MCP token, so the proxy adds `Authorization: Bearer <token>` to every request.
 *   A Host or Origin naming the proxy is rewritten to name the upstream; any other Host (the
 *   DNS-rebinding scenario's) passes unchanged, so the host's own check is what is measured.
 * - The **name map**: the suite calls fixed tool names with underscores (`test_simple_text`),
 *   and a slug holds letters, digits and `-` only. The proxy renames the fixture bundle's tools
 *   in JSON bodies (and in the `Mcp-Name` header), suite name → slug on the way in and back
 *   on the way out.
 * - The **asset server**: what the fixture's HTTP tools fetch (a PNG, a WAV, a greeting, a slow
 *   answer, a failure).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  port: number;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The suite's name for a fixture slug: `test-simple-text` → `test_simple_text`. */
export function suiteName(slug: string): string {
  return slug.replaceAll('-', '_');
}

export interface NameMap {
  /** Suite names → slugs, in a request body. */
  toServer(text: string): string;
  /** Slugs → suite names, in a response body. */
  toSuite(text: string): string;
  /** A suite name → its slug, as the 2026 `Mcp-Name` header carries it. */
  nameToServer(name: string): string;
}

/**
 * Renames only the given slugs, and only as a JSON `"name"` value, so nothing else in a body
 * changes. The two spellings have the same length: Content-Length stays right.
 */
export function nameMap(slugs: readonly string[]): NameMap {
  const renames = slugs.filter((s) => s.includes('-')).map((slug) => ({ slug, suite: suiteName(slug) }));
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const swap = (text: string, from: (r: (typeof renames)[number]) => string, to: (r: (typeof renames)[number]) => string) => {
    let out = text;
    for (const r of renames) out = out.replace(new RegExp(`("name"\\s*:\\s*")${escape(from(r))}"`, 'g'), `$1${to(r)}"`);
    return out;
  };
  return {
    toServer: (text) => swap(text, (r) => r.suite, (r) => r.slug),
    toSuite: (text) => swap(text, (r) => r.slug, (r) => r.suite),
    nameToServer: (name) => renames.find((r) => r.suite === name)?.slug ?? name,
  };
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function wav(): Buffer {
  // A valid, silent 8 kHz mono 8-bit WAV of 100 samples.
  const data = 100;
  const b = Buffer.alloc(44 + data, 0x80);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  return b;
}

/** The longest a `/compute` answer waits, whatever it is asked (s). */
export const MAX_COMPUTE_SECONDS = 120;

/**
 * The fixture's HTTP tools' back-end: the PNG and WAV; `/greet?name=` (`Hello, {name}!`);
 * `/compute?seconds=&label=`, which answers after that many seconds (a client that goes away
 * stops the wait); `/fail`, a refusal (422) after a second; `/crash`, a connection dropped
 * after a second; `DELETE /files/{name}`, which answers what it "deleted".
 */
export function startAssets(): Promise<Listening> {
  const audio = wav();
  return listen(
    http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://assets');
      const later = (ms: number, then: () => void) => {
        const timer = setTimeout(then, ms);
        res.on('close', () => clearTimeout(timer));
      };
      if (req.method === 'GET' && url.pathname === '/image.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      } else if (req.method === 'GET' && url.pathname === '/audio.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav' }).end(audio);
      } else if (req.method === 'GET' && url.pathname === '/greet') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`Hello, ${url.searchParams.get('name') ?? 'World'}!`);
      } else if (req.method === 'GET' && url.pathname === '/compute') {
        const seconds = Math.min(MAX_COMPUTE_SECONDS, Math.max(0, Number(url.searchParams.get('seconds')) || 0));
        const label = url.searchParams.get('label') ?? '';
        later(seconds * 1000, () => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`computed${label ? ` ${label}` : ''} in ${seconds} s`));
      } else if (req.method === 'GET' && url.pathname === '/fail') {
        later(1000, () => res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the job failed, as this fixture always does' })));
      } else if (req.method === 'GET' && url.pathname === '/crash') {
        later(1000, () => res.destroy());
      } else if (req.method === 'DELETE' && url.pathname.startsWith('/files/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ deleted: decodeURIComponent(url.pathname.slice('/files/'.length)) }));
      } else {
        res.writeHead(404).end();
      }
    }),
  );
}

export interface ProxyOptions {
  upstreamPort: number;
  /** Sent as `Authorization: Bearer …` with every request; none when absent. */
  token?: string;
  names: NameMap;
}

export async function startProxy(o: ProxyOptions): Promise<Listening> {
  let ownPort = 0;
  const rehost = (v: string) => v.replace(`127.0.0.1:${ownPort}`, `127.0.0.1:${o.upstreamPort}`).replace(`localhost:${ownPort}`, `localhost:${o.upstreamPort}`);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    if (typeof headers.host === 'string') headers.host = rehost(headers.host);
    if (typeof headers.origin === 'string') headers.origin = rehost(headers.origin);
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    // At 2026-07-28 the tool's name is in a header too, which must agree with the body.
    if (typeof headers['mcp-name'] === 'string') headers['mcp-name'] = o.names.nameToServer(headers['mcp-name']);
    const up = http.request({ host: '127.0.0.1', port: o.upstreamPort, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      // Line by line, so a name split across two chunks of an event stream is still renamed.
      let pending = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => {
        const text = pending + d;
        const cut = text.lastIndexOf('\n') + 1;
        pending = text.slice(cut);
        if (cut) res.write(o.names.toSuite(text.slice(0, cut)));
      });
      r.on('end', () => res.end(o.names.toSuite(pending)));
    });
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    });
    // The suite going away ends the upstream request too (else an open GET stream keeps its session busy).
    res.on('close', () => up.destroy());
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => up.end(o.names.toServer(Buffer.concat(body).toString('utf8'))));
  });
  const listening = await listen(server);
  ownPort = listening.port;
  return listening;
}
