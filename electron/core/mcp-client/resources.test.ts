/**
 * Reading what a tool's result links to (`mcpServers.readResource`), with the real test server
 * (testing/test-server.mjs) over stdio: a linked image comes back as bytes with their size, an
 * embedded text as text; an unknown URI is the server's refusal, a resource over the bound is
 * refused whole, a switched-off server is not started to read one, and a bundle that is not a
 * server's is NOT_FOUND.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, stdioServer } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

async function withServer(enabled = true) {
  const core = await openCore(await tempDir());
  cores.push(core);
  const view = await addServer(core, stdioServer(), enabled);
  const read = (uri: string) => core.call('mcpServers.readResource', { bundleId: view.bundleId, uri });
  return { core, view, read };
}

describe('mcpServers.readResource', () => {
  it('reads what a result links to: an image as bytes with their size, a text as text', async () => {
    const { core, view, read } = await withServer();
    const picture = await call(core, view.bundleId, 'picture');
    expect(picture.ok).toBe(true);
    const link = ((picture as { value: { content: { type: string; uri?: string }[] } }).value.content).find((p) => p.type === 'resource_link')!;
    const image = await read(link.uri!);
    expect(image).toEqual({ ok: true, value: { contents: [{ uri: 'file:///tmp/pixel.png', mimeType: 'image/png', bytes: 70, dataUrl: `data:image/png;base64,${PNG_1PX}` }] } });
    // A type that is not a media type is dropped (it would break the data: URL); base64 across lines is joined.
    const odd = await read('memo://odd');
    expect(odd).toEqual({ ok: true, value: { contents: [{ uri: 'memo://odd', bytes: 70, dataUrl: `data:application/octet-stream;base64,${PNG_1PX}` }] } });
    const text = await read('memo://notes');
    expect(text).toEqual({ ok: true, value: { contents: [{ uri: 'memo://notes', mimeType: 'text/plain', text: 'the notes' }] } });
  });

  it("passes on the server's refusal, and refuses a resource over the bound whole", async () => {
    const { read } = await withServer();
    const unknown = await read('memo://nothing-here');
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.error.message).toMatch(/Resource not found: memo:\/\/nothing-here/);
    const huge = await read('memo://huge');
    expect(huge.ok).toBe(false);
    expect(!huge.ok && huge.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('memo://huge is over 4.0 MiB') });
  });

  it('does not start a switched-off server to read one, and is NOT_FOUND for a bundle that is not a server', async () => {
    const { core, view, read } = await withServer(false);
    const off = await read('memo://notes');
    expect(!off.ok && off.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('is switched off in Tools') });
    const status = await core.call('mcpServers.list', {});
    expect(status.ok && status.value.find((s) => s.bundleId === view.bundleId)?.status).not.toBe('connected');
    const other = await core.call('mcpServers.readResource', { bundleId: '01900000-0000-7000-8000-000000000000', uri: 'memo://notes' });
    expect(!other.ok && other.error.code).toBe('NOT_FOUND');
  });
});
