/**
 * For the MCP server tests (here and in electron/host): a data folder holding a served bundle
 * (a local tool, one whose output is oversized, one that requires approval, an HTTP tool that
 * sends a secret bound to 127.0.0.1), a bundle that is not served, and the HTTP server the HTTP
 * tool calls.
 * The local tools are registry entries over built-in functions, so a core in another process
 * (the stdio entry) runs them too.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { Core } from '../app';

export const SECRET_VALUE = 'sk-live-very-secret-4242';
export const SECRET_NAME = 'ECHO_KEY';

export interface EchoServer {
  port: number;
  /** The X-Key header of each request it got. */
  seenKeys: string[];
  close(): Promise<void>;
}

/** What the echo server answers for an image or a sound. */
export const MEDIA_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Answers `{"path": ..., "key": <X-Key header>}`: the secret comes back, so redaction must catch it; `q=hang` is never answered. */
export async function startEchoServer(): Promise<EchoServer> {
  const seenKeys: string[] = [];
  const server = http.createServer((req, res) => {
    const key = String(req.headers['x-key'] ?? '');
    seenKeys.push(key);
    // A query of `hang` is never answered (the tests cancel it).
    if (req.url?.includes('q=hang')) return;
    // `/pixel.png` and `/beep.wav`: a few bytes of an image and a sound.
    if (req.url?.startsWith('/pixel.png') || req.url?.startsWith('/beep.wav')) {
      res.writeHead(200, { 'content-type': req.url.startsWith('/pixel.png') ? 'image/png' : 'audio/wav; codec=1' });
      res.end(MEDIA_BYTES);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, key }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seenKeys,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface ServedFixture {
  bundleId: string;
  otherBundleId: string;
  /** Tool ids by slug. */
  ids: Record<string, string>;
}

const textArgs = { type: 'object', properties: { text: { type: 'string', description: 'The text to count' } }, required: ['text'], additionalProperties: false };

/** The workspace file `big` reads: 400 KB over 5,000 lines, past the 256 KiB bytes cap. */
export const BIG_FILE = 'big.log';
export const BIG_LINES = 5000;
const bigLine = (i: number) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(68)}`;

/**
 * The served bundle `kit` (count, big, guarded, remote, and `off`, switched off), the bundle
 * `other` (not served), the secret bound to 127.0.0.1, the echo server's host allowed, and
 * Settings → MCP server serving `kit`.
 */
export async function seedServedBundle(core: Core, echoPort: number): Promise<ServedFixture> {
  const store = core.registry.store;
  const bundleId = uuidv7();
  const otherBundleId = uuidv7();
  await store.putBundle(bundleId, { slug: 'kit', displayName: 'Kit', description: 'Served in the tests', isEnabled: true });
  await store.putBundle(otherBundleId, { slug: 'other', displayName: 'Other', description: '', isEnabled: true });
  const ids: Record<string, string> = {};
  const put = async (bundle: string, slug: string, body: Record<string, unknown>) => {
    const t = await store.putTool(bundle, slug, '1', { displayName: slug, description: `The ${slug} tool`, tags: [], isEnabled: true, ...body });
    ids[slug] = t.id;
  };
  const count = { type: 'local', argSchema: textArgs, outputSchema: {}, local: { functionId: 'text.count' } };
  await put(bundleId, 'count', count);
  await put(bundleId, 'guarded', { ...count, requiresApproval: true });
  await put(bundleId, 'off', { ...count, isEnabled: false });
  await put(bundleId, 'big', { type: 'local', argSchema: { type: 'object', properties: { path: { type: 'string', default: BIG_FILE } } }, outputSchema: {}, local: { functionId: 'files.read' } });
  await put(bundleId, 'remote', {
    type: 'http',
    argSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    outputSchema: {},
    http: { method: 'GET', urlTemplate: `http://127.0.0.1:${echoPort}/search?q=\${q}`, headers: { 'X-Key': `\${secret:${SECRET_NAME}}` } },
  });
  await put(otherBundleId, 'hidden', count);
  const lines = Array.from({ length: BIG_LINES }, (_, i) => bigLine(i + 1));
  await fs.writeFile(path.join(core.workspaceDir(), BIG_FILE), lines.join('\n') + '\n');
  const secret = await core.call('secrets.set', { name: SECRET_NAME, value: SECRET_VALUE, hosts: ['127.0.0.1'] });
  if (!secret.ok) throw new Error(secret.error.message);
  const s = await core.call('settings.set', { allowedHosts: [`127.0.0.1:${echoPort}`], mcpServer: { enabled: true, bundleIds: [bundleId] } });
  if (!s.ok) throw new Error(s.error.message);
  return { bundleId, otherBundleId, ids };
}
