import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argValue, resolveDataDir } from './data-dir';

const base = { argv: [], env: {}, platform: 'linux' as const, homedir: '/home/ada' };

describe('resolveDataDir', () => {
  it('prefers --data-dir, then TOOLSMITH_DATA_DIR, then the app’s own folder', () => {
    const all = { ...base, argv: ['--data-dir', '/a'], env: { TOOLSMITH_DATA_DIR: '/b' } };
    expect(resolveDataDir(all)).toBe('/a');
    expect(resolveDataDir({ ...all, argv: [] })).toBe('/b');
    expect(resolveDataDir({ ...all, argv: [], env: { TOOLSMITH_DATA_DIR: '  ' } })).toBe('/home/ada/.config/Toolsmith');
  });

  it('is, on Linux, the folder Electron gives the desktop app (~/.config/Toolsmith), for the command and the headless host too', () => {
    expect(resolveDataDir(base)).toBe('/home/ada/.config/Toolsmith');
    // Electron's userData follows XDG_CONFIG_HOME; XDG_DATA_HOME plays no part.
    expect(resolveDataDir({ ...base, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg/Toolsmith');
    expect(resolveDataDir({ ...base, env: { XDG_DATA_HOME: '/xdg-data' } })).toBe('/home/ada/.config/Toolsmith');
  });

  it('ignores an XDG_CONFIG_HOME that is not absolute (as the XDG spec says)', () => {
    expect(resolveDataDir({ ...base, env: { XDG_CONFIG_HOME: 'relative' } })).toBe('/home/ada/.config/Toolsmith');
  });

  it('knows macOS and Windows folders (Electron’s userData there)', () => {
    expect(resolveDataDir({ ...base, platform: 'darwin' })).toBe('/home/ada/Library/Application Support/Toolsmith');
    expect(resolveDataDir({ ...base, platform: 'win32', env: { APPDATA: '/roaming' } })).toBe(path.join('/roaming', 'Toolsmith'));
    expect(resolveDataDir({ ...base, platform: 'win32' })).toBe(path.join('/home/ada', 'AppData', 'Roaming', 'Toolsmith'));
  });

  it('in the desktop app, is Electron’s userData (after --data-dir and TOOLSMITH_DATA_DIR)', () => {
    expect(resolveDataDir({ ...base, electronUserData: '/electron/Toolsmith' })).toBe('/electron/Toolsmith');
    expect(resolveDataDir({ ...base, argv: ['--data-dir', '/a'], electronUserData: '/electron/Toolsmith' })).toBe('/a');
  });

  it('keeps a data folder at the former Linux default while the app’s own folder does not exist', () => {
    const only = (...dirs: string[]) => (d: string) => dirs.includes(d);
    expect(resolveDataDir({ ...base, exists: only('/home/ada/.local/share/toolsmith') })).toBe('/home/ada/.local/share/toolsmith');
    expect(resolveDataDir({ ...base, env: { XDG_DATA_HOME: '/xdg-data' }, exists: only('/xdg-data/toolsmith') })).toBe('/xdg-data/toolsmith');
    // Once the app's folder exists, it wins; with neither, the app's folder is made.
    expect(resolveDataDir({ ...base, exists: only('/home/ada/.local/share/toolsmith', '/home/ada/.config/Toolsmith') })).toBe('/home/ada/.config/Toolsmith');
    expect(resolveDataDir({ ...base, exists: only() })).toBe('/home/ada/.config/Toolsmith');
    expect(resolveDataDir({ ...base, platform: 'darwin', exists: only('/home/ada/.local/share/toolsmith') })).toBe('/home/ada/Library/Application Support/Toolsmith');
  });

  it('resolves relative arguments and reads --name=value', () => {
    expect(resolveDataDir({ ...base, argv: ['--data-dir=rel'] })).toBe(path.resolve('rel'));
    expect(argValue(['--port', '8080'], '--port')).toBe('8080');
    expect(argValue(['--port=9'], '--port')).toBe('9');
    expect(argValue([], '--port')).toBeUndefined();
  });
});
