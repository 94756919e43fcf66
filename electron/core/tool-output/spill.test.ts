/**
 * The spill: a text body over the threshold goes to the store chunk by chunk and the tool
 * answers a stored-output reference; below it the body is held and answered as usual.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FullHttpSpecSchema } from '../../../shared/model/http-spec';
import { executeHttpTool } from '../invoke/http/http-tool';
import { RateLimiter } from '../invoke/http/rate-limit';
import { HttpTransport } from '../invoke/http/transport';
import { isStoredOutputRef, type ResponseSpill } from '../invoke/stored-ref';
import { useTempDirs } from '../testing/temp-dir';
import { ToolOutputStore } from './store';
import { estimateCounter } from '../llm/tokens';

const tempDir = useTempDirs();
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(body: Buffer, status = 200): Promise<number> {
  const s = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

async function run(body: Buffer, thresholdBytes: number, status = 200) {
  const port = await serve(body, status);
  const store = new ToolOutputStore({ baseDir: () => tempBase, tokens: estimateCounter });
  const writes: number[] = [];
  const spill: ResponseSpill = {
    thresholdBytes,
    open: () => {
      const sink = store.beginSync('conv', { toolName: 'dump', argsJson: '{}' });
      return {
        write: (c) => {
          writes.push(c.byteLength);
          sink.write(c);
        },
        finish: () => sink.finish(),
        discard: () => sink.discard(),
      };
    },
  };
  const spec = FullHttpSpecSchema.parse({ method: 'GET', urlTemplate: `http://127.0.0.1:${port}/`, responseMode: 'text', limits: { maxSentBytes: 1024, maxResponseBytes: 32 << 20, maxRetries: 0, maxRedirects: 0 } });
  const o = await executeHttpTool(spec, {}, { transport: new HttpTransport(), allowedHosts: [`127.0.0.1:${port}`], secrets: { resolve: () => '', values: () => [] }, redact: (t) => t, signal: new AbortController().signal, rateLimiter: new RateLimiter(), toolId: 't', spill });
  return { o, store, writes };
}
let tempBase = '';

describe('HTTP bodies spilled to the store', () => {
  it('over the threshold: written as it arrives, the tool answers a reference, the bytes are exact', async () => {
    tempBase = await tempDir();
    const body = Buffer.from('line of the export\n'.repeat(200_000));
    const { o, store, writes } = await run(body, 256 * 1024);
    expect(isStoredOutputRef(o.value)).toBe(true);
    const ref = (o.value as { $storedOutput: { handle: string; bytes: number; lines: number; preview: string } }).$storedOutput;
    expect(ref).toMatchObject({ bytes: body.length, lines: 200_000 });
    expect(ref.preview.startsWith('line of the export\nline of')).toBe(true);
    expect(writes.length).toBeGreaterThan(2);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(body.length);
    expect(store.readTextSync(ref.handle)).toBe(body.toString());
  });

  it('under it: held and answered as text, nothing stored', async () => {
    tempBase = await tempDir();
    const body = Buffer.from('small answer\n'.repeat(10));
    const { o, store, writes } = await run(body, 256 * 1024);
    expect(o.value).toBe(body.toString());
    expect(writes).toEqual([]);
    expect(store.list()).toEqual([]);
  });

  it('an error status is not kept: the body written so far is discarded', async () => {
    tempBase = await tempDir();
    const body = Buffer.from('upstream failed\n'.repeat(50_000));
    await expect(run(body, 64 * 1024, 503)).rejects.toMatchObject({ code: expect.any(String) });
    const store = new ToolOutputStore({ baseDir: () => tempBase, tokens: estimateCounter });
    // Nothing but the folder's marker is left on disk.
    const fsP = await import('node:fs/promises');
    const left = (await fsP.readdir(`${tempBase}/toolsmith-conv`)).filter((n) => !n.startsWith('.'));
    expect(left).toEqual([]);
    expect(store.list()).toEqual([]);
  });
});
