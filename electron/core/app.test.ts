import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core, type CoreConfig } from './app';
import { RESOURCES_DIR, useTempDirs } from './testing/temp-dir';

const tempDir = useTempDirs();
const opened: Core[] = [];
/** A core closed after the test (closing twice is a no-op). */
async function open(config: CoreConfig): Promise<Core> {
  const core = await createCore(config);
  opened.push(core);
  return core;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

describe('the core', () => {
  it('starts on an empty data folder with default settings and a workspace', async () => {
    const dataDir = path.join(await tempDir(), 'fresh', 'data');
    const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const info = await core.router.call('app.info', {});
    expect(info).toMatchObject({ ok: true, value: { name: 'Toolsmith', dataDir, workspaceDir: path.join(dataDir, 'workspace') } });
    expect((await fs.stat(path.join(dataDir, 'workspace'))).isDirectory()).toBe(true);
    expect(await core.router.call('settings.get', {})).toMatchObject({ ok: true, value: { theme: 'system', allowedHosts: [], modelRouting: [] } });
  });

  it('persists settings atomically and reads them back after a restart', async () => {
    const dataDir = await tempDir();
    const a = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const seen: unknown[] = [];
    a.events.on('settings.changed', (s) => seen.push(s.theme));
    expect(await a.router.call('settings.set', { theme: 'dark', allowedHosts: ['api.example.com'], modelRouting: ['readfile'] })).toMatchObject({ ok: true });
    expect(seen).toEqual(['dark']);
    await a.close();

    const onDisk = JSON.parse(await fs.readFile(path.join(dataDir, 'settings.json'), 'utf8'));
    expect(onDisk).toMatchObject({ theme: 'dark', allowedHosts: ['api.example.com'] });
    const leftovers = (await fs.readdir(dataDir)).filter((f) => f.startsWith('settings.json') && f !== 'settings.json');
    expect(leftovers).toEqual([]);

    const b = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    expect(b.settings.get()).toMatchObject({ theme: 'dark', allowedHosts: ['api.example.com'], modelRouting: ['readfile'] });
  });

  it('serialises concurrent changes so the last acknowledged one is on disk', async () => {
    const dataDir = await tempDir();
    const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const themes = ['dark', 'light', 'system', 'dark', 'light'] as const;
    const results = await Promise.all(themes.map((theme) => core.router.call('settings.set', { theme })));
    expect(results.every((r) => r.ok)).toBe(true);
    const onDisk = JSON.parse(await fs.readFile(path.join(dataDir, 'settings.json'), 'utf8'));
    expect(onDisk.theme).toBe('light');
    expect(core.settings.get().theme).toBe('light');
  });

  it('refuses a bad change and leaves the saved settings as they were', async () => {
    const dataDir = await tempDir();
    const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    await core.router.call('settings.set', { theme: 'dark' });
    const before = await fs.readFile(path.join(dataDir, 'settings.json'), 'utf8');
    const relative = await core.router.call('settings.set', { workspaceDir: 'relative/path' });
    expect(relative).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { field: 'workspaceDir' } } });
    const badHost = await core.router.call('settings.set', { allowedHosts: ['evil host/path'] });
    expect(badHost).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    const pastedUrl = await core.router.call('settings.set', { allowedHosts: ['ok.example.com', 'https://api.github.com/repos'] });
    expect(pastedUrl.ok ? '' : pastedUrl.error.message).toContain('allowedHosts.1: “https://api.github.com/repos”: a URL was pasted; keep only the host — write api.github.com');
    const badTheme = await core.router.call('settings.set', { theme: 'purple' });
    expect(await core.router.call('settings.set', { modelRouting: ['files/readfile', '../x'] })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(badTheme).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(await fs.readFile(path.join(dataDir, 'settings.json'), 'utf8')).toBe(before);
  });

  it('gives local tools the workspace folder the settings name now, after calls made before a change', async () => {
    const dataDir = await tempDir();
    const other = await tempDir();
    const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const seen: string[] = [];
    core.functions.register('test.where', async (ctx) => {
      seen.push(ctx.workspaceDir);
      return { at: ctx.workspaceDir, regex: ctx.regexTimeLimitMs ?? null };
    });
    const bundleId = '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35';
    await core.registry.store.putBundle(bundleId, { slug: 'probe', displayName: 'Probe', description: '', isEnabled: true });
    await core.registry.store.putTool(bundleId, 'where', '1', { displayName: 'where', description: '', tags: [], type: 'local', argSchema: { type: 'object' }, outputSchema: { type: 'object' }, local: { functionId: 'test.where' }, isEnabled: true });
    const where = () => core.dispatcher.invoke({ bundleId, slug: 'where', version: '1', args: {}, source: 'tester' });
    expect(await where()).toMatchObject({ ok: true, value: { at: path.join(dataDir, 'workspace') } });
    expect((await core.router.call('settings.set', { workspaceDir: other, regexTimeLimitMs: 750 })).ok).toBe(true);
    expect(await where()).toMatchObject({ ok: true, value: { at: other, regex: 750 } });
    expect(seen).toEqual([path.join(dataDir, 'workspace'), other]);
    await core.close();
  });

  it('refuses a workspace folder it cannot create, naming the field', async () => {
    const dataDir = await tempDir();
    const blocker = path.join(dataDir, 'a-file');
    await fs.writeFile(blocker, 'x');
    const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const r = await core.router.call('settings.set', { workspaceDir: path.join(blocker, 'inside') });
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { field: 'workspaceDir' } } });
    expect(core.settings.get().workspaceDir).toBe('');
  });

  for (const [label, content] of [
    ['corrupt', '{"theme": "dark",'],
    ['empty', ''],
    ['wrong-schema', '{"theme": 42}'],
  ] as const) {
    it(`sets a ${label} settings file aside, reports it, and starts with defaults`, async () => {
      const dataDir = await tempDir();
      await fs.writeFile(path.join(dataDir, 'settings.json'), content);
      const core = await open({ resourcesDir: RESOURCES_DIR, dataDir, host: 'headless' });
      try {
        expect(core.settings.get().theme).toBe('system');
        const problems = await core.call('app.problems', {});
        expect(problems.ok && problems.value).toHaveLength(1);
        const p = problems.ok ? problems.value[0]! : null;
        expect(p).toMatchObject({ kind: 'corrupt-file', path: path.join(dataDir, 'settings.json') });
        // Nothing is lost: the bad file is kept beside, byte for byte.
        expect(await fs.readFile(p!.movedTo!, 'utf8')).toBe(content);
      } finally {
        await core.close();
      }
    });

    it(`a command on the side (no watching, as the CLI) leaves a ${label} settings file, reports it, and changes nothing`, async () => {
      const dataDir = await tempDir();
      const file = path.join(dataDir, 'settings.json');
      await fs.writeFile(file, content);
      const core = await open({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
      expect(core.settings.get().theme).toBe('system');
      const problems = await core.call('app.problems', {});
      expect(problems.ok && problems.value).toMatchObject([{ kind: 'corrupt-file', path: file }]);
      expect(await core.call('settings.set', { allowedHosts: ['api.example.org'] })).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
      expect(await fs.readFile(file, 'utf8')).toBe(content);
      await core.close();
    });
  }
});
