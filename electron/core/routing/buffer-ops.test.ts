import fs from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinToolConfig } from '../../../shared/model/tool';
import { AJV_OPTIONS } from '../bundles/schema-check';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { appError, testContext } from '../builtin-functions/test-context';
import type { LocalFunction, LocalToolContext } from '../invoke/types';
import { createBufferOpsFunction } from './buffer-ops';
import { FileBufferStore } from './buffer-store';

const tempDir = useTempDirs();
const stores: FileBufferStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

let config: BuiltinToolConfig;
const ajv = new Ajv2020(AJV_OPTIONS);
let validArgs: ReturnType<typeof ajv.compile>;
let validOut: ReturnType<typeof ajv.compile>;

beforeAll(async () => {
  config = JSON.parse(await fs.readFile(path.join(RESOURCES_DIR, 'bundles', 'buffers', 'tools', 'buffer-ops.json'), 'utf8')) as BuiltinToolConfig;
  validArgs = ajv.compile(config.argSchema);
  validOut = ajv.compile(config.outputSchema);
});

async function setup(): Promise<{ fn: LocalFunction; ctx: LocalToolContext; store: FileBufferStore; ws: string }> {
  const dataDir = await tempDir();
  const ws = await tempDir();
  const store = new FileBufferStore({ dataDir, workspaceDir: ws, now: () => new Date('2026-02-01T10:00:00Z') });
  stores.push(store);
  const fn = createBufferOpsFunction(store);
  return { fn, ctx: testContext(ws, { ownerId: 'conv-1' }), store, ws };
}

/** Calls the tool as a model would: the arguments and the answer checked against the config's schemas. */
async function call(fn: LocalFunction, ctx: LocalToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  expect(validArgs(args), `args ${JSON.stringify(args)}: ${ajv.errorsText(validArgs.errors)}`).toBe(true);
  const out = (await fn(ctx, args, ctx.signal)) as Record<string, unknown>;
  expect(validOut(out), `output ${JSON.stringify(out).slice(0, 300)}: ${ajv.errorsText(validOut.errors)}`).toBe(true);
  return out;
}

describe('buffer_ops', () => {
  it('is the built-in tool buffers/buffer-ops, naming the function buffers.ops', () => {
    expect(config).toMatchObject({ slug: 'buffer-ops', type: 'local', local: { functionId: 'buffers.ops' } });
  });

  it('list, info, peek and read, as documented', async () => {
    const { fn, ctx, store } = await setup();
    expect(await call(fn, ctx, { operation: 'list' })).toEqual({ operation: 'list', buffers: [] });
    const content = Array.from({ length: 300 }, (_, i) => `line ${i + 1}${i % 50 === 0 ? ' TODO' : ''}`).join('\n');
    await store.write('conv-1', 'search_results', content, 'append', 'tool:grep');
    expect(await call(fn, ctx, { operation: 'list' })).toEqual({
      operation: 'list',
      buffers: [{ name: 'search_results', chars: content.length, lines: 300, bytes: content.length, updatedAt: '2026-02-01T10:00:00.000Z', source: 'tool:grep' }],
    });
    expect(await call(fn, ctx, { operation: 'info', target: 'search_results' })).toMatchObject({ operation: 'info', name: 'search_results', chars: content.length, lines: 300, createdAt: '2026-02-01T10:00:00.000Z', source: 'tool:grep' });
    expect(await call(fn, ctx, { operation: 'peek', target: 'search_results', offset: 0, max_chars: 12 })).toEqual({
      operation: 'peek',
      name: 'search_results',
      offset: 0,
      text: 'line 1 TODO\n',
      chars: 12,
      totalChars: content.length,
      more: true,
      nextOffset: 12,
    });
    const tail = await call(fn, ctx, { operation: 'peek', target: 'search_results', offset: content.length - 3 });
    expect(tail).toMatchObject({ text: '300', more: false });
    expect(tail.nextOffset).toBeUndefined();
    expect(await call(fn, ctx, { operation: 'read', target: 'search_results', start_line: 1, end_line: 200 })).toMatchObject({ operation: 'read', startLine: 1, endLine: 200, totalLines: 300 });
    expect(await call(fn, ctx, { operation: 'read', target: 'search_results', offset: 5, length: 6 })).toMatchObject({ text: '1 TODO', startLine: 1, endLine: 1 });
  });

  it('search takes the text in target and the buffer in scope, or the text in query', async () => {
    const { fn, ctx, store } = await setup();
    await store.write('conv-1', 'search_results', 'a\nb TODO\nc\nTODO d\n', 'append', 's');
    const seed = await call(fn, ctx, { operation: 'search', target: 'TODO', scope: 'search_results' });
    expect(seed).toMatchObject({ operation: 'search', name: 'search_results', query: 'TODO', more: false, scannedChars: 18 });
    expect(seed.matches).toEqual([
      { line: 2, column: 2, length: 4, text: 'b TODO', before: ['a'], after: ['c'] },
      { line: 4, column: 0, length: 4, text: 'TODO d', before: ['c'], after: [] },
    ]);
    const byQuery = await call(fn, ctx, { operation: 'search', query: 'todo', target: 'search_results', case_sensitive: false, context_lines: 0, max_matches: 1 });
    expect(byQuery).toMatchObject({ matches: [{ line: 2, before: [], after: [] }], more: true });
    const re = await call(fn, ctx, { operation: 'search', query: '^[a-c]$', regex: true, scope: 'search_results', context_lines: 0 });
    expect((re.matches as { line: number }[]).map((m) => m.line)).toEqual([1, 3]);
    expect((await appError(fn(ctx, { operation: 'search', target: 'TODO' }, ctx.signal))).message).toMatch(/scope="search_results"/);
    expect((await appError(fn(ctx, { operation: 'search', scope: 'search_results' }, ctx.signal))).message).toMatch(/text to find/);
  });

  it('export writes the buffer to a workspace file', async () => {
    const { fn, ctx, store, ws } = await setup();
    await store.write('conv-1', 'search_results', 'found it', 'append', 's');
    expect(await call(fn, ctx, { operation: 'export', target: 'search_results', destination: 'reports/search_results.md' })).toEqual({
      operation: 'export',
      name: 'search_results',
      path: 'reports/search_results.md',
      chars: 8,
      writeMode: 'append',
    });
    expect(await fs.readFile(path.join(ws, 'reports/search_results.md'), 'utf8')).toBe('found it');
    expect(await call(fn, ctx, { operation: 'export', target: 'search_results', destination: 'reports/search_results.md', write_mode: 'new' })).toMatchObject({ path: 'reports/search_results-2.md' });
    expect((await appError(fn(ctx, { operation: 'export', target: 'search_results', destination: '../out.md' }, ctx.signal))).code).toBe('FORBIDDEN');
  });

  it('refuses a read without a range, and says how to ask', async () => {
    const { fn, ctx, store } = await setup();
    await store.write('conv-1', 'b', 'x\n', 'append', 's');
    const e = await appError(fn(ctx, { operation: 'read', target: 'b' }, ctx.signal));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toMatch(/startLine and endLine/);
    expect((await appError(fn(ctx, { operation: 'info', target: 'nope' }, ctx.signal))).code).toBe('NOT_FOUND');
    expect((await appError(fn(ctx, { operation: 'peek', target: 'b', offset: 99 }, ctx.signal))).message).toMatch(/past the end/);
  });

  it('refuses calls without an owner, a missing or unknown operation, and odd arguments', async () => {
    const { fn, ws } = await setup();
    const noOwner = testContext(ws);
    const e = await appError(fn(noOwner, { operation: 'list' }, noOwner.signal));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toBe('buffer_ops runs inside a conversation or a workflow run: only there are there buffers to use');
    const ctx = testContext(ws, { ownerId: 'conv-1' });
    for (const args of [{}, { operation: 'nope' }, { operation: 7 }, { operation: 'info' }, { operation: 'info', target: 5 }, { operation: 'peek', target: 'b', max_chars: 0 }, null]) {
      expect((await appError(fn(ctx, args as Record<string, unknown>, ctx.signal))).code, JSON.stringify(args)).toBe('VALIDATION_FAILED');
    }
  });

  it('works with a store bound late, and says so while there is none', async () => {
    const { store, ws } = await setup();
    const slot: { store?: FileBufferStore } = {};
    const fn = createBufferOpsFunction(() => slot.store);
    const ctx = testContext(ws, { ownerId: 'conv-1' });
    expect((await appError(fn(ctx, { operation: 'list' }, ctx.signal))).code).toBe('UNAVAILABLE');
    slot.store = store;
    expect(await fn(ctx, { operation: 'list' }, ctx.signal)).toEqual({ operation: 'list', buffers: [] });
  });
});
