/**
 * The `app://toolsmith/…` protocol the Electron window loads the renderer from. The path is
 * resolved by a pure function that refuses anything outside the built renderer (`..`, encoded
 * or not, backslashes, NUL); the handler adds the security headers and the MIME type. No
 * Electron import: main.ts registers `appProtocolHandler(...)` with protocol.handle.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { APP_HOST, APP_SCHEME, FRAME_ORIGIN, securityHeaders } from '../security';
import { contentTypeFor } from '../static-files';

export type AppFile = { ok: true; file: string } | { ok: false; status: 400 | 404 };

/**
 * The file an app:// URL names inside `root`. A path without an extension is the app's
 * index.html (the renderer routes it). `p` is the path flavour (win32 in tests of Windows).
 */
export function resolveAppFile(root: string, url: string, p: path.PlatformPath = path): AppFile {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, status: 400 };
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return { ok: false, status: 404 };
  let rel: string;
  try {
    rel = decodeURIComponent(u.pathname);
  } catch {
    return { ok: false, status: 400 };
  }
  // A backslash is a separator on Windows: `%5c..%5c` must not climb out there either.
  if (rel.includes('\0') || rel.includes('\\')) return { ok: false, status: 400 };
  const normal = path.posix.normalize('/' + rel);
  let file = p.resolve(root, '.' + normal);
  const inside = p.relative(root, file);
  if (inside.startsWith('..') || p.isAbsolute(inside)) return { ok: false, status: 404 };
  if (!p.extname(file)) file = p.join(root, 'index.html');
  return { ok: true, file };
}

export interface AppProtocolDeps {
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  readFile?: (file: string) => Promise<Uint8Array>;
}

/** The protocol.handle callback: the file with the renderer's security headers, or a plain 4xx. */
export function appProtocolHandler(deps: AppProtocolDeps): (request: { url: string }) => Promise<Response> {
  const readFile = deps.readFile ?? ((f: string) => fsp.readFile(f));
  const root = path.resolve(deps.rendererDir);
  return async (request) => {
    const r = resolveAppFile(root, request.url);
    if (!r.ok) return new Response(r.status === 400 ? 'bad request' : 'not found', { status: r.status, headers: securityHeaders() });
    try {
      const body = await readFile(r.file);
      // The page may frame MCP Apps' documents, from their own scheme only.
      return new Response(body as unknown as ConstructorParameters<typeof Response>[0], { status: 200, headers: { ...securityHeaders({ frameSrc: FRAME_ORIGIN }), 'Content-Type': contentTypeFor(r.file) } });
    } catch {
      return new Response('not found', { status: 404, headers: securityHeaders() });
    }
  };
}
