import { countTokens } from 'gpt-tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();
const closers: Core[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});


async function start() {
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
  closers.push(core);
  const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
    const r = await core.call(name, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
    return r.value as OpOutput<N>;
  };
  const calc = (await call('tools.search', { q: 'calc' })).items.map((h) => h.tool).find((t) => t.slug === 'calc')!;
  return { call, calc };
}

describe('usage operations through the core', () => {
  it('counts calls, errors by code, latency and result sizes of real calls, for one tool and for many in one call', async () => {
    const { call, calc } = await start();
    const ref = { bundleId: calc.bundleId, slug: 'calc', version: calc.version };
    const ok1 = await call('tools.invoke', { ...ref, args: { expression: '1+2' } });
    const ok2 = await call('tools.invoke', { ...ref, args: { expression: '2^10' } });
    for (const args of [{}, { expression: '' }, { expression: '1/0' }]) await expect(call('tools.invoke', { ...ref, args })).rejects.toThrow();

    const stats = await call('tools.usageStats', { ...ref, timeZone: 'Europe/Berlin' });
    const sizes = [ok1.value, ok2.value].map((v) => Buffer.byteLength(JSON.stringify(v))).sort((a, b) => a - b);
    expect(stats).toMatchObject({ toolId: calc.id, timeZone: 'Europe/Berlin', calls: 5, errors: 3, errorRate: 0.6, resultBytes: { median: sizes[0], max: sizes[1] } });
    expect(stats.errorsByCode).toEqual([{ code: 'VALIDATION_FAILED', count: 3 }]);
    expect(stats.latencyHistogram.reduce((n, b) => n + b.count, 0)).toBe(5);
    expect(stats.days.reduce((n, d) => n + d.calls, 0)).toBe(5);
    expect(stats.days).toHaveLength(30);

    const other = (await call('tools.search', { q: 'readfile' })).items.map((h) => h.tool).find((t) => t.slug === 'readfile')!;
    await expect(call('tools.invoke', { bundleId: other.bundleId, slug: 'readfile', version: other.version, args: { path: 'no-such-file.txt' } })).rejects.toThrow();
    const read = await call('tools.usageStats', { bundleId: other.bundleId, slug: 'readfile', version: other.version });
    expect(read).toMatchObject({ calls: 1, errors: 1, errorRate: 1, errorsByCode: [{ code: 'NOT_FOUND', count: 1 }] });
    expect(read.resultBytes).toBeUndefined();
    const sums = await call('tools.usageSummaries', { toolIds: [calc.id, other.id] });
    expect(sums.timeZone).toBe('UTC');
    expect(sums.items.map((i) => [i.toolId, i.calls, i.errors])).toEqual([
      [calc.id, 5, 3],
      [other.id, 1, 1],
    ]);
    await expect(call('tools.usageSummaries', { toolIds: [], timeZone: 'Nowhere/Land' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining("'Nowhere/Land' is not a time zone") });
  });

  it("counts each tool's results in a conversation's tokens: calls, errors and tokens of what the model is given", async () => {
    const { call, calc } = await start();
    const { id } = await call('conversations.create', { title: 'tokens' });
    const ref = { conversationId: id, bundleId: calc.bundleId, slug: 'calc', version: calc.version };
    await call('chat.runTool', { ...ref, args: { expression: '1+2' } });
    await call('chat.runTool', { ...ref, args: { expression: 'sqrt(16) * 1000000' } });
    await call('chat.runTool', { ...ref, args: { expression: '1/0' } });
    const cards = (await call('conversations.get', { id })).messages.map((m) => m.tool!);
    const texts = cards.map((c) => (c.status === 'ok' ? JSON.stringify(c.value) : c.error!.message));
    const expected = texts.reduce((n, t) => n + countTokens(t), 0);
    expect(expected).toBeGreaterThan(10);

    const use = await call('conversations.toolTokens', { id });
    expect(use).toEqual({
      tools: [{ bundleId: calc.bundleId, slug: 'calc', displayName: calc.displayName, calls: 3, errors: 1, tokens: expected }],
      totalTokens: expected,
      counter: 'gpt-tokenizer (o200k_base), an estimate for this model',
      exact: false,
    });
    await expect(call('conversations.toolTokens', { id: 'no-such-conversation' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
