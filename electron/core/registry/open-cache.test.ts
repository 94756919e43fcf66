/**
 * Opening a data folder whose index is present: unchanged tool files come from the index's
 * cached docs (none is read), and whatever changed on disk is noticed as on a cold open,
 * even when the index is stale, tampered with, or of another doc format.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { toolFileName } from '../bundles/layout';
import { useTempDirs } from '../testing/temp-dir';
import { Registry } from './registry';

const tempDir = useTempDirs();

afterEach(() => {
  vi.restoreAllMocks();
});

const body = (displayName: string, tags: string[] = []) => ({
  displayName,
  description: `${displayName} does a thing`,
  tags,
  type: 'http' as const,
  argSchema: { type: 'object', properties: { q: { type: 'string' } } },
  outputSchema: { type: 'object' },
  http: { method: 'GET' as const, urlTemplate: 'https://api.example.com/x?q=${q}' },
  isEnabled: true,
});

async function openRegistry(dataDir: string): Promise<{ reg: Registry; problems: ProblemLog }> {
  const events = new EventBus();
  const problems = new ProblemLog(events, () => new Date());
  // No built-ins: this is about the user's tool files.
  const reg = new Registry({ dataDir, resourcesDir: path.join(dataDir, '..', 'no-resources'), events, problems, watch: false });
  await reg.open();
  return { reg, problems };
}

/** Opens with reads of tool files counted. */
async function openCounting(dataDir: string) {
  const reads: string[] = [];
  const real = fsp.readFile.bind(fsp);
  vi.spyOn(fsp, 'readFile').mockImplementation(((file: string, ...rest: unknown[]) => {
    if (String(file).includes(`${path.sep}tools${path.sep}`)) reads.push(String(file));
    return (real as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
  }) as typeof fsp.readFile);
  const opened = await openRegistry(dataDir);
  vi.restoreAllMocks();
  return { ...opened, reads };
}

async function age(dataDir: string): Promise<void> {
  const past = new Date(Date.now() - 3600_000);
  for (const b of await fsp.readdir(path.join(dataDir, 'bundles'))) {
    const dir = path.join(dataDir, 'bundles', b, 'tools');
    for (const f of await fsp.readdir(dir)) await fsp.utimes(path.join(dir, f), past, past);
  }
}

const slugsOf = (reg: Registry) => reg.store.allTools().map((t) => `${t.slug}@${t.version}:${t.displayName}`).sort();
const found = (reg: Registry, q: string) => reg.search({ q, includeDisabled: true }).items.map((h) => h.tool.slug);

/** A data folder with three tools written through the API, aged, and opened once so the index knows every file. */
async function indexedFolder() {
  const dataDir = path.join(await tempDir(), 'data');
  const { reg } = await openRegistry(dataDir);
  const bundleId = uuidv7();
  await reg.store.putBundle(bundleId, { slug: 'b', displayName: 'B', description: '', isEnabled: true });
  await reg.store.putTool(bundleId, 'echo', '1', body('Echo A', ['words']));
  await reg.store.putTool(bundleId, 'fetch', '1', body('Fetch'));
  await reg.store.putTool(bundleId, 'other', '1', body('Other'));
  await reg.close();
  await age(dataDir);
  const first = await openCounting(dataDir);
  expect(first.reads).toHaveLength(3); // written moments ago: no fingerprint was trusted yet
  await first.reg.close();
  const file = (slug: string, version = '1') => path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName(slug, version));
  const indexFile = path.join(dataDir, 'index', 'tools.sqlite');
  return { dataDir, bundleId, file, indexFile };
}

/** What a cold open (no index) loads. */
async function coldTools(dataDir: string): Promise<string[]> {
  await fsp.rm(path.join(dataDir, 'index'), { recursive: true, force: true });
  const { reg } = await openRegistry(dataDir);
  const tools = slugsOf(reg);
  await reg.close();
  return tools;
}

describe('opening a data folder with its index present', () => {
  it('reads no tool file and loads what a cold open loads', async () => {
    const f = await indexedFolder();
    const warm = await openCounting(f.dataDir);
    expect(warm.reads).toEqual([]);
    const tools = slugsOf(warm.reg);
    const views = warm.reg.store.allTools();
    expect(found(warm.reg, 'echo')).toEqual(['echo']);
    expect(found(warm.reg, 'words')).toEqual(['echo']);
    await warm.reg.close();
    expect(tools).toEqual(['echo@1:Echo A', 'fetch@1:Fetch', 'other@1:Other']);

    await fsp.rm(path.join(f.dataDir, 'index'), { recursive: true });
    const cold = await openCounting(f.dataDir);
    expect(cold.reads).toHaveLength(3);
    expect(cold.reg.store.allTools()).toEqual(views);
    await cold.reg.close();
  });

  it('notices in-place edits, deletions, new and corrupt files, even with a stale index', async () => {
    const f = await indexedFolder();
    const staleIndex = await fsp.readFile(f.indexFile);
    // Meanwhile: 'other' deleted and put again (a new id in the same file), through the API.
    const { reg: writer } = await openRegistry(f.dataDir);
    await writer.store.deleteTool(f.bundleId, 'other', '1');
    const recreated = await writer.store.putTool(f.bundleId, 'other', '1', body('Other again'));
    await writer.close();
    // And by hand: an in-place edit of the same size, a new file, a corrupt file.
    const echo = await fsp.readFile(f.file('echo'), 'utf8');
    const h = await fsp.open(f.file('echo'), 'r+');
    await h.write('Echo B', Buffer.byteLength(echo.slice(0, echo.indexOf('Echo A'))), 'utf8');
    await h.close();
    const added = { ...JSON.parse(echo), id: uuidv7(), slug: 'added', displayName: 'Added' };
    await fsp.writeFile(f.file('added'), JSON.stringify(added, null, 2));
    await fsp.writeFile(f.file('fetch'), '{"id": ');
    // The index is put back as it was before all this.
    await fsp.rm(path.join(f.dataDir, 'index'), { recursive: true });
    await fsp.mkdir(path.join(f.dataDir, 'index'));
    await fsp.writeFile(f.indexFile, staleIndex);

    const { reg, problems, reads } = await openCounting(f.dataDir);
    // (A bad file makes the folder be read again under its lock: the uncached files twice.)
    expect([...new Set(reads)].sort()).toEqual([f.file('added'), f.file('echo'), f.file('fetch'), f.file('other')].sort());
    expect(slugsOf(reg)).toEqual(['added@1:Added', 'echo@1:Echo B', 'other@1:Other again']);
    expect(reg.store.getTool(f.bundleId, 'other', '1').id).toBe(recreated.id);
    expect(problems.list()).toMatchObject([{ kind: 'corrupt-file', path: f.file('fetch') }]);
    expect(found(reg, 'fetch')).toEqual([]);
    expect(found(reg, 'added')).toEqual(['added']);
    expect(found(reg, 'again')).toEqual(['other']);
    await reg.close();
    expect(await coldTools(f.dataDir)).toEqual(['added@1:Added', 'echo@1:Echo B', 'other@1:Other again']);
  });

  it('reads the files again when the cached docs are damaged, and repairs them', async () => {
    const f = await indexedFolder();
    const db = new Database(f.indexFile);
    db.exec(`UPDATE tool_docs SET doc = '{"broken'`);
    db.close();
    const a = await openCounting(f.dataDir);
    expect(a.reads).toHaveLength(3);
    expect(slugsOf(a.reg)).toEqual(['echo@1:Echo A', 'fetch@1:Fetch', 'other@1:Other']);
    expect(a.problems.list()).toEqual([]);
    await a.reg.close();
    const b = await openCounting(f.dataDir);
    expect(b.reads).toEqual([]);
    await b.reg.close();
  });

  it('rebuilds from the files when the index holds docs of another format', async () => {
    const f = await indexedFolder();
    const db = new Database(f.indexFile);
    db.exec(`UPDATE meta SET value = 'tool-doc-0-old' WHERE key = 'docFormat'`);
    expect(db.prepare(`SELECT changes()`).pluck().get()).toBe(1);
    db.close();
    const a = await openCounting(f.dataDir);
    expect(a.reads).toHaveLength(3);
    expect(found(a.reg, 'echo')).toEqual(['echo']);
    await a.reg.close();
    const b = await openCounting(f.dataDir);
    expect(b.reads).toEqual([]);
    await b.reg.close();
  });

  it('keeps the fingerprints through a bundle toggle, and drops a rewritten tool\'s until it settles', async () => {
    const f = await indexedFolder();
    const { reg } = await openRegistry(f.dataDir);
    await reg.store.patchTool(f.bundleId, 'echo', '1', { isEnabled: false });
    await reg.store.patchBundle(f.bundleId, { isEnabled: false });
    expect(reg.search({ q: 'fetch' }).items).toEqual([]);
    await reg.close();
    const next = await openCounting(f.dataDir);
    expect(next.reads).toEqual([f.file('echo')]); // rewritten just now
    expect(found(next.reg, 'fetch')).toEqual(['fetch']);
    expect(next.reg.search({ q: 'fetch' }).items).toEqual([]);
    await next.reg.close();
  });
});
