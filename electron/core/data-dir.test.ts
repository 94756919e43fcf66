import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argValue, resolveDataDir } from './data-dir';

const base = { argv: [], env: {}, platform: 'linux' as const, homedir: '/home/ada' };

describe('resolveDataDir', () => {
  it('prefers --data-dir, then TOOLSMITH_DATA_DIR, then Electron, then the platform folder', () => {
    const all = { ...base, argv: ['--data-dir', '/a'], env: { TOOLSMITH_DATA_DIR: '/b' }, electronUserData: '/c' };
    expect(resolveDataDir(all)).toBe('/a');
    expect(resolveDataDir({ ...all, argv: [] })).toBe('/b');
    expect(resolveDataDir({ ...all, argv: [], env: {} })).toBe('/c');
    expect(resolveDataDir(base)).toBe('/home/ada/.local/share/toolsmith');
  });

  it('follows XDG_DATA_HOME when it is absolute, and ignores it otherwise', () => {
    expect(resolveDataDir({ ...base, env: { XDG_DATA_HOME: '/xdg' } })).toBe('/xdg/toolsmith');
    expect(resolveDataDir({ ...base, env: { XDG_DATA_HOME: 'relative' } })).toBe('/home/ada/.local/share/toolsmith');
  });

  it('knows macOS and Windows folders', () => {
    expect(resolveDataDir({ ...base, platform: 'darwin' })).toBe('/home/ada/Library/Application Support/Toolsmith');
    expect(resolveDataDir({ ...base, platform: 'win32', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' } })).toContain('Toolsmith');
  });

  it('resolves relative arguments and reads --name=value', () => {
    expect(resolveDataDir({ ...base, argv: ['--data-dir=rel'] })).toBe(path.resolve('rel'));
    expect(argValue(['--port', '8080'], '--port')).toBe('8080');
    expect(argValue(['--port=9'], '--port')).toBe('9');
    expect(argValue([], '--port')).toBeUndefined();
  });
});
