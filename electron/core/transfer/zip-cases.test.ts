/**
 * A bundle's cases in its ZIP (zip.ts): test cases (zip-testcases.ts, one entry per tool slug)
 * and eval cases (zip-evals.ts, one entry per bundle) travel the same way: no ids or times; an
 * import gives them new ones; an entry is untrusted input. That is checked once for both kinds,
 * then what each kind has of its own.
 */
import path from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { Assertion } from '../../../shared/model/testcase';
import { createCore, type Core } from '../app';
import { EvalCaseStore } from '../evals/eval-case-store';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection } from '../bundles/testing/fixtures';
import { MAX_TEST_CASES, TestCaseStore, testCaseFileName } from '../testcases/test-case-store';
import { forecastCase, weatherBundle as evalWeatherBundle } from '../testing/eval-kit';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { BUNDLE_MANIFEST, exportBundle, importBundle } from './zip';
import { EVALS_ENTRY } from './zip-evals';
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

type Started = Awaited<ReturnType<typeof start>>;
type Call = Started['call'];

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

/** A case as a person chose it: no id, no times. */
const body = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }: { id: string; createdAt: string; updatedAt: string }) => rest;
const caseView = (cases: { name: string; args: unknown; assertions: unknown }[]) => cases.map(({ name, args, assertions }) => ({ name, args, assertions }));

/** The stores of an empty data folder, written to directly (the archives below are made by hand). */
async function emptyStore(fs?: StoreFs) {
  const dataDir = path.join(await tempDir(), 'data');
  const opened = await openStore(dataDir, fs ? { fs } : {});
  return { ...opened, cases: new TestCaseStore({ dataDir, fs }), evals: new EvalCaseStore({ dataDir, fs }) };
}
type Stores = Awaited<ReturnType<typeof emptyStore>>;

function archive(files: Record<string, unknown>): Uint8Array {
  const z: Zippable = {};
  for (const [name, v] of Object.entries(files)) z[name] = v instanceof Uint8Array ? v : strToU8(JSON.stringify(v));
  return zipSync(z, { level: 6 });
}

interface Kind {
  name: string;
  /** A bundle with cases of this kind, through the contract. */
  seed(a: Started): Promise<string>;
  /** Every entry of its archive. */
  files: string[];
  /** The archive's format version when it holds these cases. */
  version: number;
  /** The bundle's cases by the entry they travel in, as a person chose them; and their ids. */
  cases(a: Started, bundleId: string): Promise<{ byEntry: Record<string, unknown[]>; ids: string[] }>;
  /** What an import's report says of them. */
  reported: object;
  /** Checks on the imported copy of the bundle. */
  imported?(b: Started, bundleId: string): Promise<void>;
  /** Keeps cases of this kind that an export leaves behind, or none. */
  leaveBehind(s: Stores, bundleId: string): Promise<void>;
  /** An entry of an archive bringing the tool 'forecast'. */
  entry: string;
}

const kinds: Kind[] = [
  {
    name: 'test cases',
    seed: (a) => weatherBundle(a.call),
    files: [BUNDLE_MANIFEST, 'testcases/sum.json', 'testcases/words.json', 'tools/sum@1.json', 'tools/words@1.json'],
    version: 2,
    cases: async (a, bundleId) => {
      const [sum, words] = [await a.call('testcases.list', { bundleId, slug: 'sum' }), await a.call('testcases.list', { bundleId, slug: 'words' })];
      return { byEntry: { 'testcases/sum.json': caseView(sum), 'testcases/words.json': caseView(words) }, ids: [...sum, ...words].map((c) => c.id) };
    },
    reported: { bundleSlug: 'weather', imported: ['sum@1', 'words@1'], testCases: [{ slug: 'sum', count: 1 }, { slug: 'words', count: 2 }] },
    imported: async (b, copy) => {
      // They run against the copy's own tools.
      expect(await b.call('testcases.runAll', { bundleId: copy, slug: 'words', version: '1' })).toMatchObject({ passed: 2, failed: 0 });
      expect(await b.call('testcases.runAll', { bundleId: copy, slug: 'sum', version: '1' })).toMatchObject({ passed: 1, failed: 0 });
    },
    // Cases of a slug with no tool (a draft never saved) stay behind.
    leaveBehind: async (s, bundleId) => void (await s.cases.save(bundleId, 'draft-only', { name: 'never saved as a tool', args: {}, assertions: [] })),
    entry: 'testcases/forecast.json',
  },
  {
    name: 'eval cases',
    seed: async (a) => {
      const bundleId = await evalWeatherBundle(a.core);
      await a.call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'judge', rubric: 'mentions the sky' }] }) });
      await a.call('evals.save', { bundleId, evalCase: forecastCase({ name: 'no tool', expect: { kind: 'none' }, results: [], scope: { tools: 'named', named: ['weather/*', 'text/count'], toolSearch: 'on' } }) });
      return bundleId;
    },
    files: [BUNDLE_MANIFEST, EVALS_ENTRY, 'tools/alerts@1.json', 'tools/count-words@1.json', 'tools/forecast@1.json', 'tools/guarded@1.json'],
    version: 3,
    cases: async (a, bundleId) => {
      const cases = await a.call('evals.list', { bundleId });
      return { byEntry: { [EVALS_ENTRY]: cases.map(body) }, ids: cases.map((c) => c.id) };
    },
    reported: { evalCases: 2 },
    leaveBehind: async () => undefined,
    entry: EVALS_ENTRY,
  },
];

describe.each(kinds)('$name travel with their bundle', (k) => {
  it('are exported without ids or times; an import into a fresh data folder has them, with new ids', async () => {
    const a = await start();
    const bundleId = await k.seed(a);
    const zip = await a.call('transfer.exportBundle', { bundleId });
    const files = unzipSync(Buffer.from(zip.base64, 'base64'));
    expect(Object.keys(files).sort()).toEqual([...k.files].sort());
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(k.version);
    const before = await k.cases(a, bundleId);
    for (const [entry, cases] of Object.entries(before.byEntry)) {
      const text = new TextDecoder().decode(files[entry]);
      expect(JSON.parse(text)).toEqual({ cases });
      expect(text).not.toMatch(/"id"|createdAt|updatedAt/);
    }

    const b = await start();
    const report = await b.call('transfer.importBundle', { base64: zip.base64 });
    expect(report).toMatchObject({ nothingImported: false, invalid: [], ...k.reported });
    expect(report.renamed).toBeUndefined();
    const after = await k.cases(b, report.bundleId!);
    expect(after.byEntry).toEqual(before.byEntry);
    expect(after.ids.filter((id) => before.ids.includes(id))).toEqual([]);
    await k.imported?.(b, report.bundleId!);
  });

  it('a bundle without any to export is written as format version 1, as before', async () => {
    const s = await emptyStore();
    const bundleId = newId();
    await s.store.putBundle(bundleId, bundleBody());
    await s.store.putTool(bundleId, 'echo', '1', localToolBody());
    await k.leaveBehind(s, bundleId);
    const files = unzipSync((await exportBundle(s.store, s.cases, bundleId, s.evals)).bytes);
    expect(Object.keys(files).sort()).toEqual([BUNDLE_MANIFEST, 'tools/echo@1.json'].sort());
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(1);
  });

  it('an entry that is not JSON, or has a field besides "cases", is reported and skipped; the tools are imported', async () => {
    const s = await emptyStore();
    const manifest = { format: 'toolsmith-bundle', version: k.version, bundle: { slug: 'imported', displayName: 'Imported', description: 'From a ZIP.', isEnabled: true } };
    const bad: [string, RegExp][] = [
      ['{"cases": [', /^not valid UTF-8 JSON/],
      ['{"cases": [], "more": 1}', /^unknown field 'more': the entry has only "cases"$/],
    ];
    for (const [text, message] of bad) {
      const zip = archive({ [BUNDLE_MANIFEST]: manifest, 'tools/forecast@1.json': localToolBody(), [k.entry]: strToU8(text) });
      const report = await importBundle(s.store, zip, { newId, testCases: s.cases, evalCases: s.evals });
      expect(report).toMatchObject({ nothingImported: false, imported: ['forecast@1'], invalid: [{ entry: k.entry, message: expect.stringMatching(message) }] });
      expect(report.evalCases).toBeUndefined();
      expect(report.testCases ?? []).toEqual([]);
    }
  });
});

describe('test cases, beside the original', () => {
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
});

describe('eval-case entries are untrusted input', () => {
  it('a bad case, or one naming a tool the archive does not bring, is reported and skipped; the rest is imported', async () => {
    const s = await emptyStore();
    const good = forecastCase({ name: 'good', expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [] }] }, results: [] });
    const other = forecastCase({ name: 'elsewhere', expect: { kind: 'tools', tools: [{ tool: 'text/count', args: [] }] }, results: [] });
    const orphan = forecastCase({ name: 'orphan', expect: { kind: 'tools', tools: [{ tool: 'alerts', args: [] }] }, results: [] });
    const bad = { ...forecastCase({ name: 'bad regex' }), answer: [{ kind: 'regex', pattern: '(' }] };
    const zip = archive({ [BUNDLE_MANIFEST]: { ...manifest, version: 3 }, 'tools/forecast@1.json': localToolBody(), [EVALS_ENTRY]: { cases: [good, other, orphan, bad, 'nonsense'] } });
    const report = await importBundle(s.store, zip, { newId, testCases: s.cases, evalCases: s.evals });
    expect(report.nothingImported).toBe(false);
    expect(report.evalCases).toBe(2);
    expect(report.invalid).toEqual([
      { entry: EVALS_ENTRY, message: "eval case 3 'orphan': it names 'alerts', which this archive does not bring; this case was skipped" },
      { entry: EVALS_ENTRY, message: expect.stringMatching(/^eval case 4 'bad regex': invalid regular expression '\(': .*; this case was skipped$/) },
      { entry: EVALS_ENTRY, message: 'eval case 5: an eval case must be a JSON object; this case was skipped' },
    ]);
    expect((await s.evals.list(report.bundleId!)).map((c) => c.name)).toEqual(['good', 'elsewhere']);
  });
});
