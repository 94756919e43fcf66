/** Script tools through the core: saved as a readable .js beside the tool's .json, run through the dispatcher, with logs, limits from Settings, drafts, versions. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRIPT_SETTINGS } from '../../../shared/model/script-tool';
import { toolFileName } from '../bundles/layout';
import { sha256Hex } from '../bundles/script-files';
import { scriptBody, useScriptKits } from './testing/script-kit';

const kit = useScriptKits();

const ADD = `/** @param {{a: number, b: number}} args */
function run(args, ctx) {
  ctx.log('adding', args.a, 'and', args.b);
  console.warn('careful');
  return { sum: args.a + args.b };
}
`;

describe('a script tool', () => {
  it('is saved as a readable .js beside its .json, which records its SHA-256, and runs through the dispatcher with its logs', async () => {
    const k = await kit();
    const view = await k.put('add', ADD, { argSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });
    expect(view.type).toBe('script');
    expect(view.script).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const toolsDir = path.join(k.dataDir, 'bundles', k.bundleId, 'tools');
    const json = toolFileName('add', '1');
    expect((await fs.readdir(toolsDir)).sort()).toEqual([json.replace(/\.json$/, '.js'), json].sort());
    expect(await fs.readFile(path.join(toolsDir, json.replace(/\.json$/, '.js')), 'utf8')).toBe(ADD);
    const onDisk = JSON.parse(await fs.readFile(path.join(toolsDir, json), 'utf8')) as { script: unknown };
    expect(onDisk.script).toEqual({ sha256: view.script!.sha256 });

    const r = await k.invoke('add', { a: 2, b: 3 });
    if (!r.ok) throw new Error(r.error.message);
    const value = r.value as { value: unknown; logs: { level: string; text: string }[] };
    expect(value.value).toEqual({ sum: 5 });
    expect(value.logs.map((l) => [l.level, l.text])).toEqual([
      ['log', 'adding 2 and 3'],
      ['warn', 'careful'],
    ]);
    // The history keeps the logs too.
    await k.core.dispatcher.invoke({ bundleId: k.bundleId, slug: 'add', version: '1', args: { a: 1, b: 1 }, source: 'api' });
    const src = await k.core.call('tools.scriptSource', { bundleId: k.bundleId, slug: 'add', version: '1' });
    expect(src).toEqual({ ok: true, value: { source: ADD, sha256: view.script!.sha256 } });
  });

  it('is checked against its argSchema and outputSchema like any tool, and answers a script error with its line and the logs written before', async () => {
    const k = await kit();
    await k.put('strict', 'function run(a, ctx) { ctx.log("before"); if (a.fail) throw new TypeError("no thanks"); return { n: "not a number" }; }', {
      argSchema: { type: 'object', properties: { fail: { type: 'boolean' } }, additionalProperties: false },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    });
    const badArgs = await k.invoke('strict', { other: 1 });
    expect(badArgs.ok || badArgs.error.code).toBe('VALIDATION_FAILED');
    const thrown = await k.invoke('strict', { fail: true });
    if (thrown.ok) throw new Error('expected an error');
    expect(thrown.error.code).toBe('UNAVAILABLE');
    expect(thrown.error.message).toMatch(/TypeError: no thanks \(at strict\.js:1:\d+\)/);
    expect((thrown.error.details as { logs: { text: string }[] }).logs.map((l) => l.text)).toEqual(['before']);
    const badOutput = await k.invoke('strict', {});
    expect(badOutput.ok || badOutput.error.message).toMatch(/does not match its outputSchema/);
  });

  it('keeps its versions: the same version again is a conflict, a new version has its own .js', async () => {
    const k = await kit();
    await k.put('v', 'function run() { return 1 }');
    const again = await k.core.call('tools.put', { bundleId: k.bundleId, slug: 'v', version: '1', body: scriptBody('function run() { return 2 }') });
    expect(again.ok || again.error.code).toBe('CONFLICT');
    await k.put('v', 'function run() { return 2 }', { version: '2' });
    const one = await k.invoke('v', {}, { version: '1' });
    const two = await k.invoke('v', {}, { version: '2' });
    expect([one.ok && (one.value as { value: unknown }).value, two.ok && (two.value as { value: unknown }).value]).toEqual([1, 2]);
    // Deleting a version removes its .js with its .json.
    await k.core.call('tools.delete', { bundleId: k.bundleId, slug: 'v', version: '1' });
    const names = await fs.readdir(path.join(k.dataDir, 'bundles', k.bundleId, 'tools'));
    expect(names.filter((n) => n.startsWith('v@1.'))).toEqual([]);
    expect(names.filter((n) => n.startsWith('v@2.'))).toHaveLength(2);
  });

  it('saves a source that starts with a byte order mark without it, hashed as it is read back, and runs it (saved here or imported)', async () => {
    const k = await kit();
    const SOURCE = 'function run() { return 1 }\n';
    const view = await k.put('bom', `\uFEFF${SOURCE}`);
    expect(view.script!.sha256).toBe(sha256Hex(SOURCE));
    const js = path.join(k.dataDir, 'bundles', k.bundleId, 'tools', toolFileName('bom', '1').replace(/\.json$/, '.js'));
    expect(await fs.readFile(js, 'utf8')).toBe(SOURCE);
    const r = await k.invoke('bom');
    expect(r.ok ? (r.value as { value: unknown }).value : `${r.error.code}: ${r.error.message}`).toBe(1);
    // As an import puts it (untrusted): the same source, so trusted by the save above, and it runs.
    const imported = await k.core.registry.store.putTool(k.bundleId, 'bom-imported', '1', scriptBody(`\uFEFF${SOURCE}`));
    expect(imported.script!.sha256).toBe(sha256Hex(SOURCE));
    const i = await k.invoke('bom-imported');
    expect(i.ok ? (i.value as { value: unknown }).value : `${i.error.code}: ${i.error.message}`).toBe(1);
    // A draft is hashed as its saved version would be.
    const d = await k.core.call('tools.tryDraft', { bundleId: k.bundleId, slug: 'bom-draft', version: '1', body: scriptBody(`\uFEFF${SOURCE}`), args: {} });
    expect(d.ok ? (d.value as { value: unknown }).value : `${d.error.code}: ${d.error.message}`).toBe(1);
  });

  it('runs the editor\'s draft without saving it, and sends its log lines live as invocation.event kind "log"', async () => {
    const k = await kit();
    const live: unknown[] = [];
    k.core.events.on('invocation.event', (e) => live.push(e));
    const r = await k.core.call('tools.tryDraft', {
      bundleId: k.bundleId,
      slug: 'draft-one',
      version: '1',
      body: scriptBody('async function run(a, ctx) { ctx.log("one"); await null; ctx.log("two", {x: 1}); return a.q * 2 }'),
      args: { q: 21 },
    });
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value as { value: unknown }).value).toBe(42);
    expect(live).toEqual([
      { invocationId: r.value.invocationId, kind: 'log', data: { level: 'log', text: 'one', atMs: expect.any(Number) } },
      { invocationId: r.value.invocationId, kind: 'log', data: { level: 'log', text: 'two {"x":1}', atMs: expect.any(Number) } },
    ]);
    expect((await fs.readdir(path.join(k.dataDir, 'bundles', k.bundleId, 'tools')).catch(() => [])).length).toBe(0);
  });

  it('runs with Settings → Script tools limits unless it sets its own', async () => {
    const k = await kit();
    expect(k.core.settings.get().scriptTools).toEqual(DEFAULT_SCRIPT_SETTINGS);
    await k.core.settings.set({ scriptTools: { ...DEFAULT_SCRIPT_SETTINGS, maxOutputBytes: 2048 } });
    await k.put('big', 'function run() { return "x".repeat(3000) }');
    await k.put('big-ok', 'function run() { return "x".repeat(3000) }', { limits: { maxOutputBytes: 8192 } });
    const big = await k.invoke('big');
    expect(big.ok || big.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/3002 bytes as JSON; this tool returns at most 2048 bytes/) });
    const ok = await k.invoke('big-ok');
    expect(ok.ok).toBe(true);
  });

  it('refuses a body whose script is empty, too big or not a script spec, naming the field', async () => {
    const k = await kit();
    const put = (script: unknown) => k.core.call('tools.put', { bundleId: k.bundleId, slug: 'bad', version: '1', body: { ...scriptBody('x'), script } as never });
    for (const [script, words] of [
      [{ source: '' }, /the script is empty/],
      [{ source: 'x'.repeat(300 * 1024) }, /at most 256 KiB/],
      [{ sha256: 'a'.repeat(64) }, /source/],
      [{ source: 'function run(){}', timeLimitMs: 1 }, /timeLimitMs/],
      [undefined, /needs script: \{source\}/],
    ] as const) {
      const r = await put(script);
      expect(r.ok || `${r.error.code} ${r.error.message}`).toMatch(words);
    }
  });
});
