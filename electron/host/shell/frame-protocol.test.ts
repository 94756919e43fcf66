import { describe, expect, it } from 'vitest';
import { FrameDocuments, frameResponse } from '../../core/mcp-apps/frames';
import { frameProtocolHandler, isFrameUrl } from './frame-protocol';

describe('the Electron frame scheme (toolsmith-frame://view/<id>)', () => {
  it('knows a frame document address from anything else', () => {
    expect(isFrameUrl('toolsmith-frame://view/abc')).toBe(true);
    expect(isFrameUrl('toolsmith-frame://view/abc/more')).toBe(false);
    expect(isFrameUrl('toolsmith-frame://other/abc')).toBe(false);
    expect(isFrameUrl('app://toolsmith/index.html')).toBe(false);
    expect(isFrameUrl('https://example.com/')).toBe(false);
  });

  it('serves a registered page once, in a frame only, with its CSP', async () => {
    const frames = new FrameDocuments();
    const id = frames.register('<p>hi</p>', "default-src 'none'; frame-ancestors app://toolsmith");
    const handle = frameProtocolHandler((docId, req) => frameResponse(frames, docId, req));
    const asPage = handle(new Request(`toolsmith-frame://view/${id}`, { headers: { 'Sec-Fetch-Dest': 'document' } }));
    expect(asPage.status).toBe(403);
    const first = handle(new Request(`toolsmith-frame://view/${id}`, { headers: { 'Sec-Fetch-Dest': 'iframe' } }));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors app://toolsmith");
    expect(await first.text()).toBe('<p>hi</p>');
    expect(handle(new Request(`toolsmith-frame://view/${id}`)).status).toBe(404);
    expect(handle(new Request('toolsmith-frame://view/a/b')).status).toBe(404);
  });
});
