/**
 * Settings → Limits → Tools per bundle through the core as the app, the REST API and the CLI
 * use it: the setting's default and bounds, tools.put refused past it, and a bundle ZIP import
 * that would pass it reported and undone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { ErrorInfo } from '../../../shared/errors';
import { TOOLS_PER_BUNDLE_DEFAULT, TOOLS_PER_BUNDLE_MAX, TOOLS_PER_BUNDLE_MIN } from '../../../shared/model/settings';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { bundleBody, localToolBody, newId } from './testing/fixtures';

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
  /** The error envelope of a call that must fail. */
  const refusal = async <N extends OpName>(name: N, input: OpInput<N>): Promise<ErrorInfo> => {
    const r = await core.call(name, input);
    if (r.ok) throw new Error(`${name} succeeded`);
    return r.error;
  };
  return { core, call, refusal };
}

const tool = (over: Record<string, unknown> = {}) => localToolBody({ local: { functionId: 'text.count' }, ...over }) as OpInput<'tools.put'>['body'];

describe('Tools per bundle through the core', () => {
  it('defaults to 500; a value outside 1–10,000 or not a whole number is refused and changes nothing', async () => {
    const { call, refusal } = await start();
    expect(TOOLS_PER_BUNDLE_DEFAULT).toBe(500);
    expect((await call('settings.get', {})).maxToolsPerBundle).toBe(TOOLS_PER_BUNDLE_DEFAULT);
    for (const bad of [0, TOOLS_PER_BUNDLE_MIN - 1, TOOLS_PER_BUNDLE_MAX + 1, 2.5, -3]) {
      const e = await refusal('settings.set', { maxToolsPerBundle: bad });
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(e)).toMatch(/maxToolsPerBundle/);
    }
    expect((await call('settings.get', {})).maxToolsPerBundle).toBe(500);
    for (const ok of [TOOLS_PER_BUNDLE_MIN, TOOLS_PER_BUNDLE_MAX, 42]) expect((await call('settings.set', { maxToolsPerBundle: ok })).maxToolsPerBundle).toBe(ok);
  });

  it('tools.put past the limit is CONFLICT bundle-tool-limit; raising the limit lets the same request through', async () => {
    const { call, refusal } = await start();
    await call('settings.set', { maxToolsPerBundle: 2 });
    const bundleId = newId();
    await call('bundles.put', { bundleId, body: bundleBody({ slug: 'weather' }) as OpInput<'bundles.put'>['body'] });
    await call('tools.put', { bundleId, slug: 'a', version: '1', body: tool() });
    await call('tools.put', { bundleId, slug: 'b', version: '1', body: tool() });
    const e = await refusal('tools.put', { bundleId, slug: 'c', version: '1', body: tool() });
    expect(e).toEqual({
      code: 'CONFLICT',
      message: "bundle 'weather' holds 2 tools, the most Settings → Limits → Tools per bundle allows (2); delete some of its tools, put the new one in another bundle, or raise the limit",
      details: { bundleId, held: 2, limit: 2, rule: 'bundle-tool-limit' },
    });
    // PATCH is not a new tool.
    expect((await call('tools.patch', { bundleId, slug: 'a', version: '1', isEnabled: false })).isEnabled).toBe(false);
    await call('settings.set', { maxToolsPerBundle: 3 });
    expect((await call('tools.put', { bundleId, slug: 'c', version: '1', body: tool() })).slug).toBe('c');
  });

  it('a bundle ZIP with more tools than the limit is refused whole, saying why, and leaves no tool behind', async () => {
    const { core, call } = await start();
    const bundleId = newId();
    await call('bundles.put', { bundleId, body: bundleBody({ slug: 'many' }) as OpInput<'bundles.put'>['body'] });
    for (const slug of ['a', 'b', 'c', 'd']) await call('tools.put', { bundleId, slug, version: '1', body: tool() });
    const zip = await call('transfer.exportBundle', { bundleId });
    await call('settings.set', { maxToolsPerBundle: 3 });
    const before = core.registry.store.allTools().length;

    const report = await call('transfer.importBundle', { base64: zip.base64 });
    expect(report.nothingImported).toBe(true);
    expect(report.imported).toEqual([]);
    // Imported beside 'many', so as 'many-2'.
    expect(report.invalid.map((i) => i.message).join('\n')).toMatch(/bundle 'many-2' holds 3 tools, the most Settings → Limits → Tools per bundle allows \(3\)/);
    expect(core.registry.store.allTools()).toHaveLength(before);
  });
});
