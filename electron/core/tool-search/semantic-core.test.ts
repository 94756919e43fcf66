/**
 * Semantic search through the whole core: Settings → Tool search's "Test" embeds a sentence
 * with a saved provider's key (never echoed), and refuses clearly a provider that serves no
 * embeddings; the setting is saved and read back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { DIMS, fakeEmbeddings, type FakeEmbeddings } from './testing/fake-embeddings';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const KEY = 'sk-embeddings-key-0123456789';

async function start() {
  const fake: FakeEmbeddings = await fakeEmbeddings();
  closers.push(() => fake.close());
  const core: Core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
  closers.push(() => core.close());
  const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
    const r = await core.call(name, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
    return r.value as OpOutput<N>;
  };
  return { fake, call };
}

describe('semantic search in the core', () => {
  it('Test embeds one sentence with the provider\'s key and answers its dimensions; errors are sentences without the key', async () => {
    const { fake, call } = await start();
    const p = await call('providers.save', { provider: { name: 'Local embeddings', kind: 'openai-compatible', baseUrl: fake.baseUrl, apiKey: KEY } });
    const ok = await call('tools.testEmbeddings', { providerId: p.id, model: 'bag-of-words' });
    expect(ok).toMatchObject({ ok: true, dimensions: DIMS });
    expect(fake.requests).toEqual([{ auth: `Bearer ${KEY}`, model: 'bag-of-words', input: ['Send a text message to a customer'] }]);
    fake.mode = 'fail';
    const failed = await call('tools.testEmbeddings', { providerId: p.id, model: 'bag-of-words' });
    expect(failed.ok).toBe(false);
    expect(failed.message).toMatch(/^embeddings: the endpoint answered 500/);
    expect(failed.message).not.toContain(KEY);

    const a = await call('providers.save', { provider: { name: 'Anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com' } });
    expect(await call('tools.testEmbeddings', { providerId: a.id, model: 'x' })).toEqual({ ok: false, message: expect.stringMatching(/^Anthropic has no embeddings endpoint/) as unknown });
    expect((await call('tools.testEmbeddings', { providerId: 'gone', model: 'x' })).ok).toBe(false);
  });

  it('the setting is saved with the budget; on without a model is refused', async () => {
    const { fake, call } = await start();
    const p = await call('providers.save', { provider: { name: 'Local embeddings', kind: 'openai-compatible', baseUrl: fake.baseUrl } });
    const base = (await call('settings.get', {})).toolSearch;
    expect(base.semantic).toEqual({ enabled: false, providerId: '', model: '' });
    const saved = await call('settings.set', { toolSearch: { ...base, maxLoadedTokens: 20_000, semantic: { enabled: true, providerId: p.id, model: 'bag-of-words' } } });
    expect(saved.toolSearch).toMatchObject({ maxLoadedTokens: 20_000, semantic: { enabled: true, providerId: p.id, model: 'bag-of-words' } });
    await expect(call('settings.set', { toolSearch: { ...base, semantic: { enabled: true, providerId: p.id, model: '' } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
