import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { RegistryChange } from '../../../shared/model/tool';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();

const tool = (displayName: string, tags: string[] = []) => ({
  displayName,
  description: `${displayName} does a thing`,
  tags,
  type: 'http' as const,
  argSchema: { type: 'object', properties: { q: { type: 'string' } } },
  outputSchema: { type: 'object' },
  http: { method: 'GET' as const, urlTemplate: 'https://api.example.com/x?q=${q}' },
  isEnabled: true,
});

async function core(dataDir: string, watch = false): Promise<Core> {
  return createCore({ dataDir, resourcesDir: RESOURCES_DIR, host: 'headless', watch });
}

async function search(c: Core, q: string, includeDisabled = false) {
  const r = await c.call('tools.search', { q, includeDisabled });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.items.map((h) => `${h.tool.slug}:${h.tier}`);
}

describe('the registry in the core', () => {
  it('keeps the search index in step with every write, toggle and delete', async () => {
    const c = await core(await tempDir());
    const bundleId = uuidv7();
    expect(await c.call('bundles.put', { bundleId, body: { slug: 'web', displayName: 'Web', description: '', isEnabled: true } })).toMatchObject({ ok: true });
    await c.call('tools.put', { bundleId, slug: 'grab-page', version: '1', body: tool('Grab page', ['web']) });
    await c.call('tools.put', { bundleId, slug: 'page-title', version: '1', body: tool('Page title') });
    expect(await search(c, 'grab')).toEqual(['grab-page:prefix']);
    expect(await search(c, 'page')).toEqual(['page-title:prefix', 'grab-page:word']);
    expect(await search(c, 'garb')).toEqual(['grab-page:fuzzy']);

    await c.call('bundles.patch', { bundleId, isEnabled: false });
    expect(await search(c, 'grab')).toEqual([]);
    expect(await search(c, 'grab', true)).toEqual(['grab-page:prefix']);
    await c.call('bundles.patch', { bundleId, isEnabled: true });
    await c.call('tools.delete', { bundleId, slug: 'grab-page', version: '1' });
    expect(await search(c, 'grab', true)).toEqual([]);
    await c.close();
  });

  it('finds built-in tools, e.g. +readf', async () => {
    const c = await core(await tempDir());
    expect((await search(c, '+readf'))[0]).toBe('readfile:prefix');
    await c.close();
  });

  it('finds tools for a sentence (tools.find): names that start with it first, then the ranking, following every change', async () => {
    const c = await core(await tempDir());
    const find = async (q: string) => {
      const r = await c.call('tools.find', { q, limit: 20 });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.items.filter((h) => !h.tool.isBuiltIn).map((h) => `${h.tool.slug}:${h.match}:${h.words.join(',')}`);
    };
    const bundleId = uuidv7();
    await c.call('bundles.put', { bundleId, body: { slug: 'shop', displayName: 'Shop', description: '', isEnabled: true } });
    const put = (slug: string, displayName: string, description: string, version = '1') =>
      c.call('tools.put', { bundleId, slug, version, body: { ...tool(displayName), description } });
    await put('refund-order', 'Refund order', 'Gives a customer their money back for an order.');
    await put('ship-parcel', 'Ship parcel', 'Sends a parcel to an address with the courier.');
    expect(await find('give the customer their money back')).toEqual(['refund-order:words:give,customer,money,back']);
    expect(await find('Ship parcel')).toEqual(['ship-parcel:name:']);

    await c.call('tools.patch', { bundleId, slug: 'refund-order', version: '1', isEnabled: false });
    expect(await find('give the customer their money back')).toEqual([]);
    await c.call('tools.patch', { bundleId, slug: 'refund-order', version: '1', isEnabled: true });
    // A version is never rewritten: the new words come with version 2, and version 1 goes.
    await put('refund-order', 'Refund order', 'Returns the payment of a cancelled purchase.', '2');
    await c.call('tools.delete', { bundleId, slug: 'refund-order', version: '1' });
    expect(await find('give the customer their money back')).toEqual([]);
    expect((await find('return the payment of a purchase'))[0]).toBe('refund-order:words:return,payment,purchase');
    await c.close();
  });

  it('rebuilds a deleted or corrupt index from the files at start', async () => {
    const dataDir = await tempDir();
    const a = await core(dataDir);
    const bundleId = uuidv7();
    await a.call('bundles.put', { bundleId, body: { slug: 'b', displayName: 'B', description: '', isEnabled: true } });
    await a.call('tools.put', { bundleId, slug: 'unique-thing', version: '1', body: tool('Unique thing') });
    await a.close();

    await fs.writeFile(path.join(dataDir, 'index', 'tools.sqlite'), 'this is not a database');
    await fs.rm(path.join(dataDir, 'index', 'tools.sqlite-wal'), { force: true });
    await fs.rm(path.join(dataDir, 'index', 'tools.sqlite-shm'), { force: true });
    const b = await core(dataDir);
    expect(await search(b, 'unique')).toEqual(['unique-thing:prefix']);
    await b.close();

    await fs.rm(path.join(dataDir, 'index'), { recursive: true });
    const c = await core(dataDir);
    expect(await search(c, 'unique')).toEqual(['unique-thing:prefix']);
    await c.close();
  });

  it('sees a write by another writer of the same data folder, and tells the windows', async () => {
    const dataDir = await tempDir();
    const watcher = await core(dataDir, true);
    const other = await core(dataDir);
    const changes: RegistryChange[] = [];
    watcher.events.on('store.changed', (c) => changes.push(c));
    const bundleId = uuidv7();
    await other.call('bundles.put', { bundleId, body: { slug: 'shared', displayName: 'Shared', description: '', isEnabled: true } });
    await other.call('tools.put', { bundleId, slug: 'from-elsewhere', version: '2', body: tool('From elsewhere') });

    await expect.poll(async () => search(watcher, 'elsewhere'), { timeout: 10_000 }).toEqual(['from-elsewhere:word']);
    expect(changes.some((c) => c.kind === 'tool' && c.op === 'put')).toBe(true);
    expect(await watcher.call('tools.get', { bundleId, slug: 'from-elsewhere', version: '2' })).toMatchObject({ ok: true, value: { displayName: 'From elsewhere' } });
    await other.close();
    await watcher.close();
  });

  it("finds another writer's new tool after the index folder was deleted under it while it ran", async () => {
    const dataDir = await tempDir();
    const watcher = await core(dataDir, true);
    expect((await search(watcher, '+readf'))[0]).toBe('readfile:prefix');
    await fs.rm(path.join(dataDir, 'index', 'tools.sqlite'));
    // Another process starts on the same folder: it makes a new index and writes a tool.
    const other = await core(dataDir);
    const bundleId = uuidv7();
    await other.call('bundles.put', { bundleId, body: { slug: 'later', displayName: 'Later', description: '', isEnabled: true } });
    await other.call('tools.put', { bundleId, slug: 'after-the-rm', version: '1', body: tool('After the rm') });
    await expect.poll(async () => (await search(watcher, 'after')).filter((h) => h.startsWith('after-the-rm')), { timeout: 10_000 }).toEqual(['after-the-rm:prefix']);
    // And it still finds what it had.
    expect((await search(watcher, '+readf'))[0]).toBe('readfile:prefix');
    await other.close();
    await watcher.close();
  });

  it('invokes a built-in tool over the contract, and logs the call', async () => {
    const c = await core(await tempDir());
    const files = '01941f29-7c00-7445-bfe3-19d44c6cadc8';
    await fs.writeFile(path.join(c.workspaceDir(), 'notes.txt'), 'one\ntwo\nthree\n');
    const r = await c.call('tools.invoke', { bundleId: files, slug: 'readfile', version: '1', args: { path: 'notes.txt' } });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(JSON.stringify(r.value.value)).toContain('two');
      expect(await c.call('invocations.get', { invocationId: r.value.invocationId })).toMatchObject({ ok: true, value: { slug: 'readfile', ok: true } });
    }
    const outside = await c.call('tools.invoke', { bundleId: files, slug: 'readfile', version: '1', args: { path: '../settings.json' } });
    expect(outside).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const missing = await c.call('tools.invoke', { bundleId: files, slug: 'nope', version: '1', args: {} });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await c.close();
  });
});
