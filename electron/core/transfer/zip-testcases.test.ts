import path from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { Assertion } from '../../../shared/model/testcase';
import { createCore, type Core } from '../app';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection } from '../bundles/testing/fixtures';
import { MAX_TEST_CASES, TestCaseStore, testCaseFileName } from '../testcases/test-case-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { freeBundleName, numberedName, numberedSlug } from './bundle-name';
import { BUNDLE_MANIFEST, exportBundle, importBundle } from './zip';
import { MAX_TESTCASES_ENTRY_BYTES } from './zip-testcases';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

async function start() {
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
  cores.push(core);
  const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
    const r = await core.call(name, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
    return r.value as OpOutput<N>;
  };
  return { core, call };
}

type Call = Awaited<ReturnType<typeof start>>['call'];

/** Two tools (wrapping text.count and math.calc) in a bundle 'weather', each with saved test cases. */
async function weatherBundle(call: Call): Promise<string> {
  const bundleId = newId();
  await call('bundles.put', { bundleId, body: { slug: 'weather', displayName: 'Weather', description: 'Two tools with tests.', isEnabled: true } });
  const wrap = (functionId: string, argSchema: object) => ({ ...localToolBody({ local: { functionId }, argSchema, outputSchema: { type: 'object' } }) }) as OpInput<'tools.put'>['body'];
  await call('tools.put', { bundleId, slug: 'words', version: '1', body: wrap('text.count', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }) });
  await call('tools.put', { bundleId, slug: 'sum', version: '1', body: wrap('math.calc', { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] }) });
  const save = (slug: string, name: string, args: unknown, assertions: Assertion[]) => call('testcases.save', { bundleId, slug, testCase: { name, args, assertions } });
  await save('words', 'three words', { text: 'a b c' }, [{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$.words', value: 3 }]);
  await save('words', 'empty', { text: '' }, [{ kind: 'jsonPathEquals', path: '$.words', value: 0 }]);
  await save('sum', 'two plus two', { expression: '2+2' }, [{ kind: 'jsonPathEquals', path: '$.result', value: 4 }]);
  return bundleId;
}

const caseView = (cases: { name: string; args: unknown; assertions: unknown }[]) => cases.map(({ name, args, assertions }) => ({ name, args, assertions }));

describe('test cases travel with their tools', () => {
  it('exports them as testcases/<slug>.json, and an import into a fresh data folder has them, and they run', async () => {
    const a = await start();
    const bundleId = await weatherBundle(a.call);
    const zip = await a.call('transfer.exportBundle', { bundleId });
    const files = unzipSync(Buffer.from(zip.base64, 'base64'));
    expect(Object.keys(files).sort()).toEqual([BUNDLE_MANIFEST, 'testcases/sum.json', 'testcases/words.json', 'tools/sum@1.json', 'tools/words@1.json'].sort());
    const entry = JSON.parse(new TextDecoder().decode(files['testcases/words.json']));
    expect(entry).toEqual({ cases: caseView(await a.call('testcases.list', { bundleId, slug: 'words' })) });
    // No ids and no times travel.
    expect(JSON.stringify(entry)).not.toMatch(/"id"|createdAt|updatedAt/);
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(2);

    const b = await start();
    const report = await b.call('transfer.importBundle', { base64: zip.base64 });
    expect(report).toMatchObject({ bundleSlug: 'weather', imported: ['sum@1', 'words@1'], invalid: [], nothingImported: false, testCases: [{ slug: 'sum', count: 1 }, { slug: 'words', count: 2 }] });
    expect(report.renamed).toBeUndefined();
    const copy = report.bundleId!;
    for (const slug of ['words', 'sum']) {
      const there = await b.call('testcases.list', { bundleId: copy, slug });
      expect(caseView(there)).toEqual(caseView(await a.call('testcases.list', { bundleId, slug })));
      // New ids.
      const old = new Set((await a.call('testcases.list', { bundleId, slug })).map((c) => c.id));
      expect(there.every((c) => !old.has(c.id))).toBe(true);
    }
    expect(await b.call('testcases.runAll', { bundleId: copy, slug: 'words', version: '1' })).toMatchObject({ passed: 2, failed: 0 });
    expect(await b.call('testcases.runAll', { bundleId: copy, slug: 'sum', version: '1' })).toMatchObject({ passed: 1, failed: 0 });
  });

  it('an import beside the original is renamed weather-2 / "Weather (2)", then weather-3, and the report says so', async () => {
    const a = await start();
    const bundleId = await weatherBundle(a.call);
    const { base64 } = await a.call('transfer.exportBundle', { bundleId });

    const second = await a.call('transfer.importBundle', { base64 });
    expect(second).toMatchObject({
      bundleSlug: 'weather-2',
      nothingImported: false,
      renamed: { from: { slug: 'weather', displayName: 'Weather' }, to: { slug: 'weather-2', displayName: 'Weather (2)' } },
    });
    expect(await a.call('bundles.get', { bundleId: second.bundleId! })).toMatchObject({ slug: 'weather-2', displayName: 'Weather (2)' });
    const third = await a.call('transfer.importBundle', { base64 });
    expect(third.renamed?.to).toEqual({ slug: 'weather-3', displayName: 'Weather (3)' });

    const rows = (await a.call('bundles.list', { includeDisabled: true, pageSize: 100 })).items.filter((b) => !b.isBuiltIn);
    expect(rows.map((b) => [b.slug, b.displayName]).sort()).toEqual([
      ['weather', 'Weather'],
      ['weather-2', 'Weather (2)'],
      ['weather-3', 'Weather (3)'],
    ]);
    // The copy's cases are its own and run against its own tools.
    expect(await a.call('testcases.runAll', { bundleId: second.bundleId!, slug: 'words', version: '1' })).toMatchObject({ passed: 2, failed: 0 });
    expect((await a.call('testcases.list', { bundleId, slug: 'words' })).length).toBe(2);
  });

  it('two imports at once beside the original take different names', async () => {
    const a = await start();
    const bundleId = await weatherBundle(a.call);
    const { base64 } = await a.call('transfer.exportBundle', { bundleId });
    const both = await Promise.all([a.call('transfer.importBundle', { base64 }), a.call('transfer.importBundle', { base64 })]);
    expect(both.map((r) => r.bundleSlug).sort()).toEqual(['weather-2', 'weather-3']);
  });
});

// ---- archives made by hand ---------------------------------------------------------------------

const manifest = { format: 'toolsmith-bundle', version: 2, bundle: { slug: 'imported', displayName: 'Imported', description: 'From a ZIP.', isEnabled: true } };
const goodCase = (name: string, over: Record<string, unknown> = {}) => ({ name, args: { text: name }, assertions: [{ kind: 'ok' }], ...over });

function archive(files: Record<string, unknown>): Uint8Array {
  const z: Zippable = {};
  for (const [name, v] of Object.entries(files)) z[name] = v instanceof Uint8Array ? v : strToU8(JSON.stringify(v));
  return zipSync(z, { level: 6 });
}

async function emptyStore(fs?: StoreFs) {
  const dataDir = path.join(await tempDir(), 'data');
  const opened = await openStore(dataDir, fs ? { fs } : {});
  return { ...opened, cases: new TestCaseStore({ dataDir, fs }) };
}

describe('test-case entries are untrusted input', () => {
  it('a malformed, oversized or orphan entry and a bad case are reported invalid; the rest is imported', async () => {
    const s = await emptyStore();
    const tooMany = { cases: Array.from({ length: MAX_TEST_CASES + 1 }, (_, i) => goodCase(`c${i}`)) };
    const zip = archive({
      [BUNDLE_MANIFEST]: manifest,
      'testcases/': new Uint8Array(0),
      'tools/good@1.json': localToolBody(),
      'tools/other@1.json': localToolBody(),
      'tools/big@1.json': localToolBody(),
      'tools/many@1.json': localToolBody(),
      'tools/shape@1.json': localToolBody(),
      'testcases/good.json': {
        cases: [
          goodCase('fine'),
          goodCase('no such assertion', { assertions: [{ kind: 'sometimes' }] }),
          goodCase('an id', { id: 'x' }),
          goodCase('huge args', { args: { text: 'x'.repeat(1024 * 1024) } }),
          goodCase('bad code', { assertions: [{ kind: 'error', code: 'NOPE' }] }),
          goodCase('also fine', { args: { text: 'two words' } }),
        ],
      },
      'testcases/other.json': strToU8('{"cases": [ {"name": '),
      'testcases/big.json': strToU8(JSON.stringify({ cases: [goodCase('padding', { args: { text: 'y'.repeat(MAX_TESTCASES_ENTRY_BYTES) } })] })),
      'testcases/many.json': tooMany,
      'testcases/shape.json': { cases: {}, extra: 1 },
      'testcases/ghost.json': { cases: [goodCase('no tool')] },
      'testcases/bad slug.json': { cases: [goodCase('x')] },
    });
    const ids = [newId()];
    const report = await importBundle(s.store, zip, { newId: () => ids[0]!, testCases: s.cases });
    expect(report.nothingImported).toBe(false);
    expect(report.imported).toEqual(['big@1', 'good@1', 'many@1', 'other@1', 'shape@1']);
    expect(report.testCases).toEqual([{ slug: 'good', count: 2 }]);
    const byEntry = (entry: string) => report.invalid.filter((i) => i.entry === entry).map((i) => i.message);
    expect(byEntry('testcases/good.json')).toEqual([
      expect.stringMatching(/^case 2 'no such assertion': invalid test case: assertions\.0\.kind: .*; this case was skipped$/),
      expect.stringMatching(/^case 3 'an id': unknown field 'id'/),
      expect.stringMatching(/^case 4 'huge args': .*(large|bytes)/),
      expect.stringMatching(/^case 5 'bad code': 'NOPE' is not an error code/),
    ]);
    expect(byEntry('testcases/other.json')).toEqual([expect.stringMatching(/not valid UTF-8 JSON/)]);
    expect(byEntry('testcases/big.json')).toEqual([expect.stringMatching(/declares \d+ bytes uncompressed; the test cases of one tool may be at most 8 MiB/)]);
    expect(byEntry('testcases/many.json')).toEqual([`has ${MAX_TEST_CASES + 1} test cases; a tool may have at most ${MAX_TEST_CASES}`]);
    expect(byEntry('testcases/shape.json')).toEqual([expect.stringMatching(/unknown field 'extra'/)]);
    expect(byEntry('testcases/ghost.json')).toEqual([expect.stringMatching(/no tool 'ghost' is imported from this archive/)]);
    expect(byEntry('testcases/bad slug.json')).toEqual([expect.stringMatching(/in the file name: slug may contain/)]);
    expect(caseView(await s.cases.list(ids[0]!, 'good'))).toEqual([goodCase('fine'), goodCase('also fine', { args: { text: 'two words' } })]);
    for (const slug of ['other', 'big', 'many', 'shape', 'ghost']) expect(await s.cases.list(ids[0]!, slug)).toEqual([]);
  });

  it('the same slug twice (NFC and NFD) is skipped both times', async () => {
    const s = await emptyStore();
    const zip = archive({ [BUNDLE_MANIFEST]: manifest, 'tools/\u00e9@1.json': localToolBody(), 'testcases/\u00e9.json': { cases: [goodCase('a')] }, 'testcases/e\u0301.json': { cases: [goodCase('b')] } });
    const report = await importBundle(s.store, zip, { newId, testCases: s.cases });
    expect(report.imported).toEqual(['\u00e9@1']);
    expect(report.invalid.map((i) => i.message)).toEqual([expect.stringMatching(/occur 2 times/), expect.stringMatching(/occur 2 times/)]);
    expect(await s.cases.list(report.bundleId!, '\u00e9')).toEqual([]);
  });

  it('a test-case entry that inflates past its declared size refuses the whole archive, as any entry does', async () => {
    const s = await emptyStore();
    const honest = archive({ [BUNDLE_MANIFEST]: manifest, 'tools/a@1.json': localToolBody(), 'testcases/a.json': new Uint8Array(4 * 1024 * 1024) });
    const zip = honest.slice();
    const view = new DataView(zip.buffer);
    const name = strToU8('testcases/a.json');
    for (let o = 0; o + 46 < zip.length; o++) {
      const sig = view.getUint32(o, true);
      const at = sig === 0x04034b50 ? [30, 22] : sig === 0x02014b50 ? [46, 24] : null;
      if (at && zip.subarray(o + at[0]!, o + at[0]! + name.length).every((b, i) => b === name[i])) view.setUint32(o + at[1]!, 100, true);
    }
    const before = await filesUnder(s.dataDir);
    const report = await importBundle(s.store, zip, { newId, testCases: s.cases });
    expect(report).toMatchObject({ nothingImported: true, invalid: [{ entry: 'testcases/a.json', message: expect.stringMatching(/inflates to more than the 100 bytes/) }] });
    expect(await filesUnder(s.dataDir)).toEqual(before);
  });

  it('a test-case write that fails undoes the test cases and tools written, and the bundle', async () => {
    const failOn = testCaseFileName('b');
    const fail = (to: string) => String(to).includes(`${path.sep}testcases${path.sep}`) && String(to).endsWith(failOn);
    const enospc = (to: string) => Object.assign(new Error(`ENOSPC: no space left on device, '${to}'`), { code: 'ENOSPC', syscall: 'rename' });
    const fs: StoreFs = {
      ...nodeFs,
      rename: (async (from: string, to: string) => {
        if (fail(to)) throw enospc(to);
        return nodeFs.rename(from, to);
      }) as StoreFs['rename'],
      link: (async (from: string, to: string) => {
        if (fail(to)) throw enospc(to);
        return nodeFs.link(from, to);
      }) as StoreFs['link'],
    };
    const s = await emptyStore(fs);
    const zip = archive({ [BUNDLE_MANIFEST]: manifest, 'tools/a@1.json': localToolBody(), 'tools/b@1.json': localToolBody(), 'testcases/a.json': { cases: [goodCase('x')] }, 'testcases/b.json': { cases: [goodCase('y')] } });
    const ids = [newId()];
    const report = await importBundle(s.store, zip, { newId: () => ids[0]!, testCases: s.cases });
    expect(report).toMatchObject({ nothingImported: true, imported: [] });
    expect(report.invalid).toEqual([{ entry: 'testcases/b.json', message: expect.stringMatching(/the import was undone: nothing was imported$/) }]);
    expect(await s.cases.list(ids[0]!, 'a')).toEqual([]);
    expect((await filesUnder(s.dataDir)).filter((f) => f.startsWith(`testcases${path.sep}`))).toEqual([]);
    expect(s.store.toolsOf(ids[0]!)).toEqual([]);
    expect(s.store.listBundles({ includeDisabled: true }).items).toEqual([]);
  });

  it('an export refuses test cases too large to import again, naming the tool', async () => {
    const s = await emptyStore();
    const bundleId = newId();
    await s.store.putBundle(bundleId, bundleBody());
    await s.store.putTool(bundleId, 'echo', '1', localToolBody());
    for (let i = 0; i < 9; i++) await s.cases.save(bundleId, 'echo', { name: `big ${i}`, args: { text: 'z'.repeat(1000 * 1000) }, assertions: [] });
    const e = await rejection(() => exportBundle(s.store, s.cases, bundleId));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toMatch(/the test cases of 'echo' are \d+ bytes as JSON; .* at most 8 MiB .*: delete or shrink some of its cases/);
  });

  it('a bundle without test cases is exported as format version 1, as before, and cases of a slug with no tool stay behind', async () => {
    const s = await emptyStore();
    const bundleId = newId();
    await s.store.putBundle(bundleId, bundleBody());
    await s.store.putTool(bundleId, 'echo', '1', localToolBody());
    await s.cases.save(bundleId, 'draft-only', { name: 'never saved as a tool', args: {}, assertions: [] });
    const files = unzipSync((await exportBundle(s.store, s.cases, bundleId)).bytes);
    expect(Object.keys(files).sort()).toEqual([BUNDLE_MANIFEST, 'tools/echo@1.json'].sort());
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(1);
  });
});

describe('freeBundleName', () => {
  const taken = [
    { slug: 'weather', displayName: 'Weather' },
    { slug: 'weather-2', displayName: 'Something else' },
  ];
  it('keeps a free name, numbers what clashes with the first number free for both', () => {
    expect(freeBundleName({ slug: 'maps', displayName: 'Maps' }, taken)).toEqual({ slug: 'maps', displayName: 'Maps' });
    expect(freeBundleName({ slug: 'weather', displayName: 'Weather' }, taken)).toEqual({ slug: 'weather-3', displayName: 'Weather (3)' });
    // Only the display name clashes (compared trimmed, without case): the slug stays.
    expect(freeBundleName({ slug: 'forecast', displayName: ' weather ' }, taken)).toEqual({ slug: 'forecast', displayName: ' weather (2)' });
    // Only the slug clashes.
    expect(freeBundleName({ slug: 'weather', displayName: 'Forecasts' }, taken)).toEqual({ slug: 'weather-3', displayName: 'Forecasts' });
  });
  it('stays within the slug and display-name limits', () => {
    const long = 'ä'.repeat(64);
    expect([...numberedSlug(long, 12)].length).toBe(64);
    expect(numberedSlug(long, 12).endsWith('-12')).toBe(true);
    expect(numberedName('𝐀'.repeat(64), 2).length).toBeLessThanOrEqual(128);
    expect(numberedName('𝐀'.repeat(64), 2)).toMatch(/^(𝐀)+ \(2\)$/u);
  });
});
