/**
 * The Electron shell's scheme for MCP Apps' pages: `toolsmith-frame://view/<one-time id>`, an
 * origin of its own (not app://toolsmith), so a page in its sandboxed frame reaches neither the
 * renderer, its IPC nor its storage. The core says what each id serves, once, with the page's
 * CSP (electron/core/mcp-apps/frames.ts). No Electron import: main.ts registers the handler.
 */
import type { FrameRequest, FrameResponse } from '../../core/mcp-apps/frames';
import { FRAME_ORIGIN } from '../security';

/** True for an address of a frame document (where a frame may navigate). */
export function isFrameUrl(url: string): boolean {
  return url.startsWith(`${FRAME_ORIGIN}/`) && !url.slice(FRAME_ORIGIN.length + 1).includes('/');
}

export function frameProtocolHandler(frameDocument: (id: string, req: FrameRequest) => FrameResponse): (request: Request) => Response {
  return (request) => {
    if (!isFrameUrl(request.url)) return new Response('not found', { status: 404 });
    const id = new URL(request.url).pathname.slice(1);
    const dest = request.headers.get('sec-fetch-dest');
    const r = frameDocument(id, { method: request.method, ...(dest ? { secFetchDest: dest } : {}) });
    return new Response(r.body, { status: r.status, headers: r.headers });
  };
}
