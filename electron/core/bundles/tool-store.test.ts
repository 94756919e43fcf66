import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isToolUsable, type RegistryChange } from '../../../shared/model/tool';
import { useTempDirs } from '../testing/temp-dir';
import { toolFileName } from './layout';
import { bundleBody, filesUnder, httpToolBody, localToolBody, newId, openStore, rejection, storeWithBundle, TestClock } from './testing/fixtures';

const tempDir = useTempDirs();

const withBundle = async (opts: Parameters<typeof openStore>[1] = {}) => storeWithBundle(await tempDir(), opts);

describe('bundles', () => {
  it('creates a bundle as readable JSON in its own folder', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    const onDisk = JSON.parse(await fs.readFile(path.join(dataDir, 'bundles', bundleId, 'bundle.json'), 'utf8'));
    expect(onDisk).toEqual({
      id: bundleId,
      slug: 'demo',
      displayName: 'Demo',
      description: 'A bundle for tests.',
      isEnabled: true,
      isBuiltIn: false,
      createdAt: '2026-03-01T10:00:00.000Z',
      modifiedAt: '2026-03-01T10:00:00.000Z',
    });
    expect(store.getBundle(bundleId)).toEqual(onDisk);
    expect((await fs.stat(path.join(dataDir, 'bundles', bundleId, 'tools'))).isDirectory()).toBe(true);
  });

  it('replaces a bundle keeping createdAt; modifiedAt moves only on a structural change', async () => {
    const clock = new TestClock();
    const { store, bundleId } = await withBundle({ now: clock.now });
    clock.advance(60_000);
    const toggled = await store.putBundle(bundleId, bundleBody({ isEnabled: false }));
    expect(toggled.createdAt).toBe('2026-03-01T10:00:00.000Z');
    expect(toggled.modifiedAt).toBe('2026-03-01T10:00:00.000Z');
    clock.advance(60_000);
    const renamed = await store.putBundle(bundleId, bundleBody({ displayName: 'Demo 2' }));
    expect(renamed).toMatchObject({ createdAt: '2026-03-01T10:00:00.000Z', modifiedAt: '2026-03-01T10:02:00.000Z', displayName: 'Demo 2' });
  });

  it('needs a lowercase UUIDv7 id and a valid body', async () => {
    const { store } = await withBundle();
    for (const bad of ['not-an-id', '0190C2A4-7B1E-7C3D-9A4F-2B6E8D0C1F35', '0190c2a4-7b1e-4c3d-9a4f-2b6e8d0c1f35', '../escape']) {
      expect(await rejection(() => store.putBundle(bad, bundleBody()))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'bundleId', rule: 'uuid-v7' } });
    }
    const badSlug = await rejection(() => store.putBundle(newId(), bundleBody({ slug: 'read_file' })));
    expect(badSlug.message).toMatch(/^slug may contain letters, digits and '-' only: got 'read_file'/);
    expect(badSlug.details).toMatchObject({ field: 'slug', rule: 'charset' });
    const unknown = await rejection(() => store.putBundle(newId(), bundleBody({ color: 'red' })));
    expect(unknown).toMatchObject({ code: 'VALIDATION_FAILED', message: "the body has unknown field 'color'", details: { rule: 'unknown-field' } });
  });

  it('PATCH toggles isEnabled only and leaves modifiedAt alone', async () => {
    const clock = new TestClock();
    const { store, bundleId } = await withBundle({ now: clock.now });
    clock.advance(3_600_000);
    const off = await store.patchBundle(bundleId, { isEnabled: false });
    expect(off).toMatchObject({ isEnabled: false, modifiedAt: '2026-03-01T10:00:00.000Z' });
    expect(await rejection(() => store.patchBundle(bundleId, { isEnabled: true, slug: 'x' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await rejection(store.patchBundle(newId(), { isEnabled: true }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('soft-deletes: hidden from lists unless asked, restored by PUT', async () => {
    const clock = new TestClock();
    const { store, bundleId } = await withBundle({ now: clock.now });
    const deleted = await store.deleteBundle(bundleId);
    expect(deleted.softDeletedAt).toBe('2026-03-01T10:00:00.000Z');
    expect(store.listBundles().items).toEqual([]);
    expect(store.listBundles({ includeDeleted: true }).items.map((b) => b.id)).toEqual([bundleId]);
    expect(store.getBundle(bundleId).softDeletedAt).toBeDefined();
    expect(await rejection(store.patchBundle(bundleId, { isEnabled: false }))).toMatchObject({ code: 'CONFLICT', details: { rule: 'bundle-deleted' } });
    const restored = await store.putBundle(bundleId, bundleBody());
    expect(restored.softDeletedAt).toBeUndefined();
    expect(restored.createdAt).toBe(deleted.createdAt);
  });

  it('lists with filters and opaque page tokens', async () => {
    const { store, bundleId } = await withBundle();
    const ids = [bundleId];
    for (let k = 0; k < 4; k++) ids.push((await store.putBundle(newId(), bundleBody({ slug: `b${k}`, isEnabled: k !== 2 }))).id);
    const all = store.listBundles({ includeDisabled: true, pageSize: 2 });
    expect(all.items.map((b) => b.id)).toEqual(ids.slice(0, 2));
    const second = store.listBundles({ includeDisabled: true, pageSize: 2, pageToken: all.nextPageToken });
    const third = store.listBundles({ includeDisabled: true, pageSize: 2, pageToken: second.nextPageToken });
    expect([...second.items, ...third.items].map((b) => b.id)).toEqual(ids.slice(2));
    expect(third.nextPageToken).toBeUndefined();
    expect(store.listBundles().items).toHaveLength(4);
    expect(store.listBundles({ bundleIds: [ids[1]!, ids[3]!] }).items.map((b) => b.id)).toEqual([ids[1]]);
    expect(await rejection(() => store.listBundles({ pageToken: 'not a token!' }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'pageToken' } });
    expect(await rejection(() => store.listBundles({ pageToken: Buffer.from('{"v":1}').toString('base64url') }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    // A token belongs to its filter.
    expect(await rejection(() => store.listBundles({ pageSize: 2, pageToken: all.nextPageToken }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await rejection(() => store.listBundles({ pageSize: 0 }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'query.pageSize' } });
  });
});

describe('tools', () => {
  it('creates a tool file named from a hash of slug and version, never the raw slug', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    clock.advance(1000);
    const tool = await store.putTool(bundleId, 'echo', '1.0', localToolBody());
    expect(tool).toMatchObject({ bundleId, slug: 'echo', version: '1.0', isBuiltIn: false, createdAt: '2026-03-01T10:00:01.000Z', modifiedAt: '2026-03-01T10:00:01.000Z' });
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1.0'));
    expect(path.basename(file)).toMatch(/^echo@1\.0\.[0-9a-f]{24}\.json$/);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(tool);
    expect(store.getTool(bundleId, 'echo', '1.0')).toEqual(tool);
  });

  it('refuses a second PUT of the same <slug, version> and leaves the first unchanged', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1'));
    const before = await fs.readFile(file, 'utf8');
    const e = await rejection(store.putTool(bundleId, 'echo', '1', localToolBody({ displayName: 'Other' })));
    expect(e).toMatchObject({ code: 'CONFLICT', details: { rule: 'exists' } });
    expect(e.message).toContain("tool 'echo' version '1' already exists");
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    expect(await filesUnder(path.join(dataDir, 'bundles', bundleId, 'tools'))).toHaveLength(1);
  });

  it('treats NFC-equivalent slugs as one tool and differently-cased slugs as two', async () => {
    const { store, bundleId } = await withBundle();
    await store.putTool(bundleId, 'caf\u00e9', '1', localToolBody());
    expect(await rejection(store.putTool(bundleId, 'cafe\u0301', '1', localToolBody()))).toMatchObject({ code: 'CONFLICT' });
    expect(store.getTool(bundleId, 'cafe\u0301', '1').slug).toBe('caf\u00e9');
    await store.putTool(bundleId, 'Read', '1', localToolBody());
    await store.putTool(bundleId, 'read', '1', localToolBody());
    expect(toolFileName('Read', '1').toLowerCase()).not.toBe(toolFileName('read', '1').toLowerCase());
    expect(store.listTools().items.map((t) => t.slug).sort()).toEqual(['Read', 'café', 'read']);
  });

  it('lets the same <slug, version> repeat across bundles', async () => {
    const { store, bundleId } = await withBundle();
    const other = newId();
    await store.putBundle(other, bundleBody({ slug: 'other' }));
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    await store.putTool(other, 'echo', '1', localToolBody());
    expect(store.listTools().items).toHaveLength(2);
  });

  it('validates the address, the body and the schemas with messages that name the field', async () => {
    const { store, bundleId } = await withBundle();
    expect((await rejection(() => store.putTool(bundleId, 'read_file', '1', localToolBody()))).details).toEqual({ field: 'slug', rule: 'charset' });
    expect((await rejection(() => store.putTool(bundleId, 'echo', '1 0', localToolBody()))).details).toEqual({ field: 'version', rule: 'charset' });
    const notObject = await rejection(() => store.putTool(bundleId, 'echo', '1', localToolBody({ argSchema: { type: 'string' } })));
    expect(notObject.details).toMatchObject({ field: 'argSchema', rule: 'root-type' });
    const invalid = await rejection(() => store.putTool(bundleId, 'echo', '1', localToolBody({ outputSchema: { type: 'strng' } })));
    expect(invalid.message).toMatch(/^outputSchema is not a valid JSON Schema 2020-12: outputSchema\/type must be equal to one of the allowed values/);
    const cycle = await rejection(() => store.putTool(bundleId, 'echo', '1', localToolBody({ argSchema: { type: 'object', $ref: '#' } })));
    expect(cycle.details).toMatchObject({ field: 'argSchema', rule: 'ref-cycle' });
    const ftp = await rejection(() => store.putTool(bundleId, 'echo', '1', httpToolBody({ http: { method: 'GET', urlTemplate: 'ftp://x/y' } })));
    expect(ftp).toMatchObject({ message: 'urlTemplate must start with http:// or https://', details: { field: 'http.urlTemplate', rule: 'url-scheme' } });
    const mismatch = await rejection(() => store.putTool(bundleId, 'echo', '1', localToolBody({ local: undefined })));
    expect(mismatch.details).toMatchObject({ field: 'local', rule: 'required' });
    expect(store.listTools({ includeDisabled: true }).items).toEqual([]);
  });

  it('refuses hostile schemas through the API by rule, before taking the lock or writing anything', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    const locksTaken = store.lockActivity().acquired;
    let deep: Record<string, unknown> = { type: 'object' };
    for (let k = 0; k < 10_000; k++) deep = { type: 'object', properties: { a: deep } };
    const hostile: [Record<string, unknown>, string][] = [
      [{ argSchema: { type: 'object', description: 'x'.repeat(1024 * 1024) } }, 'max-size'],
      [{ argSchema: deep }, 'max-depth'],
      [{ outputSchema: { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' } }, 'ref-cycle'],
      [{ http: { method: 'GET', urlTemplate: 'https://x/', body: deep }, type: 'http', local: undefined }, 'max-depth'],
    ];
    for (const [over, rule] of hostile) {
      const e = await rejection(() => store.putTool(bundleId, 'hostile', '1', localToolBody(over)));
      expect(e).toMatchObject({ code: 'VALIDATION_FAILED', details: { rule } });
    }
    // Refused by the bounded checks (schema-check.ts), before any disk work.
    expect(store.lockActivity().acquired).toBe(locksTaken);
    expect(await filesUnder(path.join(dataDir, 'bundles', bundleId, 'tools'))).toEqual([]);
    expect(await rejection(store.putTool(newId(), 'echo', '1', localToolBody()))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stores an http tool with its extra fields', async () => {
    const { store, bundleId } = await withBundle();
    const t = await store.putTool(bundleId, 'items', '2024.1', httpToolBody());
    // Stored as given, with the spec's defaults made explicit.
    expect(t.http).toMatchObject({ method: 'GET', urlTemplate: 'https://api.example.com/items/${id}', headers: { Accept: 'application/json' }, responseMode: 'json' });
    expect(t.local).toBeUndefined();
  });

  it('refuses PUT and PATCH inside a disabled or soft-deleted bundle, but allows DELETE', async () => {
    const { store, bundleId } = await withBundle();
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    await store.patchBundle(bundleId, { isEnabled: false });
    expect(await rejection(store.putTool(bundleId, 'echo', '2', localToolBody()))).toMatchObject({ code: 'CONFLICT', details: { rule: 'bundle-disabled' } });
    const patch = await rejection(store.patchTool(bundleId, 'echo', '1', { isEnabled: false }));
    expect(patch.message).toMatch(/is disabled: enable it before enabling or disabling its tools$/);
    await store.patchBundle(bundleId, { isEnabled: true });
    await store.deleteBundle(bundleId);
    expect(await rejection(store.putTool(bundleId, 'echo', '2', localToolBody()))).toMatchObject({ code: 'CONFLICT', details: { rule: 'bundle-deleted' } });
    await store.deleteTool(bundleId, 'echo', '1');
    expect(await rejection(() => store.getTool(bundleId, 'echo', '1'))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('PATCH changes isEnabled only; modifiedAt and everything else stay', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    clock.advance(86_400_000);
    const off = await store.patchTool(bundleId, 'echo', '1', { isEnabled: false });
    expect(off).toEqual({ ...t, isEnabled: false });
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1'));
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ ...t, isEnabled: false });
    expect(await rejection(() => store.patchTool(bundleId, 'echo', '1', { displayName: 'x' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await rejection(store.patchTool(bundleId, 'nope', '1', { isEnabled: true }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('hard-deletes a tool file', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    await store.deleteTool(bundleId, 'echo', '1');
    expect(await filesUnder(path.join(dataDir, 'bundles', bundleId, 'tools'))).toEqual([]);
    expect(await rejection(store.deleteTool(bundleId, 'echo', '1'))).toMatchObject({ code: 'NOT_FOUND' });
    // The version can be created again after a delete.
    await store.putTool(bundleId, 'echo', '1', localToolBody());
  });

  it('lists by tags (all must match), bundle, and effective enabled state', async () => {
    const { store, bundleId } = await withBundle();
    const other = newId();
    await store.putBundle(other, bundleBody({ slug: 'other' }));
    await store.putTool(bundleId, 'a', '1', localToolBody({ tags: ['x', 'y'] }));
    await store.putTool(bundleId, 'b', '1', localToolBody({ tags: ['x'], isEnabled: false }));
    await store.putTool(other, 'c', '1', localToolBody({ tags: ['y'] }));
    const slugs = (q: Parameters<typeof store.listTools>[0]) => store.listTools(q).items.map((t) => t.slug).sort();
    expect(slugs({})).toEqual(['a', 'c']);
    expect(slugs({ includeDisabled: true })).toEqual(['a', 'b', 'c']);
    expect(slugs({ tags: ['x'], includeDisabled: true })).toEqual(['a', 'b']);
    expect(slugs({ tags: ['x', 'y'] })).toEqual(['a']);
    expect(slugs({ bundleIds: [other] })).toEqual(['c']);
    await store.patchBundle(other, { isEnabled: false });
    expect(slugs({})).toEqual(['a']);
    expect(slugs({ includeDisabled: true })).toEqual(['a', 'b', 'c']);
    await store.patchBundle(other, { isEnabled: true });
    await store.deleteBundle(other);
    expect(slugs({ includeDisabled: true })).toEqual(['a', 'b']);
    expect(slugs({ includeDisabled: true, includeDeleted: true })).toEqual(['a', 'b', 'c']);
    const c = store.allTools().find((t) => t.slug === 'c')!;
    expect(store.isUsable(c.id)).toBe(false);
    expect(isToolUsable(c, store.getBundle(other))).toBe(false);
  });

  it('pages tools with a cursor that survives inserts between pages', async () => {
    const { store, bundleId } = await withBundle();
    for (let k = 0; k < 5; k++) await store.putTool(bundleId, `t${k}`, '1', localToolBody());
    const first = store.listTools({ pageSize: 2 });
    await store.putTool(bundleId, 't5', '1', localToolBody());
    const rest: string[] = [];
    let token = first.nextPageToken;
    while (token) {
      const page = store.listTools({ pageSize: 2, pageToken: token });
      rest.push(...page.items.map((t) => t.slug));
      token = page.nextPageToken;
    }
    expect([...first.items.map((t) => t.slug), ...rest]).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('shows a local tool whose function is not registered as disabled, without touching its file', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const known = new Set(['test.echo']);
    const { store, bundleId } = await (async () => {
      const f = await openStore(dataDir, { isLocalFunctionKnown: (id) => known.has(id) });
      const bundleId = newId();
      await f.store.putBundle(bundleId, bundleBody());
      return { ...f, bundleId };
    })();
    const t = await store.putTool(bundleId, 'gone', '1', localToolBody({ local: { functionId: 'test.gone' } }));
    expect(t).toMatchObject({ isEnabled: false, unavailableReason: "local function 'test.gone' is not registered" });
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('gone', '1'));
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ isEnabled: true });
    expect(store.listTools().items).toEqual([]);
    expect(store.isUsable(t.id)).toBe(false);
    known.add('test.gone');
    expect(store.getTool(bundleId, 'gone', '1')).toMatchObject({ isEnabled: true });
    expect(store.getTool(bundleId, 'gone', '1').unavailableReason).toBeUndefined();
  });
});

describe('change events and reload', () => {
  it('tells listeners what changed', async () => {
    const { store, bundleId } = await withBundle();
    const seen: RegistryChange[] = [];
    store.onChange((c) => seen.push(c));
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    await store.patchTool(bundleId, 'echo', '1', { isEnabled: false });
    await store.deleteTool(bundleId, 'echo', '1');
    await store.patchBundle(bundleId, { isEnabled: false });
    await store.deleteBundle(bundleId);
    expect(seen).toEqual([
      { kind: 'tool', op: 'put', id: t.id, bundleId },
      { kind: 'tool', op: 'patch', id: t.id, bundleId },
      { kind: 'tool', op: 'delete', id: t.id, bundleId },
      { kind: 'bundle', op: 'patch', id: bundleId },
      { kind: 'bundle', op: 'delete', id: bundleId },
    ]);
  });

  it('reload() picks up what another process wrote and reports it', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    const kept = await store.putTool(bundleId, 'kept', '1', localToolBody());
    const removed = await store.putTool(bundleId, 'removed', '1', localToolBody());
    const other = await openStore(dataDir);
    const added = await other.store.putTool(bundleId, 'added', '1', localToolBody());
    await other.store.patchTool(bundleId, 'kept', '1', { isEnabled: false });
    await other.store.deleteTool(bundleId, 'removed', '1');
    const newBundle = newId();
    await other.store.putBundle(newBundle, bundleBody({ slug: 'new' }));
    await other.store.close();

    const seen: RegistryChange[] = [];
    store.onChange((c) => seen.push(c));
    const changes = await store.reload();
    expect(changes).toEqual(seen);
    expect(changes).toEqual(
      expect.arrayContaining([
        { kind: 'bundle', op: 'put', id: newBundle },
        { kind: 'tool', op: 'put', id: added.id, bundleId },
        { kind: 'tool', op: 'patch', id: kept.id, bundleId },
        { kind: 'tool', op: 'delete', id: removed.id, bundleId },
      ]),
    );
    expect(changes).toHaveLength(4);
    expect(await store.reload()).toEqual([]);
  });

  it('a PUT conflicts with a tool another process created even before reload()', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    const other = await openStore(dataDir);
    await other.store.putTool(bundleId, 'echo', '1', localToolBody());
    expect(await rejection(store.putTool(bundleId, 'echo', '1', localToolBody()))).toMatchObject({ code: 'CONFLICT' });
    // A bundle disabled by another process refuses writes here too: the disk is the truth.
    await other.store.patchBundle(bundleId, { isEnabled: false });
    expect(await rejection(store.putTool(bundleId, 'echo', '2', localToolBody()))).toMatchObject({ code: 'CONFLICT', details: { rule: 'bundle-disabled' } });
    await other.store.close();
  });
});

describe('lifecycle', () => {
  it('refuses writes before open and after close', async () => {
    const { store, bundleId } = await withBundle();
    await store.close();
    expect(await rejection(() => store.putBundle(bundleId, bundleBody()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(await rejection(() => store.recordUsage(bundleId))).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('starts on an empty data folder and keeps the layout readable', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    await store.close();
    const files = await filesUnder(dataDir);
    expect(files).toEqual([`bundles/${bundleId}/bundle.json`, `bundles/${bundleId}/tools/${toolFileName('echo', '1')}`]);
  });
});
