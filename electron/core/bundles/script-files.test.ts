/**
 * A script tool is a pair of files, its .json and the readable .js beside it. Every way the pair
 * can stop matching is reported and leaves the tool listed, switched off, with the reason; a call
 * is refused with the same sentence; nothing crashes and nothing is rewritten. Putting the file
 * back makes the tool usable again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isToolUsable } from '../../../shared/model/tool';
import { useTempDirs } from '../testing/temp-dir';
import { toolFileName } from './layout';
import { openStore, rejection, storeWithBundle } from './testing/fixtures';

const tempDir = useTempDirs();

const SOURCE = 'function run(args) { return args; }\n';
const body = (source = SOURCE) => ({ displayName: 'S', description: '', tags: [], type: 'script', argSchema: { type: 'object' }, outputSchema: {}, script: { source, memoryLimitMb: 32 }, isEnabled: true });

async function withScript() {
  const f = await storeWithBundle(await tempDir());
  const view = await f.store.putTool(f.bundleId, 'echo', '1', body());
  const js = path.join(f.dataDir, 'bundles', f.bundleId, 'tools', toolFileName('echo', '1').replace(/\.json$/, '.js'));
  return { ...f, view, js };
}

describe('a script tool’s pair of files', () => {
  it('holds the source as written in the .js and only its SHA-256 and limits in the .json', async () => {
    const { store, bundleId, view, js } = await withScript();
    expect(await fs.readFile(js, 'utf8')).toBe(SOURCE);
    expect(view.script).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), memoryLimitMb: 32 });
    expect(await store.scriptForCall(view)).toBe(SOURCE);
    expect(await store.scriptSource(bundleId, 'echo', '1')).toEqual({ ok: true, source: SOURCE, sha256: view.script!.sha256 });
  });

  it('a .js changed by hand: calls are refused (before any reload), the next load reports it and lists the tool switched off; put back, it runs again', async () => {
    const { store, bundleId, view, js, problems } = await withScript();
    expect(await store.scriptForCall(view)).toBe(SOURCE);
    await fs.writeFile(js, 'function run() { return "not what was saved" }\n');
    // A call looks at the file again (within a quarter of a second of the last look).
    await vi.waitFor(async () => {
      expect(await rejection(() => store.scriptForCall(view))).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/^'echo' cannot run: its script file echo@1\.[0-9a-f]+\.js was changed after this version was saved/) });
    });
    const changes = await store.reload();
    expect(changes).toEqual([{ kind: 'tool', op: 'patch', id: view.id, bundleId }]);
    const shown = store.getTool(bundleId, 'echo', '1');
    expect(shown).toMatchObject({ isEnabled: false, unavailableReason: expect.stringMatching(/was changed after this version was saved/) });
    expect(isToolUsable(shown, store.getBundle(bundleId))).toBe(false);
    expect(problems.list()).toEqual([expect.objectContaining({ kind: 'invalid-config', path: js, message: expect.stringMatching(/^script tool 'echo' version '1' is switched off: its script file/) })]);
    expect(await store.scriptSource(bundleId, 'echo', '1')).toMatchObject({ ok: false, source: 'function run() { return "not what was saved" }\n', problem: expect.stringMatching(/changed/) });
    // The file was not rewritten, and the tool file is where it was.
    expect(await fs.readFile(js, 'utf8')).toMatch(/not what was saved/);
    await fs.writeFile(js, SOURCE);
    await store.reload();
    expect(store.getTool(bundleId, 'echo', '1')).toMatchObject({ isEnabled: true });
    expect(store.getTool(bundleId, 'echo', '1').unavailableReason).toBeUndefined();
    await vi.waitFor(async () => expect(await store.scriptForCall(view)).toBe(SOURCE));
  });

  it('a missing .js, and a folder in its place, are reported the same way; a store opened on such a folder starts', async () => {
    const { store, bundleId, dataDir, view, js } = await withScript();
    await fs.rm(js);
    await vi.waitFor(async () => expect(await rejection(() => store.scriptForCall(view))).toMatchObject({ message: expect.stringMatching(/its script file .* is missing/) }));
    await store.close();
    const again = await openStore(dataDir);
    expect(again.store.getTool(bundleId, 'echo', '1')).toMatchObject({ isEnabled: false, unavailableReason: expect.stringMatching(/is missing; restore it/) });
    expect(again.problems.list().map((p) => p.message)).toEqual([expect.stringMatching(/is missing/)]);
    await fs.mkdir(js);
    await again.store.reload();
    expect(again.store.getTool(bundleId, 'echo', '1').unavailableReason).toMatch(/cannot be read/);
    await again.store.close();
  });

  it('deleting the version removes both files; a .js left without its .json does not keep a deleted bundle from being reaped', async () => {
    const { store, bundleId, dataDir, js } = await withScript();
    await store.deleteTool(bundleId, 'echo', '1');
    await expect(fs.stat(js)).rejects.toMatchObject({ code: 'ENOENT' });
    // A write that stopped between its two files leaves a .js alone: it is ignored, then reaped with its bundle.
    await fs.writeFile(js, SOURCE);
    await store.reload();
    expect(store.toolsOf(bundleId)).toEqual([]);
    await store.deleteBundle(bundleId);
    await store.close();
    const later = await openStore(dataDir, { now: () => new Date(Date.now() + 3 * 24 * 3600 * 1000) });
    expect(await later.store.reap()).toEqual([bundleId]);
    await expect(fs.stat(path.join(dataDir, 'bundles', bundleId))).rejects.toMatchObject({ code: 'ENOENT' });
    await later.store.close();
  });

  it('the same version again is refused before its .js is touched', async () => {
    const { store, bundleId, js } = await withScript();
    expect(await rejection(() => store.putTool(bundleId, 'echo', '1', body('function run() { return 2 }')))).toMatchObject({ code: 'CONFLICT' });
    expect(await fs.readFile(js, 'utf8')).toBe(SOURCE);
  });
});
