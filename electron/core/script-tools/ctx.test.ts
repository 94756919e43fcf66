/**
 * What a script does through ctx, and script tools among the others: each template runs; ctx.call
 * reaches other tools through the dispatcher (their argSchema and log apply; a tool that asks is
 * refused unless the script asks too; nesting is bounded); a sequence runs a script step; the
 * limits and the trust of a called script hold.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCRIPT_TEMPLATES } from '../../../shared/model/script-ctx';
import { HttpTransport } from '../invoke/http/transport';
import { fakeLookup, startHttpServer, type TestServer } from '../invoke/http/testing/servers';
import { scriptBody, useScriptKits } from './testing/script-kit';

let api: TestServer;
beforeAll(async () => {
  api = await startHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ location: { name: 'Lyon' }, current: { temp_c: 21.5, condition: { text: 'Sunny' } }, auth: req.headers.authorization }));
  });
});
afterAll(() => api.close());

const kit = useScriptKits({ transport: new HttpTransport({ lookup: fakeLookup({ 'api.example.com': '127.0.0.1' }) }) });

describe('the templates', () => {
  it('each runs as written (the API one against a stand-in server for api.example.com)', async () => {
    const k = await kit();
    await k.core.settings.set({ allowedHosts: [`private:api.example.com:${api.port}`] });
    await k.core.secrets.set('WEATHER_KEY', 'wk-123456789', ['api.example.com']);
    const args: Record<string, unknown> = { 'transform-json': { items: [{ a: 'x' }, { a: 'y' }, { a: 'x' }, { b: 1 }], field: 'a' }, 'call-api': { city: 'Lyon' }, compute: { numbers: [3, 1, 2, 4] } };
    const results: Record<string, unknown> = {};
    for (const t of SCRIPT_TEMPLATES) {
      const source = t.source.replace('https://api.example.com', `http://api.example.com:${api.port}`);
      const r = await k.core.call('tools.tryDraft', { bundleId: k.bundleId, slug: t.id, version: '1', body: { ...scriptBody(source), argSchema: t.argSchema }, args: args[t.id] });
      if (!r.ok) throw new Error(`${t.id}: ${r.error.message}`);
      results[t.id] = (r.value as { value: unknown }).value;
    }
    expect(results).toEqual({
      'transform-json': { values: ['x', 'y', 'x'], counts: { x: 2, y: 1 } },
      'call-api': { city: 'Lyon', temperatureC: 21.5, summary: 'Sunny' },
      compute: { n: 4, mean: 2.5, median: 2.5, sd: Math.sqrt(1.25), min: 1, max: 4 },
    });
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer wk-123456789');
  });
});

describe('ctx.call', () => {
  it('calls a built-in, another script and one by bundle/slug@version, through the dispatcher (argSchema checked, each call logged)', async () => {
    const k = await kit();
    await k.put('double', 'function run(a) { return a.n * 2 }', { argSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } });
    await k.put(
      'caller',
      `async function run(a, ctx) {
        const calc = await ctx.call('math/calc@1', { expression: '6 * 7' });
        const twice = await ctx.call('double', { n: 21 });
        let refused;
        try { await ctx.call('double', { n: 'x' }); } catch (e) { refused = { name: e.name, code: e.code, message: e.message }; }
        let missing;
        try { await ctx.call('nope'); } catch (e) { missing = e.code; }
        return { calc, twice, refused, missing };
      }`,
    );
    const r = await k.invoke('caller');
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value as { value: unknown }).value).toEqual({
      calc: expect.anything(),
      twice: 42,
      refused: { name: 'ToolError', code: 'VALIDATION_FAILED', message: expect.stringMatching(/^ctx\.call\('double'\) failed: the arguments do not match double's argSchema/) },
      missing: 'NOT_FOUND',
    });
    // The two calls of 'double' are in its history as steps (the log writes in batches).
    const double = k.core.registry.store.getTool(k.bundleId, 'double', '1');
    await vi.waitFor(async () => {
      const log = await k.core.call('invocations.list', { toolId: double.id });
      expect(log.ok && log.value.map((x) => x.source)).toEqual(['step', 'step']);
    });
  });

  it('refuses a tool that asks unless the script tool asks itself, and bounds how deep calls nest', async () => {
    const k = await kit();
    await k.put('guarded', 'function run() { return "guarded ran" }', { requiresApproval: true });
    const callGuarded = 'async function run(a, ctx) { return await ctx.call("guarded") }';
    await k.put('sneaky', callGuarded);
    const refused = await k.invoke('sneaky');
    expect(refused.ok || refused.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/ctx\.call: 'guarded' asks before it runs, so a script may call it only if the script tool asks too/) });
    await k.put('honest', callGuarded, { requiresApproval: true });
    const ok = await k.invoke('honest');
    expect(ok.ok && (ok.value as { value: unknown }).value).toBe('guarded ran');
    await k.put('self', 'async function run(a, ctx) { return await ctx.call("self") }');
    const deep = await k.invoke('self');
    expect(deep.ok || deep.error.message).toMatch(/calls nest more than 8 deep/);
  });

  it('a sequence runs a script step, and an untrusted script step is refused until trusted', async () => {
    const k = await kit();
    await k.put('inc', 'function run(a) { return { n: a.n + 1 } }');
    const seq = await k.core.call('tools.put', {
      bundleId: k.bundleId,
      slug: 'twice',
      version: '1',
      body: {
        displayName: 'Twice',
        description: '',
        tags: [],
        type: 'sequence',
        argSchema: { type: 'object' },
        outputSchema: {},
        sequence: { steps: [{ id: 'a', tool: { bundleId: k.bundleId, slug: 'inc', version: '1' }, args: { n: '${args.n}' } }, { id: 'b', tool: { bundleId: k.bundleId, slug: 'inc', version: '1' }, args: { n: '${steps.a.value.n}' } }] },
        isEnabled: true,
      },
    });
    expect(seq.ok).toBe(true);
    const r = await k.invoke('twice', { n: 1 });
    expect(r.ok && (r.value as { value: unknown }).value).toEqual({ n: 3 });
    // A script put straight into the store (as an import does) is not trusted: its step is refused, and the sequence asks.
    await k.core.registry.store.putTool(k.bundleId, 'inc', '2', scriptBody('function run(a) { return { n: a.n + 100 } }'));
    const seq2 = await k.core.call('tools.put', { bundleId: k.bundleId, slug: 'twice', version: '2', body: { displayName: 'T', description: '', tags: [], type: 'sequence', argSchema: { type: 'object' }, outputSchema: {}, sequence: { steps: [{ id: 'a', tool: { bundleId: k.bundleId, slug: 'inc', version: '2' }, args: { n: '${args.n}' } }] }, isEnabled: true } });
    expect(seq2.ok).toBe(true);
    expect(await k.core.call('tools.approval', { bundleId: k.bundleId, slug: 'twice', version: '2' })).toEqual({ ok: true, value: { reason: { kind: 'step', step: 'a', tool: 'inc@2' } } });
    const refused = await k.invoke('twice', { n: 1 }, { version: '2' });
    expect(refused.ok || refused.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/step 'a' \(inc\) failed: 'inc' version '2' is a script tool that was not written in this app/) });
  });
});
