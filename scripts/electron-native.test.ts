/**
 * `npm start`'s native-module step: when Electron's copy of better-sqlite3 is (re)built, what
 * happens when it cannot be (headers unavailable: node-gyp really runs, against a headers
 * server on 127.0.0.1 that has none), and that the project's own node_modules build, the one
 * the tests and the headless host load, is never touched.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import * as native from './electron-native.mjs';

const { buildState, decideStart, fallbackMessage, gypEnv, prepareElectronApp, rebuildFailure, wantedBuild } = native as {
  buildState: (stamp: unknown, wanted: object, hasBinary: boolean) => { ready: boolean; why?: string };
  decideStart: (i: { electron: { ok: boolean; reason?: string }; native: { ok: boolean; reason?: string; appDir?: string } }) => { mode: string; cause?: string; reason?: string; appDir?: string };
  fallbackMessage: (d: object) => string;
  gypEnv: (env: Record<string, string>) => Record<string, string>;
  prepareElectronApp: (o: object) => Promise<{ ok: boolean; reason?: string; appDir?: string }>;
  rebuildFailure: (output: string, version: string) => string;
  wantedBuild: (i: object) => Record<string, string>;
};

const root = path.resolve(import.meta.dirname, '..');
const temp: string[] = [];
afterAll(() => {
  for (const d of temp) fs.rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-native-'));
  temp.push(d);
  return d;
};
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('when Electron’s build of the native module is made', () => {
  const wanted = wantedBuild({ electronVersion: '45.4.1', moduleVersion: '12.11.1', platform: 'linux', arch: 'x64' });

  it('builds when there is none, or it was made for another Electron, module version or machine; not when it matches', () => {
    expect(buildState(undefined, wanted, false)).toMatchObject({ ready: false, why: expect.stringContaining('not been built for Electron 45.4.1') });
    expect(buildState(wanted, wanted, false).ready).toBe(false);
    expect(buildState({ ...wanted, electron: '44.0.0' }, wanted, true)).toMatchObject({ ready: false, why: expect.stringContaining('electron 44.0.0') });
    expect(buildState({ ...wanted, module: '12.0.0' }, wanted, true).ready).toBe(false);
    expect(buildState({ ...wanted, arch: 'arm64' }, wanted, true).ready).toBe(false);
    expect(buildState(wanted, wanted, true)).toEqual({ ready: true });
  });

  it('opens the window only with both Electron and its build; otherwise the headless host says which is missing', () => {
    expect(decideStart({ electron: { ok: true }, native: { ok: true, appDir: '/x/.electron-app' } })).toEqual({ mode: 'electron', appDir: '/x/.electron-app' });
    const noBinary = decideStart({ electron: { ok: false, reason: 'no binary' }, native: { ok: false } });
    expect(noBinary).toMatchObject({ mode: 'headless', cause: 'electron' });
    expect(fallbackMessage(noBinary)).toMatch(/Electron could not be started on this machine[\s\S]*\(no binary\)/);
    const noHeaders = decideStart({ electron: { ok: true }, native: { ok: false, reason: "Electron 45.4.1's headers could not be downloaded" } });
    expect(noHeaders).toMatchObject({ mode: 'headless', cause: 'native' });
    expect(fallbackMessage(noHeaders)).toMatch(/could not be built[\s\S]*headless host[\s\S]*headers could not be downloaded[\s\S]*TOOLSMITH_ELECTRON_NODEDIR/);
  });

  it('tells a missing download from missing build tools from another failure', () => {
    const offline = 'gyp info it worked if it ends with ok\ngyp http GET https://electronjs.org/headers/v45.4.1/node-v45.4.1-headers.tar.gz\ngyp ERR! stack FetchError: request to https://electronjs.org/headers/v45.4.1/node-v45.4.1-headers.tar.gz failed, reason: getaddrinfo ENOTFOUND electronjs.org';
    expect(rebuildFailure(offline, '45.4.1')).toMatch(/^Electron 45.4.1's headers could not be downloaded/);
    expect(rebuildFailure('gyp http 404 http://127.0.0.1:9/v45.4.1/node-v45.4.1-headers.tar.gz\ngyp ERR! stack Error: 404 response downloading http://127.0.0.1:9/v45.4.1/node-v45.4.1-headers.tar.gz', '45.4.1')).toMatch(/headers could not be downloaded/);
    expect(rebuildFailure('gyp ERR! find Python\ngyp ERR! stack Error: Could not find any Python installation to use', '45.4.1')).toMatch(/no C\/C\+\+ build tools/);
    expect(rebuildFailure('../src/better_sqlite3.cpp:1:10: fatal error: boom.h: No such file or directory', '45.4.1')).toBe('the native build failed: ../src/better_sqlite3.cpp:1:10: fatal error: boom.h: No such file or directory');
  });

  it('keeps npm’s nodedir and target settings (Node’s headers) away from the Electron build', () => {
    expect(gypEnv({ PATH: '/bin', npm_config_nodedir: '/usr', npm_config_target: '20.0.0', npm_config_cache: '/c' })).toEqual({ PATH: '/bin', npm_config_cache: '/c' });
  });
});

describe('prepareElectronApp', () => {
  it('falls back with a clear reason when the headers cannot be had, leaving node_modules’ build as it was', async () => {
    const projectBinary = path.join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    const before = sha(projectBinary);
    // A headers server on 127.0.0.1 that has no headers: node-gyp asks it and gets 404s.
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404).end('no headers here');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    const appDir = path.join(tempDir(), '.electron-app');
    try {
      const r = await prepareElectronApp({
        root,
        appDir,
        electronVersion: '45.4.1',
        headersUrl: `http://127.0.0.1:${port}`,
        devDir: tempDir(),
        env: { ...process.env, npm_config_nodedir: '/usr' },
        log: () => undefined,
        timeoutMs: 120_000,
      });
      expect(r).toEqual({ ok: false, reason: expect.stringMatching(/^Electron 45.4.1's headers could not be downloaded/) });
    } finally {
      await new Promise((r) => server.close(r));
    }
    // node-gyp asked for Electron's headers (not Node's, despite npm_config_nodedir), and the failed copy is gone.
    expect(asked.some((u) => u.includes('v45.4.1'))).toBe(true);
    expect(fs.existsSync(path.join(appDir, 'node_modules', 'better-sqlite3'))).toBe(false);
    expect(sha(projectBinary)).toBe(before);
  }, 150_000);

  it('reuses a matching build without rebuilding, and stages the app beside it', async () => {
    const appDir = path.join(tempDir(), '.electron-app');
    const distDir = tempDir();
    fs.writeFileSync(path.join(distDir, 'main.mjs'), '// main');
    fs.writeFileSync(path.join(distDir, 'preload.cjs'), '// preload');
    fs.writeFileSync(path.join(distDir, 'buffer-search-worker.cjs'), '// worker');
    const moduleVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;
    const target = path.join(appDir, 'node_modules', 'better-sqlite3');
    fs.mkdirSync(path.join(target, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(target, 'build', 'Release', 'better_sqlite3.node'), 'electron build');
    fs.writeFileSync(path.join(target, '.toolsmith-electron-build.json'), JSON.stringify(wantedBuild({ electronVersion: '45.4.1', moduleVersion })));
    const logs: string[] = [];
    // A node-gyp that cannot run: reaching it would fail the call.
    const r = await prepareElectronApp({ root, appDir, distDir, electronVersion: '45.4.1', nodeGyp: '/nonexistent/node-gyp.js', log: (m: string) => logs.push(m) });
    expect(r).toEqual({ ok: true, appDir });
    expect(logs).toEqual([]);
    expect(fs.readFileSync(path.join(target, 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe('electron build');
    expect(fs.readFileSync(path.join(appDir, 'main.mjs'), 'utf8')).toBe('// main');
    expect(fs.readFileSync(path.join(appDir, 'preload.cjs'), 'utf8')).toBe('// preload');
    // The worker threads start from files beside main.mjs.
    expect(fs.readFileSync(path.join(appDir, 'buffer-search-worker.cjs'), 'utf8')).toBe('// worker');
    expect(JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8'))).toMatchObject({ productName: 'Toolsmith', type: 'module', main: 'main.mjs' });

    // Another Electron version: rebuilt (here the stand-in node-gyp fails, so the stale copy goes and the reason says so).
    const stale = await prepareElectronApp({ root, appDir, distDir, electronVersion: '46.0.0', nodeGyp: '/nonexistent/node-gyp.js', log: (m: string) => logs.push(m) });
    expect(stale.ok).toBe(false);
    expect(logs).toEqual([expect.stringContaining('was built for electron 45.4.1, and this is 46.0.0')]);
    expect(fs.existsSync(target)).toBe(false);
  });
});
