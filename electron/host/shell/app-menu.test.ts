import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { buildMenuTemplate } from './app-menu';

type Item = MenuItemConstructorOptions;
const items = (t: Item[]): Item[] => t.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu) : [])]);
const byRole = (t: Item[], role: Item['role']) => items(t).find((i) => i.role === role);
const menu = (t: Item[], label: string) => t.find((i) => i.label === label)?.submenu as Item[] | undefined;

describe('app menu', () => {
  for (const platform of ['darwin', 'linux', 'win32'] as const) {
    it(`has the standard edit shortcuts on ${platform}, on the OS roles`, () => {
      const t = buildMenuTemplate({ platform, appName: 'Toolsmith', devTools: false });
      const edit = menu(t, 'Edit')!.filter((i) => i.type !== 'separator');
      expect(edit.map((i) => [i.role, i.accelerator])).toEqual([
        ['undo', 'CmdOrCtrl+Z'],
        ['redo', platform === 'darwin' ? 'Shift+Command+Z' : 'Ctrl+Y'],
        ['cut', 'CmdOrCtrl+X'],
        ['copy', 'CmdOrCtrl+C'],
        ['paste', 'CmdOrCtrl+V'],
        ['pasteAndMatchStyle', 'Shift+CmdOrCtrl+V'],
        ['delete', undefined],
        ['selectAll', 'CmdOrCtrl+A'],
      ]);
      expect(byRole(t, 'reload')?.accelerator).toBe('CmdOrCtrl+R');
      expect(byRole(t, 'zoomIn')?.accelerator).toBe('CmdOrCtrl+Plus');
      expect(byRole(t, 'zoomOut')?.accelerator).toBe('CmdOrCtrl+-');
      expect(byRole(t, 'resetZoom')?.accelerator).toBe('CmdOrCtrl+0');
      expect(byRole(t, 'minimize')).toBeDefined();
    });

    it(`never gives two items one shortcut on ${platform}`, () => {
      const t = buildMenuTemplate({ platform, appName: 'Toolsmith', devTools: true });
      const keys = items(t).flatMap((i) => (i.accelerator ? [i.accelerator.replace('CmdOrCtrl', platform === 'darwin' ? 'Command' : 'Ctrl')] : []));
      expect(keys.length).toBeGreaterThan(10);
      expect(new Set(keys).size).toBe(keys.length);
    });
  }

  it('puts the app menu first on macOS, with About, Hide and Quit (⌘Q)', () => {
    const t = buildMenuTemplate({ platform: 'darwin', appName: 'Toolsmith', devTools: false });
    expect(t.map((i) => i.label)).toEqual(['Toolsmith', 'File', 'Edit', 'View', 'Window']);
    const app = (t[0]!.submenu as Item[]).map((i) => i.role).filter(Boolean);
    expect(app).toEqual(['about', 'services', 'hide', 'hideOthers', 'unhide', 'quit']);
    expect(byRole(t, 'quit')?.accelerator).toBe('Command+Q');
    expect(byRole(t, 'close')?.accelerator).toBe('Command+W');
    expect(byRole(t, 'togglefullscreen')?.accelerator).toBe('Ctrl+Command+F');
    expect(byRole(t, 'front')).toBeDefined();
  });

  it('puts Exit (Ctrl+Q) in the File menu on Linux and Windows, with no macOS-only roles', () => {
    for (const platform of ['linux', 'win32'] as const) {
      const t = buildMenuTemplate({ platform, appName: 'Toolsmith', devTools: false });
      expect(t.map((i) => i.label)).toEqual(['File', 'Edit', 'View', 'Window']);
      expect(menu(t, 'File')!.find((i) => i.role === 'quit')).toMatchObject({ label: 'Exit', accelerator: 'Ctrl+Q' });
      expect(byRole(t, 'togglefullscreen')?.accelerator).toBe('F11');
      for (const macOnly of ['about', 'services', 'hide', 'hideOthers', 'unhide', 'front', 'zoom'] as const) expect(byRole(t, macOnly), macOnly).toBeUndefined();
    }
  });

  it('offers the developer tools only in a development build', () => {
    expect(byRole(buildMenuTemplate({ platform: 'linux', appName: 'Toolsmith', devTools: false }), 'toggleDevTools')).toBeUndefined();
    expect(byRole(buildMenuTemplate({ platform: 'linux', appName: 'Toolsmith', devTools: true }), 'toggleDevTools')?.accelerator).toBe('Ctrl+Shift+I');
    expect(byRole(buildMenuTemplate({ platform: 'darwin', appName: 'Toolsmith', devTools: true }), 'toggleDevTools')?.accelerator).toBe('Alt+Command+I');
  });
});
