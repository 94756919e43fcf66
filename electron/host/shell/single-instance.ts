/**
 * One app per data folder. Electron's single-instance lock is keyed on the userData folder,
 * so a run on a data folder of its own (`--data-dir`, TOOLSMITH_DATA_DIR) keeps its browser
 * profile inside that folder: two apps on one data folder never run at once, and apps on
 * different data folders (the e2e runs) do not stop each other. A second launch on the same
 * folder brings the first app's window forward and quits.
 */
import path from 'node:path';

/** The userData folder to use, or undefined to keep Electron's own (the default data folder). */
export function profileDirFor(dataDir: string, electronUserData: string): string | undefined {
  return path.resolve(dataDir) === path.resolve(electronUserData) ? undefined : path.join(dataDir, 'electron-profile');
}

/** The part of a BrowserWindow the second launch touches. */
export interface FocusableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  isVisible(): boolean;
  show(): void;
  focus(): void;
}

/** Brings the first open window forward (restored, shown, focused); false when there is none yet. */
export function focusFirstWindow(windows: readonly FocusableWindow[]): boolean {
  const win = windows.find((w) => !w.isDestroyed());
  if (!win) return false;
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
  return true;
}
