/**
 * Settings' regexTimeLimitMs through the whole core: it bounds a buffer search and the
 * `grep` tool, and a change applies to the next search without a restart.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { DEFAULT_SETTINGS, REGEX_TIME_LIMIT_DEFAULT_MS } from '../../../shared/model/settings';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function start() {
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
  cores.push(core);
  const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
    const r = await core.call(name, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
    return r.value as OpOutput<N>;
  };
  /** The error a call fails with. */
  const failure = async <N extends OpName>(name: N, input: OpInput<N>) => {
    const r = await core.call(name, input);
    if (r.ok) throw new Error(`${name} did not fail`);
    return r.error;
  };
  return { core, call, failure };
}

const EVIL = `${'a'.repeat(40_000)}b\n`;

describe("Settings' regex time limit", () => {
  it('is 4 s by default and bounded', async () => {
    const { call, failure } = await start();
    expect(DEFAULT_SETTINGS.regexTimeLimitMs).toBe(REGEX_TIME_LIMIT_DEFAULT_MS);
    expect((await call('settings.get', {})).regexTimeLimitMs).toBe(4000);
    expect((await failure('settings.set', { regexTimeLimitMs: 50 })).code).toBe('VALIDATION_FAILED');
    expect((await failure('settings.set', { regexTimeLimitMs: 120_000 })).code).toBe('VALIDATION_FAILED');
  });

  it('stops a hostile buffer search and a hostile grep with TIMEOUT after the limit set, read at each search', async () => {
    const { core, call, failure } = await start();
    await fs.writeFile(path.join(core.workspaceDir(), 'evil.txt'), EVIL);
    const c = await call('conversations.create', {});
    await call('chat.send', { conversationId: c.id, text: '@model none\n@input file:evil.txt (output=variable:evil)' });
    const search = { ownerId: c.id, name: 'evil', query: '(a+)+$', regex: true } as const;

    await call('settings.set', { regexTimeLimitMs: 300 });
    expect(await failure('buffers.search', search)).toMatchObject({ code: 'TIMEOUT', details: { field: 'query', timeoutMs: 300 } });
    await call('settings.set', { regexTimeLimitMs: 200 });
    expect(await failure('buffers.search', search)).toMatchObject({ code: 'TIMEOUT', details: { field: 'query', timeoutMs: 200 } });

    const grep = core.registry.store.allTools().find((t) => t.slug === 'grep')!;
    const e = await failure('tools.invoke', { bundleId: grep.bundleId, slug: grep.slug, version: grep.version, args: { pattern: '(a+)+$' } });
    expect(e).toMatchObject({ code: 'TIMEOUT', details: { field: 'pattern', timeoutMs: 200 } });
    expect(e.message).toMatch(/ran longer than 200 ms/);
  });
});
