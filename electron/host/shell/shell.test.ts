import { afterEach, describe, expect, it } from 'vitest';
import { operationNames } from '../../../shared/contract';
import { createCore, type Core } from '../../core/app';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { CALL_CHANNEL, EVENT_CHANNEL, createBridge, type IpcRendererLike } from './bridge';
import { registerIpcHost, type IpcMainLike } from './ipc';
import { contentSecurityPolicy, isAppUrl, isSafeExternalUrl } from '../security';
import { buildWindowOptions } from './window-options';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function openCore(): Promise<Core> {
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'electron' });
  cores.push(core);
  return core;
}

describe('window options', () => {
  it('isolate the renderer: context isolation, sandbox, no Node, no webviews', () => {
    const o = buildWindowOptions({ preloadPath: '/app/preload.cjs', dark: false });
    expect(o.webPreferences).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
    expect(o.show).toBe(false);
  });

  it('refuse middle-click new windows, and open where window-state placed the window', () => {
    const o = buildWindowOptions({ preloadPath: '/app/preload.cjs', dark: true, bounds: { x: 10, y: 20, width: 900, height: 600 }, iconPath: '/app/icon.png' });
    expect(o.webPreferences?.disableBlinkFeatures).toBe('Auxclick');
    expect(o).toMatchObject({ x: 10, y: 20, width: 900, height: 600, minWidth: 800, minHeight: 520, icon: '/app/icon.png' });
    expect(o.center).toBeUndefined();
    // No saved state: the default size, centred.
    expect(buildWindowOptions({ preloadPath: '/app/preload.cjs', dark: false })).toMatchObject({ width: 1280, height: 820, center: true });
  });
});

describe('security rules', () => {
  it('open only http(s) links without credentials externally', () => {
    expect(isSafeExternalUrl('https://example.com/docs')).toBe(true);
    expect(isSafeExternalUrl('http://example.com')).toBe(true);
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'https://user:pw@example.com', 'not a url', 'app://toolsmith/']) {
      expect(isSafeExternalUrl(bad), bad).toBe(false);
    }
  });

  it('recognise only the app origin as the app', () => {
    expect(isAppUrl('app://toolsmith/index.html')).toBe(true);
    expect(isAppUrl('app://other/index.html')).toBe(false);
    expect(isAppUrl('https://toolsmith/')).toBe(false);
    expect(isAppUrl('file:///index.html')).toBe(false);
  });

  it('allow no inline or remote script in the CSP', () => {
    const csp = contentSecurityPolicy();
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|http)/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('let no frame load but the MCP Apps frame origin the host names', () => {
    expect(contentSecurityPolicy()).toMatch(/(^|; )frame-src 'none'(;|$)/);
    const csp = contentSecurityPolicy({ frameSrc: 'http://127.0.0.1:4321' });
    expect(csp).toMatch(/(^|; )frame-src http:\/\/127\.0\.0\.1:4321(;|$)/);
    // The renderer itself is never framed, whatever it frames.
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('let a tool’s images and sounds show from data: URLs, and nothing remote', () => {
    const csp = contentSecurityPolicy();
    expect(csp).toMatch(/(^|; )img-src [^;]*\bdata:/);
    expect(csp).toMatch(/(^|; )media-src data:(;|$)/);
    expect(csp).not.toMatch(/(img|media)-src[^;]*(https?:|\*)/);
  });
});

/** A stand-in for Electron's ipcMain/ipcRenderer pair, wired back to back. */
function fakeIpc(frameUrl: string) {
  const handlers = new Map<string, (event: { senderFrame: { url: string } | null }, ...args: unknown[]) => unknown>();
  const rendererListeners = new Map<string, ((e: unknown, ...a: unknown[]) => void)[]>();
  const main: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const invoked: string[] = [];
  const renderer: IpcRendererLike = {
    invoke: async (ch, ...args) => {
      invoked.push(String(args[0]));
      return handlers.get(ch)!({ senderFrame: { url: frameUrl } }, ...args);
    },
    on: (ch, fn) => void rendererListeners.set(ch, [...(rendererListeners.get(ch) ?? []), fn]),
  };
  const window = { send: (ch: string, msg: unknown) => rendererListeners.get(ch)?.forEach((fn) => fn({}, msg)) };
  return { main, renderer, window, invoked, handlers };
}

describe('IPC host and preload bridge', () => {
  it('carry contract calls and events between the window and the core', async () => {
    const core = await openCore();
    const ipc = fakeIpc('app://toolsmith/index.html');
    registerIpcHost(ipc.main, core, () => [ipc.window]);
    const bridge = createBridge(ipc.renderer);
    const themes: string[] = [];
    bridge.on('settings.changed', (s) => themes.push(s.theme));
    expect(await bridge.call('settings.set', { theme: 'dark' })).toMatchObject({ ok: true, value: { theme: 'dark' } });
    expect(themes).toEqual(['dark']);
  });

  it('refuse calls from any frame that is not the app', async () => {
    const core = await openCore();
    for (const url of ['https://evil.example/', 'file:///tmp/x.html', '']) {
      const ipc = fakeIpc(url);
      registerIpcHost(ipc.main, core, () => []);
      const r = await createBridge(ipc.renderer).call('settings.set', { theme: 'dark' });
      expect(r, url).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    expect(core.settings.get().theme).toBe('system');
  });

  it('forward only contract names and never send an unknown one', async () => {
    const core = await openCore();
    const ipc = fakeIpc('app://toolsmith/');
    registerIpcHost(ipc.main, core, () => []);
    const bridge = createBridge(ipc.renderer);
    const r = await bridge.call('fs.readFile' as never, {} as never);
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(ipc.invoked).toEqual([]);
    expect(() => bridge.on('not.an.event' as never, () => undefined)).toThrow(/unknown event/);
    // Even a hand-made invoke with a bad name or a huge input is refused by the host.
    const handler = ipc.handlers.get(CALL_CHANNEL)!;
    expect(await handler({ senderFrame: { url: 'app://toolsmith/' } }, 'nope', {})).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(await handler({ senderFrame: { url: 'app://toolsmith/' } }, 'app.ping', { echo: 'x'.repeat(9 * 1024 * 1024) })).toMatchObject({
      ok: false,
      error: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(operationNames.length).toBeGreaterThan(0);
    expect(EVENT_CHANNEL).not.toBe(CALL_CHANNEL);
  });
});
