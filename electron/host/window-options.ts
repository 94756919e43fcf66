/**
 * The main window's options, built by a pure function so a test can check every
 * security default without starting Electron. The return type is Electron's own.
 */
import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowOptionsInput {
  preloadPath: string;
  /** Background painted before the renderer loads, to avoid a white flash in dark mode. */
  dark: boolean;
}

export function buildWindowOptions(i: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 520,
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
    },
  };
}
