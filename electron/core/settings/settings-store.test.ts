import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Settings } from '../../../shared/model/settings';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { SettingsStore } from './settings-store';

let dir: string;
const stores: SettingsStore[] = [];

function open(): { store: SettingsStore; changes: Settings[] } {
  const events = new EventBus();
  const changes: Settings[] = [];
  events.on('settings.changed', (s) => changes.push(s));
  const store = new SettingsStore(dir, events, new ProblemLog(events, () => new Date()), () => new Date());
  stores.push(store);
  return { store, changes };
}

/** The app and a CLI command on one data folder, each having read the settings. */
async function appAndCli(): Promise<{ app: ReturnType<typeof open>; cli: ReturnType<typeof open> }> {
  const app = open();
  const cli = open();
  await app.store.load();
  await cli.store.load();
  return { app, cli };
}

async function onDisk(): Promise<Settings> {
  return JSON.parse(await fs.readFile(path.join(dir, 'settings.json'), 'utf8')) as Settings;
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-settings-'));
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

describe('SettingsStore with two processes on one data folder', () => {
  it('a change keeps what the other process wrote since this one read the file', async () => {
    const { app, cli } = await appAndCli();
    // The CLI adds an allowed host on import; the app, which read the file before, then changes the theme.
    await cli.store.set({ allowedHosts: ['api.example.org'] });
    await app.store.set({ theme: 'dark' });
    const saved = await onDisk();
    expect(saved.allowedHosts).toEqual(['api.example.org']);
    expect(saved.theme).toBe('dark');
    expect(app.store.get().allowedHosts).toEqual(['api.example.org']);
  });

  it('a watched store takes up the other process’s write and tells it once', async () => {
    const app = open();
    await app.store.load();
    app.store.watch(20);
    const cli = open();
    await cli.store.load();
    await cli.store.set({ allowedHosts: ['api.example.org'] });
    await vi.waitFor(() => expect(app.store.get().allowedHosts).toEqual(['api.example.org']), { timeout: 10_000, interval: 25 });
    // Read again (as a late file event would): nothing new is told.
    await app.store.reload();
    expect(app.changes.map((s) => s.allowedHosts)).toEqual([['api.example.org']]);
  });

  it('a file being edited by hand (not valid yet) or deleted changes nothing on a reload and is not set aside', async () => {
    const app = open();
    await app.store.load();
    await app.store.set({ theme: 'dark' });
    const file = path.join(dir, 'settings.json');
    await fs.writeFile(file, '{ "theme": "li');
    await app.store.reload();
    expect(app.store.get().theme).toBe('dark');
    expect(await fs.readFile(file, 'utf8')).toBe('{ "theme": "li');
    await fs.rm(file);
    await app.store.reload();
    expect(app.store.get().theme).toBe('dark');
    expect(app.changes).toHaveLength(1);
  });

  it('update computes the change from the file as it is on disk', async () => {
    const { app, cli } = await appAndCli();
    await cli.store.set({ allowedHosts: ['a.example.org'] });
    await app.store.update((now) => ({ allowedHosts: [...now.allowedHosts, 'b.example.org'] }));
    expect((await onDisk()).allowedHosts).toEqual(['a.example.org', 'b.example.org']);
  });

  it('after close, a reload does nothing', async () => {
    const app = open();
    await app.store.load();
    app.store.watch(20);
    await app.store.close();
    const cli = open();
    await cli.store.set({ theme: 'dark' });
    await app.store.reload();
    expect(app.store.get().theme).not.toBe('dark');
    expect(app.changes).toHaveLength(0);
  });

  it('its own writes and a file rewritten unchanged tell nothing more', async () => {
    const app = open();
    await app.store.load();
    app.store.watch(20);
    await app.store.set({ theme: 'dark' });
    expect(app.changes).toHaveLength(1);
    // The same settings written by someone else (another key order would be the same too).
    await fs.writeFile(path.join(dir, 'settings.json'), JSON.stringify(await onDisk()));
    await app.store.reload();
    expect(app.changes).toHaveLength(1);
  });

  it('a file that became unreadable is set aside, and a change is made to this process’s settings', async () => {
    const app = open();
    await app.store.load();
    await app.store.set({ theme: 'dark' });
    await fs.writeFile(path.join(dir, 'settings.json'), '{ not json');
    await app.store.set({ allowedHosts: ['api.example.org'] });
    const saved = await onDisk();
    expect(saved.theme).toBe('dark');
    expect(saved.allowedHosts).toEqual(['api.example.org']);
    const names = await fs.readdir(dir);
    expect(names.filter((n) => n.startsWith('settings.json') && n !== 'settings.json')).toHaveLength(1);
  });
});

describe('SettingsStore and fields added since a file was written', () => {
  it('reads Settings → MCP server without progressive discovery as its default, and keeps a choice made since', async () => {
    await fs.writeFile(path.join(dir, 'settings.json'), JSON.stringify({ mcpServer: { enabled: true, bundleIds: ['b1'] } }));
    const { store } = open();
    await store.load();
    // Fields added since (discovery, asking the client's user) read as their defaults.
    expect(store.get().mcpServer).toEqual({ enabled: true, bundleIds: ['b1'], toolSearch: { mode: 'auto', maxTools: 50 }, askClient: true });
    await store.set({ mcpServer: { ...store.get().mcpServer, toolSearch: { mode: 'off', maxTools: 50 }, askClient: false } });
    expect((await onDisk()).mcpServer.toolSearch).toEqual({ mode: 'off', maxTools: 50 });
    expect((await onDisk()).mcpServer.askClient).toBe(false);
  });
});
