import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../core/testing/temp-dir';
import { appProtocolHandler, resolveAppFile } from './app-protocol';
import { contentSecurityPolicy } from '../security';
import { contentTypeFor } from '../static-files';

const tempDir = useTempDirs();
const ROOT = path.resolve('/srv/app/dist/renderer');

describe('resolveAppFile', () => {
  it('maps app://toolsmith/ paths to files in the built renderer, and paths without an extension to index.html', () => {
    expect(resolveAppFile(ROOT, 'app://toolsmith/index.html')).toEqual({ ok: true, file: path.join(ROOT, 'index.html') });
    expect(resolveAppFile(ROOT, 'app://toolsmith/assets/index-abc.js')).toEqual({ ok: true, file: path.join(ROOT, 'assets', 'index-abc.js') });
    expect(resolveAppFile(ROOT, 'app://toolsmith/assets/my%20file.css')).toEqual({ ok: true, file: path.join(ROOT, 'assets', 'my file.css') });
    expect(resolveAppFile(ROOT, 'app://toolsmith/')).toEqual({ ok: true, file: path.join(ROOT, 'index.html') });
    expect(resolveAppFile(ROOT, 'app://toolsmith/chat/42?x=1#y')).toEqual({ ok: true, file: path.join(ROOT, 'index.html') });
  });

  it('never leaves the renderer folder, however the path climbs', () => {
    for (const [url, inside] of [
      ['app://toolsmith/../../etc/shadow.txt', 'etc/shadow.txt'],
      ['app://toolsmith/%2e%2e/%2e%2e/etc/shadow.txt', 'etc/shadow.txt'],
      ['app://toolsmith/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json', 'package.json'],
      ['app://toolsmith/..%2f..%2fsecret.txt', 'secret.txt'],
      ['app://toolsmith/%252e%252e/x.js', '%2e%2e/x.js'],
    ] as const) {
      expect(resolveAppFile(ROOT, url), url).toEqual({ ok: true, file: path.join(ROOT, inside) });
    }
  });

  it('refuses backslashes (a separator on Windows), NUL and broken escapes', () => {
    for (const url of ['app://toolsmith/..%5c..%5csecret.txt', 'app://toolsmith/a%5cb.js', 'app://toolsmith/a%00.js', 'app://toolsmith/%E0%A4%A.js']) {
      expect(resolveAppFile(ROOT, url), url).toEqual({ ok: false, status: 400 });
    }
  });

  it('stays inside the folder with Windows paths too', () => {
    const winRoot = 'C:\\Program Files\\Toolsmith\\resources\\app.asar\\dist\\renderer';
    expect(resolveAppFile(winRoot, 'app://toolsmith/assets/a.js', path.win32)).toEqual({ ok: true, file: `${winRoot}\\assets\\a.js` });
    expect(resolveAppFile(winRoot, 'app://toolsmith/..%2f..%2fx.js', path.win32)).toEqual({ ok: true, file: `${winRoot}\\x.js` });
    expect(resolveAppFile(winRoot, 'app://toolsmith/..%5c..%5cx.js', path.win32)).toEqual({ ok: false, status: 400 });
  });

  it('answers only the app’s own origin', () => {
    expect(resolveAppFile(ROOT, 'app://other/index.html')).toEqual({ ok: false, status: 404 });
    expect(resolveAppFile(ROOT, 'https://toolsmith/index.html')).toEqual({ ok: false, status: 404 });
    expect(resolveAppFile(ROOT, 'not a url')).toEqual({ ok: false, status: 400 });
  });
});

describe('content types', () => {
  it('names the type of every kind of file the renderer build emits', () => {
    expect(contentTypeFor('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('assets/index-abc.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('assets/editor.worker-abc.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('assets/index.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('favicon.svg')).toBe('image/svg+xml');
    expect(contentTypeFor('assets/codicon-abc.ttf')).toBe('font/ttf');
    expect(contentTypeFor('assets/x.woff2')).toBe('font/woff2');
    expect(contentTypeFor('icons/512x512.png')).toBe('image/png');
    expect(contentTypeFor('data.bin')).toBe('application/octet-stream');
  });
});

describe('appProtocolHandler', () => {
  it('serves the file with its type and the renderer’s security headers', async () => {
    const root = await tempDir();
    await fs.mkdir(path.join(root, 'assets'));
    await fs.writeFile(path.join(root, 'index.html'), '<!doctype html><title>Toolsmith</title>');
    await fs.writeFile(path.join(root, 'assets', 'app.js'), 'console.log(1)');
    const handle = appProtocolHandler({ rendererDir: root });

    const page = await handle({ url: 'app://toolsmith/settings' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // The page may frame MCP Apps' documents from their own scheme, and nothing else.
    expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy({ frameSrc: 'toolsmith-frame://view' }));
    expect(page.headers.get('content-security-policy')).toContain('frame-src toolsmith-frame://view');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<title>Toolsmith</title>');

    const js = await handle({ url: 'app://toolsmith/assets/app.js' });
    expect([js.status, js.headers.get('content-type'), await js.text()]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log(1)']);
  });

  it('answers 404 for a missing file or a path outside the folder, and reads nothing outside it', async () => {
    const base = await tempDir();
    const root = path.join(base, 'renderer');
    await fs.mkdir(root);
    await fs.writeFile(path.join(base, 'secret.txt'), 'secret');
    const read: string[] = [];
    const handle = appProtocolHandler({ rendererDir: root, readFile: (f) => (read.push(f), fs.readFile(f)) });
    for (const url of ['app://toolsmith/missing.js', 'app://toolsmith/%2e%2e/secret.txt', 'app://toolsmith/..%5csecret.txt']) {
      const r = await handle({ url });
      expect(r.status, url).toBeGreaterThanOrEqual(400);
      expect(await r.text()).not.toContain('secret');
    }
    expect(read.every((f) => f.startsWith(root + path.sep))).toBe(true);
  });
});
