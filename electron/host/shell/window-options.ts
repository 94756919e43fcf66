/**
 * The main window's options, built by a pure function so a test can check every
 * security default without starting Electron. The return type is Electron's own.
 */
import type { BrowserWindowConstructorOptions } from 'electron';
import { DEFAULT_SIZE, MIN_SIZE } from './window-state';

export interface WindowOptionsInput {
  preloadPath: string;
  /** Background painted before the renderer loads, to avoid a white flash in dark mode. */
  dark: boolean;
  /** Where the window opens (window-state.ts placeWindow); the default size, centred, when absent. */
  bounds?: { x: number; y: number; width: number; height: number };
  /** The window icon (used on Linux; macOS and Windows take the app's own icon). */
  iconPath?: string;
}

export function buildWindowOptions(i: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    ...(i.bounds ?? { width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height, center: true }),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    ...(i.iconPath ? { icon: i.iconPath } : {}),
    title: 'Toolsmith',
    show: false,
    backgroundColor: i.dark ? '#15171c' : '#ffffff',
    autoHideMenuBar: true,
    webPreferences: {
      preload: i.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: true,
      safeDialogs: true,
      // A middle click would ask for a new window (denied anyway by the window-open handler).
      disableBlinkFeatures: 'Auxclick',
    },
  };
}
