/**
 * For REST tests: a core on a temp folder served by the HTTP host with the REST routes, and
 * `api()` to call it as a script does (bearer token, JSON in and out) over real HTTP on
 * 127.0.0.1. Hosts are closed after each test.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createCore, type Core } from '../../core/app';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { startHttpHost, type HttpHost } from '../transports/http';
import { restRoutes } from '../transports/rest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Json;
}

/** One HTTP request to the host on `port`, with its Host header; the body parsed as JSON when there is one. */
export function send(port: number, method: string, p: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Call once per test file; answers `start(dataDir?, prepare?)`: a fresh folder unless one is given. */
export function useRestHost() {
  const tempDir = useTempDirs();
  const running: { host: HttpHost; core: Core }[] = [];
  const stop = async (r: { host: HttpHost; core: Core }) => {
    await r.host.close();
    await r.core.close();
  };
  afterEach(async () => {
    for (const r of running.splice(0)) await stop(r);
  });

  return async function start(dataDir?: string, prepare?: (core: Core) => void) {
    const dir = dataDir ?? (await tempDir());
    const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    prepare?.(core);
    const host = await startHttpHost({ core, staticDir: path.join(dir, 'no-static'), routes: restRoutes(core) });
    const r = { host, core };
    running.push(r);
    const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();
    const raw = (method: string, p: string, headers: Record<string, string>, body?: string) => send(host.port, method, p, headers, body);
    const api = (method: string, p: string, body?: unknown): Promise<Reply> =>
      raw(method, p, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body === undefined ? undefined : JSON.stringify(body));
    return { core, host, dir, token, api, raw, stop: () => stop(running.splice(running.indexOf(r), 1)[0]!) };
  };
}
