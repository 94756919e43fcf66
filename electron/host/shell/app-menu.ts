/**
 * The application menu, as a template built by a pure function: standard roles (so the OS
 * text fields, the clipboard and the window behave as people expect) with their usual
 * shortcuts written out. main.ts hands it to Menu.buildFromTemplate.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuInput {
  platform: NodeJS.Platform;
  appName: string;
  /** The developer tools item: only in a development build, never in a packaged app. */
  devTools: boolean;
}

type Item = MenuItemConstructorOptions;
const sep: Item = { type: 'separator' };

export function buildMenuTemplate(i: MenuInput): Item[] {
  const mac = i.platform === 'darwin';
  const template: Item[] = [];
  if (mac) {
    template.push({
      label: i.appName,
      submenu: [
        { role: 'about' },
        sep,
        { role: 'services' },
        sep,
        { role: 'hide', accelerator: 'Command+H' },
        { role: 'hideOthers', accelerator: 'Command+Alt+H' },
        { role: 'unhide' },
        sep,
        { role: 'quit', accelerator: 'Command+Q' },
      ],
    });
  }
  template.push({
    label: 'File',
    submenu: mac ? [{ role: 'close', accelerator: 'Command+W' }] : [{ role: 'close', accelerator: 'Ctrl+W' }, sep, { role: 'quit', label: 'Exit', accelerator: 'Ctrl+Q' }],
  });
  template.push({
    label: 'Edit',
    submenu: [
      { role: 'undo', accelerator: 'CmdOrCtrl+Z' },
      { role: 'redo', accelerator: mac ? 'Shift+Command+Z' : 'Ctrl+Y' },
      sep,
      { role: 'cut', accelerator: 'CmdOrCtrl+X' },
      { role: 'copy', accelerator: 'CmdOrCtrl+C' },
      { role: 'paste', accelerator: 'CmdOrCtrl+V' },
      { role: 'pasteAndMatchStyle', accelerator: 'Shift+CmdOrCtrl+V' },
      { role: 'delete' },
      sep,
      { role: 'selectAll', accelerator: 'CmdOrCtrl+A' },
    ],
  });
  template.push({
    label: 'View',
    submenu: [
      // The state lives in the core, so reloading the window loses nothing.
      { role: 'reload', accelerator: 'CmdOrCtrl+R' },
      { role: 'forceReload', accelerator: 'Shift+CmdOrCtrl+R' },
      ...(i.devTools ? [{ role: 'toggleDevTools', accelerator: mac ? 'Alt+Command+I' : 'Ctrl+Shift+I' } satisfies Item] : []),
      sep,
      { role: 'resetZoom', accelerator: 'CmdOrCtrl+0' },
      { role: 'zoomIn', accelerator: 'CmdOrCtrl+Plus' },
      { role: 'zoomOut', accelerator: 'CmdOrCtrl+-' },
      sep,
      { role: 'togglefullscreen', accelerator: mac ? 'Ctrl+Command+F' : 'F11' },
    ],
  });
  template.push({
    label: 'Window',
    role: 'window',
    submenu: mac
      ? [{ role: 'minimize', accelerator: 'Command+M' }, { role: 'zoom' }, sep, { role: 'front' }]
      : [{ role: 'minimize', accelerator: 'Ctrl+M' }],
  });
  return template;
}
