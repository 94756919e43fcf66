/**
 * The Electron shell: app lifecycle, the window, security defaults. The only place that
 * wires Electron to the core; everything else lives in electron/core and electron/host.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, protocol, safeStorage, screen, session, shell } from 'electron';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from './core/app';
import { resolveDataDir } from './core/data-dir';
import { describeSafeStorageBackend, type SecretCipher } from './core/secrets/cipher';
import { buildMenuTemplate } from './host/shell/app-menu';
import { cliArgsFromArgv, installedCliCommand } from './host/cli/cli-mode';
import { makeCliSession, removeCliSession, sweepCliSessions } from './host/cli/cli-session';
import { runCliProcess } from './host/cli/run-process';
import { appProtocolHandler } from './host/shell/app-protocol';
import { startApprovalLink, type ApprovalLink } from './host/shell/approval-link';
import { registerIpcHost } from './host/shell/ipc';
import { closeBeforeQuit } from './host/shell/quit';
import { APP_HOST, APP_ORIGIN, APP_SCHEME, FRAME_ORIGIN, FRAME_SCHEME, isAppUrl, isSafeExternalUrl } from './host/security';
import { frameProtocolHandler, isFrameUrl } from './host/shell/frame-protocol';
import { focusFirstWindow, profileDirFor } from './host/shell/single-instance';
import { mayUnload, UNSAVED_PROMPT } from './host/shell/unsaved-prompt';
import { buildWindowOptions } from './host/shell/window-options';
import { captureWindowState, loadWindowState, placeWindow, saveWindowState, windowStatePath } from './host/shell/window-state';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = path.join(here, '..', 'dist', 'renderer');
const resourcesDir = path.join(here, '..', 'resources');

// `Toolsmith --cli …` is the `toolsmith` command (host/cli-mode.ts, docs/cli.md); anything else, the desktop app.
const cliArgs = cliArgsFromArgv(process.argv, process.defaultApp === true);
if (cliArgs) app.dock?.hide();
// A command-line run never opens the app's browser profile (localStorage, cookies, caches) that
// an open window may be writing: Chromium's session data goes to a folder of its own, removed
// when the command ends. userData stays, for the keychain's key (Local State on Windows).
const cliSessionDir = cliArgs ? cliSessionData() : undefined;

/** The command's session-data folder (host/cli-session.ts), removed on every way out; it stops rather than share the window's profile. */
function cliSessionData(): string | undefined {
  sweepCliSessions(os.tmpdir());
  let dir: string;
  try {
    dir = makeCliSession(os.tmpdir());
  } catch (e) {
    console.error(`toolsmith: cannot make a folder for the command's browser data in ${os.tmpdir()}: ${(e as Error).message}`);
    app.exit(1);
    return undefined;
  }
  app.setPath('sessionData', dir);
  // Every way out: the CLI's own exit, and process.exit (`toolsmith mcp` and `serve` end so).
  process.on('exit', () => removeCliSession(dir));
  return dir;
}

const dataDir = resolveDataDir({ argv: cliArgs ?? process.argv, env: process.env, platform: process.platform, homedir: app.getPath('home'), electronUserData: app.getPath('userData') });
// One app per data folder (host/single-instance.ts): the lock is keyed on userData. A command-line
// run uses the same userData (on Windows the keychain's key for safeStorage is kept there) but
// takes no lock: it runs beside an open app, as the command under Node does.
const profileDir = profileDirFor(dataDir, app.getPath('userData'));
if (profileDir) app.setPath('userData', profileDir);

let core: Core | undefined;
let approvalLink: ApprovalLink | undefined;
let mainWindow: BrowserWindow | undefined;
let stateSaved: Promise<void> = Promise.resolve();

async function start(): Promise<void> {
  await app.whenReady();
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate({ platform: process.platform, appName: app.name, devTools: !app.isPackaged })));
  core = await createCore({ dataDir, resourcesDir, host: 'electron',
    secretCipher: osKeychainCipher(),
    // Only paths the core has confined to the workspace reach here.
    openPath: async (p) => {
      const error = await shell.openPath(p);
      if (error) throw new Error(error);
    },
    // An MCP server's OAuth sign-in page opens in the person's browser (http(s) only).
    mcpClient: { openUrl: (url) => (isSafeExternalUrl(url) ? shell.openExternal(url) : undefined) }, /* eng-disable OPEN_EXTERNAL_JS_CHECK -- http(s) only, no credentials: isSafeExternalUrl (shell.test.ts) */
  });
  // Settings → MCP server offers MCP clients this app's binary as `toolsmith mcp`.
  const cliCommand = installedCli();
  if (cliCommand) core.mcpServer.setEndpoints({ stdioCommand: [...cliCommand, 'mcp'] });

  // Deny every permission (camera, notifications, ...): the app asks for none.
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  protocol.handle(APP_SCHEME, appProtocolHandler({ rendererDir }));
  // MCP Apps' pages, each served once from its own scheme (host/shell/frame-protocol.ts).
  const frameCore = core;
  protocol.handle(FRAME_SCHEME, frameProtocolHandler((id, req) => frameCore.mcpApps.frameDocument(id, req)));
  core.mcpApps.setFrameHost({ origin: FRAME_ORIGIN, ancestors: [APP_ORIGIN] });

  registerIpcHost(ipcMain, core, () => BrowserWindow.getAllWindows().map((w) => w.webContents));
  // `toolsmith mcp` (its own process) asks this window to approve served tools (host/approval-link.ts).
  approvalLink = await startApprovalLink(core).catch((e: unknown) => {
    console.warn('toolsmith mcp will not reach this window for approvals:', e);
    return undefined;
  });
  await createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow();
  });
}

/** How to start the installed app as the `toolsmith` command; none in a development run (`npm start`). */
function installedCli(): string[] | undefined {
  return app.isPackaged ? installedCliCommand({ platform: process.platform, execPath: process.execPath, appImage: process.env.APPIMAGE }) : undefined;
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

async function createWindow(): Promise<void> {
  const stateFile = windowStatePath(dataDir);
  const place = placeWindow(await loadWindowState(stateFile), screen.getAllDisplays().map((d) => d.workArea), screen.getPrimaryDisplay().workArea);
  const options = buildWindowOptions({
    preloadPath: path.join(here, 'preload.cjs'),
    dark: nativeTheme.shouldUseDarkColors,
    bounds: place.bounds,
    iconPath: path.join(resourcesDir, 'icons', '512x512.png'),
  });
  const win = new BrowserWindow(options); /* eng-disable CONTEXT_ISOLATION_JS_CHECK SANDBOX_JS_CHECK AUXCLICK_JS_CHECK -- set in host/window-options.ts, asserted by shell.test.ts */
  mainWindow = win;
  win.once('ready-to-show', () => {
    if (place.maximized) win.maximize();
    win.show();
  });
  win.on('close', () => rememberWindow(win, stateFile));
  // The page holds unsaved changes and cancelled the unload: ask, as a browser would.
  win.webContents.on('will-prevent-unload', (event) => {
    if (mayUnload(dialog.showMessageBoxSync(win, UNSAVED_PROMPT))) event.preventDefault();
  });
  // While it is open, the window answers approvals of tools served over MCP and MCP servers' questions.
  const detach = core?.attachWindow();
  win.on('closed', () => {
    detach?.();
    if (mainWindow === win) mainWindow = undefined;
  });
  void win.loadURL(`${APP_SCHEME}://${APP_HOST}/index.html`);
}

/** Saves the window's size, position and maximized state (atomically) for the next launch. */
function rememberWindow(win: BrowserWindow, stateFile = windowStatePath(dataDir)): void {
  if (win.isDestroyed()) return;
  const state = captureWindowState(win);
  stateSaved = stateSaved.then(() => saveWindowState(stateFile, state)).catch((e: unknown) => console.warn('The window state could not be saved:', e));
}

/** The desktop app: the privileged app:// scheme, the sandbox, one app per data folder, the window. */
function startDesktop(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
    // No fetch, no CORS: it serves frame documents and nothing else.
    { scheme: FRAME_SCHEME, privileges: { standard: true, secure: true } },
  ]);
  app.enableSandbox();
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    // A frame of the window (an MCP App) stays on its one-time page: it may not navigate anywhere
    // else. Frames inside an app's page are held by that page's own CSP (frame-src).
    contents.on('will-frame-navigate', (event) => {
      if (event.isMainFrame || event.frame?.parent?.parent !== null) return;
      if (!isFrameUrl(event.url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      if (isSafeExternalUrl(url)) void shell.openExternal(url); /* eng-disable OPEN_EXTERNAL_JS_CHECK -- http(s) only, no credentials: isSafeExternalUrl (shell.test.ts) */
      return { action: 'deny' };
    });
  });

  // A second launch on this data folder quits (see above) and brings this app's window forward.
  app.on('second-instance', () => void focusFirstWindow(BrowserWindow.getAllWindows()));

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  const starting = start().catch((e: unknown) => {
    console.error('Toolsmith could not start:', e);
    app.exit(1);
  });

  // Quitting saves the window's state and waits for the core (still starting, or started) to close:
  // turns stopped, stores flushed; then exits. (app.exit skips the windows' close events.)
  app.on(
    'before-quit',
    closeBeforeQuit({
      close: () => {
        if (mainWindow) rememberWindow(mainWindow);
        return Promise.all([stateSaved, starting.then(async () => {
          await approvalLink?.close();
          await core?.close();
        })]).then(() => undefined);
      },
      exit: (code) => app.exit(code),
    }),
  );
}

/**
 * `Toolsmith --cli ARGS`: the `toolsmith` command in this process, with no window, no dock icon
 * and no single-instance lock; it ends with the command's exit code. It waits for the app to be
 * ready only because safeStorage answers after that (Linux, Windows).
 */
async function runCommandLine(args: string[]): Promise<void> {
  await app.whenReady();
  await runCliProcess(args, {
    exit: (code) => {
      if (cliSessionDir) removeCliSession(cliSessionDir);
      app.exit(code);
    },
    host: { secretCipher: osKeychainCipher(), cliCommand: installedCli() },
  });
}

if (cliArgs) {
  // Without its own session folder (it said why, and is exiting) the command does not run.
  const sessionDir = cliSessionDir;
  if (sessionDir) {
    void runCommandLine(cliArgs).catch((e: unknown) => {
      console.error(`toolsmith: ${e instanceof Error ? e.message : String(e)}`);
      removeCliSession(sessionDir);
      app.exit(1);
    });
  }
} else {
  startDesktop();
}
