import fs from 'node:fs/promises';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { securityHeaders } from './security';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Serves the built renderer. Paths are confined to `root`; a path without an extension
 * gets index.html so the app can be reloaded anywhere. `headers` replace the common ones (the
 * headless host's page names its app-frame origin in its CSP).
 */
export async function serveStatic(root: string, pathname: string, res: ServerResponse, headers: Record<string, string> = {}): Promise<void> {
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return send(res, 400, 'text/plain; charset=utf-8', 'bad path');
  }
  if (rel.includes('\0')) return send(res, 400, 'text/plain; charset=utf-8', 'bad path');
  let file = path.resolve(root, '.' + path.posix.normalize('/' + rel));
  if (file !== root && !file.startsWith(root + path.sep)) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
  if (!path.extname(file)) file = path.join(root, 'index.html');
  let body: Buffer;
  try {
    body = await fs.readFile(file);
  } catch {
    if (file.endsWith('index.html')) {
      return send(res, 503, 'text/plain; charset=utf-8', 'The renderer is not built. Run `npm run build` first.');
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'not found');
  }
  const cache = file.includes(`${path.sep}assets${path.sep}`) ? 'private, max-age=31536000, immutable' : 'no-store';
  res.writeHead(200, { ...securityHeaders(), 'Content-Type': contentTypeFor(file), 'Cache-Control': cache, ...headers });
  res.end(body);
}

export function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...securityHeaders(), 'Content-Type': type, 'Cache-Control': 'no-store', ...extra });
  res.end(body);
}
