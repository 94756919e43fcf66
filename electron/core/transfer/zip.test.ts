import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_ZIP_BYTES, type ImportReport } from '../../../shared/model/transfer';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { toolFileName } from '../bundles/layout';
import { bundleBody, filesUnder, httpToolBody, localToolBody, newId, openStore, rejection } from '../bundles/testing/fixtures';
import type { ToolStore } from '../bundles/tool-store';
import { TestCaseStore } from '../testcases/test-case-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { BUNDLE_MANIFEST, entryNameProblem, exportBundle, importBundle, MAX_ENTRY_BYTES, toolPutBody } from './zip';

const tempDir = useTempDirs();

const manifest = (over: Record<string, unknown> = {}) => ({ format: 'toolsmith-bundle', version: 1, bundle: { slug: 'imported', displayName: 'Imported', description: 'From a ZIP.', isEnabled: true }, ...over });
const json = (v: unknown) => strToU8(JSON.stringify(v));

function archive(files: Record<string, unknown>, opts: { level?: 0 | 6 } = {}): Uint8Array {
  const z: Zippable = {};
  for (const [name, v] of Object.entries(files)) z[name] = v instanceof Uint8Array ? v : json(v);
  return zipSync(z, { level: opts.level ?? 6 });
}

/** Every local and central header of `name`, as offsets. */
function headersOf(zip: Uint8Array, name: string): { local: number[]; central: number[] } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const want = strToU8(name);
  const out = { local: [] as number[], central: [] as number[] };
  const nameAt = (o: number) => zip.subarray(o, o + want.length).every((b, i) => b === want[i]);
  for (let o = 0; o + 46 < zip.length; o++) {
    const sig = view.getUint32(o, true);
    if (sig === 0x04034b50 && view.getUint16(o + 26, true) === want.length && nameAt(o + 30)) out.local.push(o);
    if (sig === 0x02014b50 && view.getUint16(o + 28, true) === want.length && nameAt(o + 46)) out.central.push(o);
  }
  return out;
}

/** Writes `value` (u16 or u32) at a field of both headers of `name`: local offset, central offset. */
function patch(zip: Uint8Array, name: string, field: { local: number; central: number; bytes: 2 | 4 }, value: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const h = headersOf(out, name);
  expect(h.local.length + h.central.length).toBe(2);
  const set = (at: number) => {
    if (field.bytes === 4) view.setUint32(at, value, true);
    else view.setUint16(at, value, true);
  };
  for (const o of h.local) set(o + field.local);
  for (const o of h.central) set(o + field.central);
  return out;
}
const UNCOMPRESSED_SIZE = { local: 22, central: 24, bytes: 4 } as const;
const FLAGS = { local: 6, central: 8, bytes: 2 } as const;
const METHOD = { local: 8, central: 10, bytes: 2 } as const;

async function emptyStore(fs?: StoreFs) {
  const dataDir = path.join(await tempDir(), 'data');
  const opened = await openStore(dataDir, fs ? { fs } : {});
  return { ...opened, cases: new TestCaseStore({ dataDir, fs }) };
}

async function expectRefused(store: ToolStore, dataDir: string, zip: Uint8Array, entry: string, message: RegExp): Promise<ImportReport> {
  const before = await filesUnder(dataDir);
  const report = await importBundle(store, zip, { newId, testCases: new TestCaseStore({ dataDir }) });
  expect(report.nothingImported).toBe(true);
  expect(report.imported).toEqual([]);
  expect(report.bundleId).toBeUndefined();
  expect(report.invalid).toContainEqual({ entry, message: expect.stringMatching(message) });
  expect(await filesUnder(dataDir)).toEqual(before);
  expect(store.listBundles({ includeDisabled: true, includeDeleted: true }).items).toEqual([]);
  return report;
}

const sequenceBody = (bundleId: string) => ({
  ...localToolBody({ displayName: 'Seq', local: undefined }),
  type: 'sequence',
  sequence: { steps: [{ id: 'a', tool: { bundleId, slug: 'echo', version: '1' }, args: { text: '${args.text}' } }], result: '${steps.a.value}' },
});

describe('export then import', () => {
  it('gives the same bundle fields and tools in a fresh data folder', async () => {
    const a = await emptyStore();
    const bundleId = newId();
    await a.store.putBundle(bundleId, bundleBody({ slug: 'weather', displayName: 'Weather', description: 'Forecasts.\nTwo lines.' }));
    await a.store.putTool(bundleId, 'echo', '1', localToolBody());
    await a.store.putTool(bundleId, 'echo', '2.0-beta', localToolBody({ isEnabled: false, tags: ['a', 'b'] }));
    await a.store.putTool(bundleId, 'forecast', '1', httpToolBody({ http: { method: 'POST', urlTemplate: 'https://api.example.com/f/${city}', body: { kind: 'json', template: { days: '${days}' } }, auth: { kind: 'bearer', secret: 'WEATHER_TOKEN' } } }));
    await a.store.putTool(bundleId, 'wetter-straße', '1', sequenceBody(bundleId));

    const exported = await exportBundle(a.store, a.cases, bundleId);
    expect(exported.fileName).toBe('weather.toolsmith-bundle.zip');
    expect(Object.keys(unzipSync(exported.bytes)).sort()).toEqual([BUNDLE_MANIFEST, 'tools/echo@1.json', 'tools/echo@2.0-beta.json', 'tools/forecast@1.json', 'tools/wetter-straße@1.json'].sort());
    // Same bundle, same bytes.
    expect((await exportBundle(a.store, a.cases, bundleId)).bytes).toEqual(exported.bytes);
    // No ids or timestamps travel.
    const text = new TextDecoder().decode(unzipSync(exported.bytes)['tools/echo@1.json']);
    expect(text).not.toMatch(/"id"|"bundleId"|createdAt|modifiedAt|isBuiltIn/);

    const b = await emptyStore();
    const ids = [newId()];
    const report = await importBundle(b.store, exported.bytes, { newId: () => ids[0]!, testCases: b.cases });
    expect(report).toEqual({ bundleId: ids[0], bundleSlug: 'weather', imported: ['echo@1', 'echo@2.0-beta', 'forecast@1', 'wetter-straße@1'], conflicts: [], invalid: [], nothingImported: false });
    const original = a.store.getBundle(bundleId);
    const copy = b.store.getBundle(ids[0]!);
    expect({ ...copy, id: undefined, createdAt: undefined, modifiedAt: undefined }).toEqual({ ...original, id: undefined, createdAt: undefined, modifiedAt: undefined });
    const bodies = (s: ToolStore, id: string) => Object.fromEntries(s.toolsOf(id).map((t) => [`${t.slug}@${t.version}`, toolPutBody(t)]));
    expect(bodies(b.store, ids[0]!)).toEqual(bodies(a.store, bundleId));
    // New ids for the tools too.
    const oldIds = new Set(a.store.toolsOf(bundleId).map((t) => t.id));
    expect(b.store.toolsOf(ids[0]!).every((t) => !oldIds.has(t.id))).toBe(true);
  });

  it('keeps a disabled bundle disabled, and an empty bundle is imported empty', async () => {
    const a = await emptyStore();
    const bundleId = newId();
    await a.store.putBundle(bundleId, bundleBody({ isEnabled: false }));
    const b = await emptyStore();
    const report = await importBundle(b.store, (await exportBundle(a.store, a.cases, bundleId)).bytes, { newId, testCases: b.cases });
    expect(report).toMatchObject({ imported: [], nothingImported: false });
    expect(b.store.getBundle(report.bundleId!)).toMatchObject({ slug: 'demo', isEnabled: false });
  });

  it('exports a built-in bundle as an ordinary one', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const a = await openStore(dataDir, { resourcesDir: RESOURCES_DIR });
    const builtin = a.store.listBundles({ includeDisabled: true }).items.find((x) => x.isBuiltIn)!;
    const b = await emptyStore();
    const report = await importBundle(b.store, (await exportBundle(a.store, new TestCaseStore({ dataDir }), builtin.id)).bytes, { newId, testCases: b.cases });
    expect(report.nothingImported).toBe(false);
    expect(report.imported.length).toBe(a.store.toolsOf(builtin.id).length);
    expect(b.store.getBundle(report.bundleId!).isBuiltIn).toBe(false);
  });

  it('keeps requiresApproval: a tool that asks still asks after export and import', async () => {
    const a = await emptyStore();
    const bundleId = newId();
    await a.store.putBundle(bundleId, bundleBody());
    await a.store.putTool(bundleId, 'careful', '1', localToolBody({ requiresApproval: true }));
    const b = await emptyStore();
    const report = await importBundle(b.store, (await exportBundle(a.store, a.cases, bundleId)).bytes, { newId, testCases: b.cases });
    expect(b.store.getTool(report.bundleId!, 'careful', '1').requiresApproval).toBe(true);
    expect(report.asks).toEqual([{ tool: 'careful@1', message: 'requires approval: will ask before it runs' }]);
  });

  it('names the imported tools that will ask because of what they run (files.write, a step that asks)', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir, { resourcesDir: RESOURCES_DIR });
    const ids = [newId()];
    const wraps = (functionId: string) => localToolBody({ local: { functionId } });
    const zip = archive({
      [BUNDLE_MANIFEST]: manifest(),
      'tools/summarize@1.json': wraps('files.write'),
      'tools/count@1.json': wraps('text.count'),
      'tools/pipeline@1.json': { ...sequenceBody(ids[0]!), sequence: { steps: [{ id: 'save', tool: { bundleId: ids[0], slug: 'summarize', version: '1' }, args: {} }] } },
    });
    const report = await importBundle(store, zip, { newId: () => ids[0]!, testCases: new TestCaseStore({ dataDir }) });
    expect(report.imported).toEqual(['count@1', 'pipeline@1', 'summarize@1']);
    expect(report.asks).toEqual([
      { tool: 'pipeline@1', message: "its step 'save' calls summarize@1, which asks: will ask before it runs" },
      { tool: 'summarize@1', message: 'runs files.write: will ask before it runs' },
    ]);
  });

  it('export of an unknown bundle is NOT_FOUND', async () => {
    const a = await emptyStore();
    expect((await rejection(() => exportBundle(a.store, a.cases, newId()))).code).toBe('NOT_FOUND');
  });
});

describe('refused archives change nothing', () => {
  it.each([
    ['../evil.json', /path traversal/],
    ['tools/../../evil.json', /path traversal/],
    ['/abs.json', /absolute path/],
    ['C:/abs.json', /absolute path/],
    ['a\\b.json', /backslash/],
    ['tools/a\\..\\..\\b@1.json', /backslash/],
    ['tools//a@1.json', /empty or '\.' segment/],
    ['./toolsmith-bundle.json', /empty or '\.' segment/],
    ['tools/x\u0000@1.json', /NUL/],
    ['tools/x\u0007@1.json', /control character/],
    ['other/x@1.json', /not part of a Toolsmith bundle/],
    ['tools/sub/x@1.json', /not part of a Toolsmith bundle/],
    ['tools/x@1.txt', /not part of a Toolsmith bundle/],
  ])('an entry named %j', async (name, message) => {
    const s = await emptyStore();
    const zip = archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/ok@1.json': localToolBody(), [name]: localToolBody() });
    await expectRefused(s.store, s.dataDir, zip, name, message);
  });

  it('lists every bad entry of an archive', async () => {
    const s = await emptyStore();
    const zip = archive({ [BUNDLE_MANIFEST]: manifest(), '../a.json': {}, '/b.json': {}, 'c\\d.json': {} });
    const report = await expectRefused(s.store, s.dataDir, zip, '../a.json', /traversal/);
    expect(report.invalid.map((i) => i.entry)).toEqual(['../a.json', '/b.json', 'c\\d.json']);
  });

  it('an entry that declares 1 GiB is refused before anything is inflated', async () => {
    const s = await emptyStore();
    const zip = patch(archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/big@1.json': localToolBody() }), 'tools/big@1.json', UNCOMPRESSED_SIZE, 1024 ** 3);
    const heap0 = process.memoryUsage().arrayBuffers;
    await expectRefused(s.store, s.dataDir, zip, 'tools/big@1.json', /declares 1073741824 bytes uncompressed; at most 16 MiB/);
    // Refused from the header: nothing near the declared size was allocated.
    expect(process.memoryUsage().arrayBuffers - heap0).toBeLessThan(16 * 1024 * 1024);
  });

  it('20 MiB of zeros (declared honestly) is over the 16 MiB entry cap', async () => {
    const s = await emptyStore();
    const zip = archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/zeros@1.json': new Uint8Array(20 * 1024 * 1024) });
    expect(zip.length).toBeLessThan(100_000);
    await expectRefused(s.store, s.dataDir, zip, 'tools/zeros@1.json', /declares 20971520 bytes/);
  });

  it('an entry that lies about its size is stopped as soon as it inflates past it', async () => {
    const s = await emptyStore();
    const honest = archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/bomb@1.json': new Uint8Array(60 * 1024 * 1024) });
    const zip = patch(honest, 'tools/bomb@1.json', UNCOMPRESSED_SIZE, 1000);
    const heap0 = process.memoryUsage().arrayBuffers;
    await expectRefused(s.store, s.dataDir, zip, 'tools/bomb@1.json', /inflates to more than the 1000 bytes its header declares/);
    expect(process.memoryUsage().arrayBuffers - heap0).toBeLessThan(64 * 1024 * 1024);
  });

  it('more than 64 MiB in total is refused even when each entry is under the cap', async () => {
    const s = await emptyStore();
    const files: Record<string, unknown> = { [BUNDLE_MANIFEST]: manifest() };
    for (let i = 0; i < 5; i++) files[`tools/z${i}@1.json`] = new Uint8Array(MAX_ENTRY_BYTES - 1);
    await expectRefused(s.store, s.dataDir, archive(files), '(archive)', /in total; at most 64 MiB/);
  });

  it('an archive over the size limit is refused without being read', async () => {
    const s = await emptyStore();
    await expectRefused(s.store, s.dataDir, new Uint8Array(MAX_IMPORT_ZIP_BYTES + 1), '(archive)', /at most 6 MiB/);
  });

  it.each([
    ['text', strToU8('name: not a zip at all\n'.repeat(10)), /this is not a ZIP archive/],
    ['random bytes', new Uint8Array(randomBytes(4096)), /this is not a ZIP archive/],
    ['nothing', new Uint8Array(0), /this is not a ZIP archive/],
    ['a truncated ZIP', archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/a@1.json': localToolBody() }).subarray(0, 60), /damaged or truncated/],
  ])('not a ZIP: %s', async (_what, bytes, message) => {
    const s = await emptyStore();
    await expectRefused(s.store, s.dataDir, bytes, '(archive)', message);
  });

  it('encrypted entries, unknown methods, forged headers and bad CRCs are refused', async () => {
    const s = await emptyStore();
    const base = () => archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/a@1.json': localToolBody() });
    await expectRefused(s.store, s.dataDir, patch(base(), 'tools/a@1.json', FLAGS, 1), 'tools/a@1.json', /encrypted/);
    await expectRefused(s.store, s.dataDir, patch(base(), 'tools/a@1.json', METHOD, 12), 'tools/a@1.json', /compression method 12/);
    // Only the central header says otherwise.
    const forged = base().slice();
    const view = new DataView(forged.buffer);
    view.setUint32(headersOf(forged, 'tools/a@1.json').central[0]! + 24, 10, true);
    await expectRefused(s.store, s.dataDir, forged, 'tools/a@1.json', /local and central headers disagree/);
    const crc = patch(base(), 'tools/a@1.json', { local: 14, central: 16, bytes: 4 }, 0x12345678);
    await expectRefused(s.store, s.dataDir, crc, 'tools/a@1.json', /CRC-32 mismatch/);
  });

  it.each([
    ['missing', { 'tools/a@1.json': localToolBody() }, '(archive)', /toolsmith-bundle.json is missing/],
    ['not JSON', { [BUNDLE_MANIFEST]: strToU8('{nope') }, BUNDLE_MANIFEST, /not valid UTF-8 JSON/],
    ['another format', { [BUNDLE_MANIFEST]: manifest({ format: 'zip' }) }, BUNDLE_MANIFEST, /"format" must be "toolsmith-bundle"/],
    ['a newer version', { [BUNDLE_MANIFEST]: manifest({ version: 4 }) }, BUNDLE_MANIFEST, /newer Toolsmith/],
    ['a bad slug', { [BUNDLE_MANIFEST]: manifest({ bundle: { slug: 'a b', displayName: 'x', description: '', isEnabled: true } }) }, BUNDLE_MANIFEST, /slug/],
  ])('a manifest that is %s', async (_what, files, entry, message) => {
    const s = await emptyStore();
    await expectRefused(s.store, s.dataDir, archive(files), entry, message);
  });

  it('entry name rules', () => {
    expect(entryNameProblem('toolsmith-bundle.json')).toBeNull();
    expect(entryNameProblem('tools/')).toBeNull();
    expect(entryNameProblem('tools/a@1.json')).toBeNull();
    expect(entryNameProblem('tools/.json')).toMatch(/not part/);
    expect(entryNameProblem('testcases/')).toBeNull();
    expect(entryNameProblem('testcases/echo.json')).toBeNull();
    expect(entryNameProblem('testcases/sub/echo.json')).toMatch(/not part/);
    expect(entryNameProblem('testcases/../echo.json')).toMatch(/path traversal/);
    expect(entryNameProblem('')).toMatch(/empty name/);
  });
});

describe('invalid and conflicting entries are skipped; the rest is imported all or nothing', () => {
  it('reports each problem and imports the valid tools', async () => {
    const s = await emptyStore();
    const zip = archive({
      [BUNDLE_MANIFEST]: manifest(),
      'tools/': new Uint8Array(0),
      'tools/good@1.json': localToolBody(),
      'tools/also-good@2.json': httpToolBody(),
      'tools/broken@1.json': strToU8('{"displayName": '),
      'tools/no-type@1.json': { ...localToolBody(), type: 'grpc' },
      'tools/bad-schema@1.json': localToolBody({ argSchema: { type: 'object', properties: { a: { type: 'nope' } } } }),
      'tools/bad slug@1.json': localToolBody(),
      'tools/no-version.json': localToolBody(),
      'tools/\u00e9@1.json': localToolBody(),
      'tools/e\u0301@1.json': localToolBody(),
    });
    const ids = [newId()];
    const report = await importBundle(s.store, zip, { newId: () => ids[0]!, testCases: s.cases });
    expect(report.bundleId).toBe(ids[0]);
    expect(report.nothingImported).toBe(false);
    expect(report.imported).toEqual(['also-good@2', 'good@1']);
    expect(report.conflicts).toEqual(['é@1']);
    expect(Object.fromEntries(report.invalid.map((i) => [i.entry, i.message]))).toEqual({
      'tools/broken@1.json': expect.stringMatching(/not valid UTF-8 JSON/),
      'tools/no-type@1.json': expect.stringMatching(/^type: /),
      'tools/bad-schema@1.json': expect.stringMatching(/argSchema is not a valid JSON Schema/),
      'tools/bad slug@1.json': expect.stringMatching(/in the file name: slug may contain/),
      'tools/no-version.json': expect.stringMatching(/<slug>@<version>\.json/),
    });
    expect(s.store.toolsOf(ids[0]!).map((t) => t.slug).sort()).toEqual(['also-good', 'good']);
    expect(s.store.getBundle(ids[0]!).isEnabled).toBe(true);
  });

  it('when no tool entry is valid, no bundle is made', async () => {
    const s = await emptyStore();
    const before = await filesUnder(s.dataDir);
    const report = await importBundle(s.store, archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/a@1.json': { nope: true } }), { newId, testCases: s.cases });
    expect(report).toMatchObject({ nothingImported: true, imported: [], invalid: [{ entry: 'tools/a@1.json' }] });
    expect(report.bundleId).toBeUndefined();
    expect(await filesUnder(s.dataDir)).toEqual(before);
  });

  it('a write that fails midway undoes the tools written and the bundle', async () => {
    const failOn = toolFileName('c', '1');
    const fs: StoreFs = {
      ...nodeFs,
      link: (async (from: string, to: string) => {
        if (String(to).endsWith(failOn)) throw Object.assign(new Error(`ENOSPC: no space left on device, link '${to}'`), { code: 'ENOSPC', syscall: 'link' });
        return nodeFs.link(from, to);
      }) as StoreFs['link'],
    };
    const s = await emptyStore(fs);
    const zip = archive({ [BUNDLE_MANIFEST]: manifest(), 'tools/a@1.json': localToolBody(), 'tools/b@1.json': localToolBody(), 'tools/c@1.json': localToolBody(), 'tools/d@1.json': localToolBody() });
    const ids = [newId()];
    const report = await importBundle(s.store, zip, { newId: () => ids[0]!, testCases: s.cases });
    expect(report.nothingImported).toBe(true);
    expect(report.imported).toEqual([]);
    expect(report.bundleId).toBeUndefined();
    expect(report.invalid).toEqual([{ entry: 'tools/c@1.json', message: expect.stringMatching(/disk is full.*the import was undone: nothing was imported$/) }]);
    // The tools written before are gone; the bundle is soft-deleted (the reaper removes it), never usable.
    expect(s.store.toolsOf(ids[0]!)).toEqual([]);
    expect(s.store.getBundle(ids[0]!)).toMatchObject({ isEnabled: false, softDeletedAt: expect.any(String) });
    expect(s.store.listBundles({ includeDisabled: true }).items).toEqual([]);
    expect((await filesUnder(s.dataDir)).filter((f) => f.includes(`${path.sep}tools${path.sep}`))).toEqual([]);
  });
});
