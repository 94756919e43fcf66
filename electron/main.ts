/**
 * The Electron shell: app lifecycle, the window, security defaults. The only place that
 * wires Electron to the core; everything else lives in electron/core and electron/host.
 */
import { app, BrowserWindow, ipcMain, nativeTheme, protocol, safeStorage, session, shell } from 'electron';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from './core/app';
import { resolveDataDir } from './core/data-dir';
import { describeSafeStorageBackend, type SecretCipher } from './core/secrets/cipher';
import { registerIpcHost } from './host/ipc';
import { closeBeforeQuit } from './host/quit';
import { APP_HOST, APP_SCHEME, isAppUrl, isSafeExternalUrl, securityHeaders } from './host/security';
import { contentTypeFor } from './host/static-files';
import { buildWindowOptions } from './host/window-options';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = path.join(here, '..', 'dist', 'renderer');

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);
app.enableSandbox();

if (!app.requestSingleInstanceLock()) app.quit();

let core: Core | undefined;

async function start(): Promise<void> {
  await app.whenReady();
  const dataDir = resolveDataDir({
    argv: process.argv,
    env: process.env,
    electronUserData: app.getPath('userData'),
    platform: process.platform,
    homedir: app.getPath('home'),
  });
  core = await createCore({ dataDir, resourcesDir: path.join(here, '..', 'resources'), host: 'electron',
    secretCipher: osKeychainCipher(),
    // Only paths the core has confined to the workspace reach here.
    openPath: async (p) => {
      const error = await shell.openPath(p);
      if (error) throw new Error(error);
    },
    // An MCP server's OAuth sign-in page opens in the person's browser (http(s) only).
    mcpClient: { openUrl: (url) => (isSafeExternalUrl(url) ? shell.openExternal(url) : undefined) },
  });

  // Deny every permission (camera, notifications, ...): the app asks for none.
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('not found', { status: 404 });
    let file = path.resolve(rendererDir, '.' + path.posix.normalize('/' + decodeURIComponent(url.pathname)));
    if (!file.startsWith(rendererDir + path.sep)) return new Response('not found', { status: 404 });
    if (!path.extname(file)) file = path.join(rendererDir, 'index.html');
    try {
      const body = await fs.readFile(file);
      return new Response(body, { headers: { ...securityHeaders(), 'Content-Type': contentTypeFor(file) } });
    } catch {
      return new Response('not found', { status: 404 });
    }
  });

  registerIpcHost(ipcMain, core, () => BrowserWindow.getAllWindows().map((w) => w.webContents));
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
}

/**
 * Secrets through the OS keychain (safeStorage). Linux's plaintext `basic_text` backend is
 * refused (TOOLSMITH_ACCEPT_PLAINTEXT_SECRETS=1 accepts it); then the core's own AES-GCM key
 * file is used instead.
 */
function osKeychainCipher(): SecretCipher | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  if (process.platform === 'linux') {
    const verdict = describeSafeStorageBackend(safeStorage.getSelectedStorageBackend(), process.env.TOOLSMITH_ACCEPT_PLAINTEXT_SECRETS === '1');
    if (!verdict.ok) {
      console.warn(`${verdict.reason}; secrets use the encrypted key file in the data folder instead`);
      return undefined;
    }
  }
  return {
    kind: 'electron-safe-storage',
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (data) => safeStorage.decryptString(data),
  };
}

function createWindow(): void {
  const win = new BrowserWindow(
    buildWindowOptions({ preloadPath: path.join(here, 'preload.cjs'), dark: nativeTheme.shouldUseDarkColors }),
  );
  win.once('ready-to-show', () => win.show());
  // While it is open, the window answers approvals of tools served over MCP.
  const detach = core?.mcpServer.queue.attachWindow();
  win.on('closed', () => detach?.());
  void win.loadURL(`${APP_SCHEME}://${APP_HOST}/index.html`);
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
});

app.on('second-instance', () => {
  const win = BrowserWindow.getAllWindows()[0];
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

const starting = start().catch((e: unknown) => {
  console.error('Toolsmith could not start:', e);
  app.exit(1);
});

// Quitting waits for the core (still starting, or started) to close: turns stopped, stores flushed; then exits.
app.on('before-quit', closeBeforeQuit({ close: () => starting.then(() => core?.close()), exit: (code) => app.exit(code) }));
