import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { curlToTool, parseCurl } from '../../../shared/model/curl';
import type { CallContext } from '../router';
import { bundleBody, localToolBody, newId, openStore } from '../bundles/testing/fixtures';
import { TestCaseStore } from '../testcases/test-case-store';
import { EvalCaseStore } from '../evals/eval-case-store';
import { useTempDirs } from '../testing/temp-dir';
import { decodeBase64, transferHandlers } from './transfer-handlers';

const tempDir = useTempDirs();
const ctx: CallContext = { transport: 'direct' };

describe('transfer handlers', () => {
  it('export → import through base64, outputs matching the contract', async () => {
    const a = await openStore(path.join(await tempDir(), 'data'));
    const bundleId = newId();
    await a.store.putBundle(bundleId, bundleBody());
    await a.store.putTool(bundleId, 'echo', '1', localToolBody());
    const ha = transferHandlers({ store: a.store, testCases: new TestCaseStore({ dataDir: a.dataDir }), evalCases: new EvalCaseStore({ dataDir: a.dataDir }) });
    const out = operations['transfer.exportBundle'].output.parse(await ha['transfer.exportBundle']({ bundleId }, ctx));
    expect(out.fileName).toBe('demo.toolsmith-bundle.zip');

    const b = await openStore(path.join(await tempDir(), 'data'));
    const id = newId();
    const hb = transferHandlers({ store: b.store, testCases: new TestCaseStore({ dataDir: b.dataDir }), evalCases: new EvalCaseStore({ dataDir: b.dataDir }), newId: () => id });
    const input = operations['transfer.importBundle'].input.parse({ base64: out.base64 });
    const report = operations['transfer.importBundle'].output.parse(await hb['transfer.importBundle'](input, ctx));
    expect(report).toEqual({ bundleId: id, bundleSlug: 'demo', imported: ['echo@1'], conflicts: [], invalid: [], nothingImported: false });
  });

  it('bad base64 is VALIDATION_FAILED; a not-a-zip is a report that imports nothing', async () => {
    const s = await openStore(path.join(await tempDir(), 'data'));
    const h = transferHandlers({ store: s.store, testCases: new TestCaseStore({ dataDir: s.dataDir }), evalCases: new EvalCaseStore({ dataDir: s.dataDir }) });
    await expect(Promise.resolve().then(() => h['transfer.importBundle']({ base64: 'not base64!' }, ctx))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const report = await h['transfer.importBundle']({ base64: Buffer.from('hello').toString('base64') }, ctx);
    expect(report).toEqual({ imported: [], conflicts: [], invalid: [{ entry: '(archive)', message: 'this is not a ZIP archive' }], nothingImported: true });
    expect(() => decodeBase64('abc')).toThrow(AppError);
    expect([...decodeBase64('aGk=\n')]).toEqual([104, 105]);
  });

  it('parseOpenApi, and a curl proposal saved with tools.put semantics', async () => {
    const s = await openStore(path.join(await tempDir(), 'data'));
    const h = transferHandlers({ store: s.store, testCases: new TestCaseStore({ dataDir: s.dataDir }), evalCases: new EvalCaseStore({ dataDir: s.dataDir }) });
    const doc = JSON.stringify({ openapi: '3.0.0', info: { title: 'T', version: '1' }, servers: [{ url: 'https://t.example.com' }], paths: { '/x': { get: { operationId: 'getX', responses: {} } } } });
    const r = operations['transfer.parseOpenApi'].output.parse(await h['transfer.parseOpenApi']({ text: doc }, ctx));
    expect(r.operations.map((o) => o.slug)).toEqual(['get-x']);
    await expect(Promise.resolve().then(() => h['transfer.parseOpenApi']({ text: '{"swagger":"2.0"}' }, ctx))).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/Swagger 2\.0/) });

    const bundleId = newId();
    await s.store.putBundle(bundleId, bundleBody());
    const p = curlToTool(parseCurl(`curl -u me:pw 'https://api.example.com/v1/items/42?limit=5' -H 'Accept: application/json'`));
    const saved = await s.store.putTool(bundleId, p.suggestedSlug, '1', p.tool);
    expect(saved.http).toMatchObject({ urlTemplate: 'https://api.example.com/v1/items/${itemId}', auth: { kind: 'basic', username: 'me', passwordSecret: 'EXAMPLE_PASSWORD' } });
    expect(JSON.stringify(saved)).not.toContain('pw"');
  });
});
