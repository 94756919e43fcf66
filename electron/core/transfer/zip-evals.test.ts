import path from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { createCore, type Core } from '../app';
import { bundleBody, localToolBody, newId, openStore } from '../bundles/testing/fixtures';
import { EvalCaseStore } from '../evals/eval-case-store';
import { forecastCase, weatherBundle } from '../testing/eval-kit';
import { TestCaseStore } from '../testcases/test-case-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { BUNDLE_MANIFEST, exportBundle, importBundle } from './zip';
import { EVALS_ENTRY } from './zip-evals';

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

const body = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }: { id: string; createdAt: string; updatedAt: string }) => rest;

describe('eval cases travel with their bundle', () => {
  it('exports them as evals.json (format version 3, no ids or times); an import into a fresh data folder has them', async () => {
    const a = await start();
    const bundleId = await weatherBundle(a.core);
    const one = await a.call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'judge', rubric: 'mentions the sky' }] }) });
    const two = await a.call('evals.save', { bundleId, evalCase: forecastCase({ name: 'no tool', expect: { kind: 'none' }, results: [], scope: { tools: 'named', named: ['weather/*', 'text/count'], toolSearch: 'on' } }) });
    const zip = await a.call('transfer.exportBundle', { bundleId });
    const files = unzipSync(Buffer.from(zip.base64, 'base64'));
    expect(Object.keys(files)).toContain(EVALS_ENTRY);
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(3);
    const entry = JSON.parse(new TextDecoder().decode(files[EVALS_ENTRY]));
    expect(entry).toEqual({ cases: [body(one), body(two)] });
    expect(JSON.stringify(entry)).not.toMatch(/"id"|createdAt|updatedAt/);

    const b = await start();
    const report = await b.call('transfer.importBundle', { base64: zip.base64 });
    expect(report).toMatchObject({ nothingImported: false, invalid: [], evalCases: 2 });
    const imported = await b.call('evals.list', { bundleId: report.bundleId! });
    expect(imported.map(body)).toEqual([body(one), body(two)]);
    expect(imported[0]!.id).not.toBe(one.id);
  });

  it('an archive without eval cases is written as before (version 1)', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    const zip = await exportBundle(store, new TestCaseStore({ dataDir }), bundleId, new EvalCaseStore({ dataDir }));
    const files = unzipSync(zip.bytes);
    expect(Object.keys(files)).not.toContain(EVALS_ENTRY);
    expect(JSON.parse(new TextDecoder().decode(files[BUNDLE_MANIFEST])).version).toBe(1);
  });

  it('the entry is untrusted input: a bad case, or one naming a tool the archive does not bring, is reported and skipped; the rest is imported', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const evals = new EvalCaseStore({ dataDir });
    const manifest = { format: 'toolsmith-bundle', version: 3, bundle: { slug: 'imported', displayName: 'Imported', description: 'From a ZIP.', isEnabled: true } };
    const good = forecastCase({ name: 'good', expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [] }] }, results: [] });
    const other = forecastCase({ name: 'elsewhere', expect: { kind: 'tools', tools: [{ tool: 'text/count', args: [] }] }, results: [] });
    const orphan = forecastCase({ name: 'orphan', expect: { kind: 'tools', tools: [{ tool: 'alerts', args: [] }] }, results: [] });
    const bad = { ...forecastCase({ name: 'bad regex' }), answer: [{ kind: 'regex', pattern: '(' }] };
    const files: Zippable = {
      [BUNDLE_MANIFEST]: strToU8(JSON.stringify(manifest)),
      'tools/forecast@1.json': strToU8(JSON.stringify(localToolBody())),
      [EVALS_ENTRY]: strToU8(JSON.stringify({ cases: [good, other, orphan, bad, 'nonsense'] })),
    };
    const report = await importBundle(store, zipSync(files), { newId, testCases: new TestCaseStore({ dataDir }), evalCases: evals });
    expect(report.nothingImported).toBe(false);
    expect(report.evalCases).toBe(2);
    expect(report.invalid).toEqual([
      { entry: EVALS_ENTRY, message: "eval case 3 'orphan': it names 'alerts', which this archive does not bring; this case was skipped" },
      { entry: EVALS_ENTRY, message: expect.stringMatching(/^eval case 4 'bad regex': invalid regular expression '\(': .*; this case was skipped$/) },
      { entry: EVALS_ENTRY, message: 'eval case 5: an eval case must be a JSON object; this case was skipped' },
    ]);
    expect((await evals.list(report.bundleId!)).map((c) => c.name)).toEqual(['good', 'elsewhere']);

    const notJson = await importBundle(store, zipSync({ ...files, [EVALS_ENTRY]: strToU8('{"cases": [') }), { newId, testCases: new TestCaseStore({ dataDir }), evalCases: evals });
    expect(notJson).toMatchObject({ nothingImported: false, invalid: [{ entry: EVALS_ENTRY, message: expect.stringMatching(/^not valid UTF-8 JSON/) }] });
    expect(notJson.evalCases).toBeUndefined();
    const wrongShape = await importBundle(store, zipSync({ ...files, [EVALS_ENTRY]: strToU8('{"cases": [], "more": 1}') }), { newId, testCases: new TestCaseStore({ dataDir }), evalCases: evals });
    expect(wrongShape.invalid).toEqual([{ entry: EVALS_ENTRY, message: `unknown field 'more': the entry has only "cases"` }]);
  });
});
