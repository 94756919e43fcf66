/**
 * Hosts on a data folder with things wrong in it: they start, serve the rest, keep picking
 * up each other's writes, and say what is wrong. Real cores, real files, a real second
 * process holding the search index.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import type { ToolPutBody } from '../../../shared/model/tool';
import { localToolBody } from '../bundles/testing/fixtures';

const tempDir = useTempDirs();
const bundle = { slug: 'demo', displayName: 'Demo', isEnabled: true, description: '' };
const toolBody = (over: Record<string, unknown> = {}) => localToolBody(over) as ToolPutBody;

async function core(dataDir: string, watch: boolean): Promise<Core> {
  return createCore({ dataDir, resourcesDir: RESOURCES_DIR, host: 'headless', watch });
}

async function ok<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('a data folder with unreadable entries', () => {
  it('a watching host starts, reports them, and keeps picking up another host\'s writes', async () => {
    const dir = await tempDir();
    const setup = await core(dir, false);
    const bundleId = uuidv7();
    await ok(setup.call('bundles.put', { bundleId, body: bundle }));
    await ok(setup.call('tools.put', { bundleId, slug: 'first', version: '1', body: toolBody() }));
    await setup.close();
    await fs.mkdir(path.join(dir, 'bundles', bundleId, 'tools', 'x.json'));
    await fs.mkdir(path.join(dir, 'bundles', uuidv7(), 'bundle.json'), { recursive: true });

    const a = await core(dir, true);
    const b = await core(dir, false);
    try {
      expect((await ok(a.call('app.problems', {}))).map((p) => [p.kind, path.basename(p.path)]).sort()).toEqual([
        ['io-error', 'bundle.json'],
        ['io-error', 'x.json'],
      ]);
      await ok(b.call('tools.put', { bundleId, slug: 'second', version: '1', body: toolBody() }));
      await expect
        .poll(async () => (await a.call('tools.get', { bundleId, slug: 'second', version: '1' })).ok, { timeout: 10_000, interval: 50 })
        .toBe(true);
      await ok(b.call('tools.put', { bundleId, slug: 'third', version: '1', body: toolBody() }));
      await expect
        .poll(async () => (await a.call('tools.get', { bundleId, slug: 'third', version: '1' })).ok, { timeout: 10_000, interval: 50 })
        .toBe(true);
      // Reported once, not on every reload.
      expect((await ok(a.call('app.problems', {}))).length).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

/** A second process with the index open, writing to it (so its WAL holds the schema page and more), until killed. */
async function holdIndex(dbFile: string): Promise<{ stop: () => void }> {
  const script = `
    const Database = require(${JSON.stringify(path.resolve('node_modules/better-sqlite3'))});
    const db = new Database(process.argv[1]);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0'); // the WAL keeps every change, page 1 (the schema) included
    db.exec('CREATE TABLE IF NOT EXISTS holder_pad (x)');
    const put = db.prepare('INSERT INTO holder_pad (x) VALUES (?)');
    for (let i = 0; i < 50; i++) put.run(String(i));
    process.stdout.write('ready\\n');
    setInterval(() => { try { put.run(String(Date.now())); } catch {} }, 20);
  `;
  const child = spawn(process.execPath, ['-e', script, dbFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`the index holder exited (${code})`)));
  });
  return { stop: () => child.kill() };
}

describe('a half-deleted search index', () => {
  it('a second host starts on it with a private index, says so, and searches', async () => {
    const dir = await tempDir();
    const setup = await core(dir, false);
    const bundleId = uuidv7();
    await ok(setup.call('bundles.put', { bundleId, body: bundle }));
    await ok(setup.call('tools.put', { bundleId, slug: 'grab-page', version: '1', body: toolBody({ displayName: 'Grab page' }) }));
    await setup.close();

    const dbFile = path.join(dir, 'index', 'tools.sqlite');
    const holder = await holdIndex(dbFile);
    try {
      await fs.unlink(dbFile); // its -wal and -shm stay, in use by the holder
      const second = await core(dir, false);
      try {
        const problems = await ok(second.call('app.problems', {}));
        expect(problems.map((p) => [p.kind, path.relative(dir, p.path)])).toEqual([['io-error', path.join('index', 'tools.sqlite')]]);
        expect(problems[0]!.message).toMatch(/^the search index cannot be used \(.*disk I\/O error.*\); this process searches a private index rebuilt from the tool files/);
        const found = await ok(second.call('tools.search', { q: 'grab', includeDisabled: true }));
        expect(found.items.map((h) => h.tool.slug)).toEqual(['grab-page']);
        // The holder's files were left alone.
        expect(await fs.readdir(path.dirname(dbFile))).toEqual(expect.arrayContaining(['tools.sqlite-shm', 'tools.sqlite-wal']));
      } finally {
        await second.close();
      }
    } finally {
      holder.stop();
    }
  });

  it('a running host whose index file fails under it answers searches from a private index and says so', async () => {
    const dir = await tempDir();
    const host = await core(dir, false);
    try {
      const bundleId = uuidv7();
      await ok(host.call('bundles.put', { bundleId, body: bundle }));
      for (let i = 0; i < 20; i++) await ok(host.call('tools.put', { bundleId, slug: `page-${i}`, version: '1', body: toolBody() }));
      // Another connection moves every page into the file, changes one, and the file is cut short under the host.
      const dbFile = path.join(dir, 'index', 'tools.sqlite');
      const other = new Database(dbFile);
      other.pragma('wal_checkpoint(TRUNCATE)');
      other.pragma('wal_autocheckpoint = 0');
      other.prepare("INSERT INTO meta (key, value) VALUES ('other', '1') ON CONFLICT (key) DO UPDATE SET value = excluded.value").run();
      await fs.truncate(dbFile, 4096);
      try {
        const found = await ok(host.call('tools.search', { q: 'page-1', includeDisabled: true }));
        expect(found.items.map((h) => h.tool.slug)).toContain('page-1');
        const problems = await ok(host.call('app.problems', {}));
        expect(problems.map((p) => [p.kind, path.relative(dir, p.path)])).toEqual([['io-error', path.join('index', 'tools.sqlite')]]);
        expect(problems[0]!.message).toMatch(/^the search index cannot be used \(.+\); this process searches a private index rebuilt from the tool files/);
        // Writes keep the private index in step.
        await ok(host.call('tools.put', { bundleId, slug: 'later', version: '1', body: toolBody() }));
        expect((await ok(host.call('tools.search', { q: 'later', includeDisabled: true }))).items.map((h) => h.tool.slug)).toEqual(['later']);
      } finally {
        other.close();
      }
    } finally {
      await host.close();
    }
  });
});
