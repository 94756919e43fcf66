import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operations } from '../../../../shared/contract';
import { ProviderClients } from './client-factory';
import { defaultCandidates } from './detect';
import { ProviderStore } from './provider-store';
import type { CallContext } from '../../router';
import { KeyFileCipher } from '../../secrets/cipher';
import { SecretStore } from '../../secrets/secret-store';
import { startScriptedModelServer, type ScriptedModelServer } from '../../testing/scripted-model-server';
import { useTempDirs } from '../../testing/temp-dir';
import { detectLocalProviders } from './detect';
import { providerHandlers } from './provider-handlers';

const tempDir = useTempDirs();
const ctx: CallContext = { transport: 'direct' };
const KEY = 'sk-handler-test-987654321';
let server: ScriptedModelServer;
let other: ScriptedModelServer | undefined;

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
  await other?.close();
  other = undefined;
});

async function setup() {
  const dataDir = await tempDir();
  const secrets = new SecretStore({ dataDir, cipher: new KeyFileCipher(dataDir) });
  await secrets.open();
  const providers = await ProviderStore.open({ dataDir, secrets, now: () => new Date() });
  const clients = new ProviderClients({ providers, secrets });
  const h = providerHandlers({
    providers,
    clients,
    // The usual ports stand for the scripted server's, so nothing real is probed.
    detect: (saved) => detectLocalProviders({ saved, candidates: defaultCandidates({ ollama: server.port, lmStudio: other?.port ?? 9 }) }),
  });
  return { secrets, providers, clients, h };
}

const out = <N extends keyof typeof operations>(name: N, value: unknown): import('zod').infer<(typeof operations)[N]['output']> =>
  operations[name].output.parse(value) as import('zod').infer<(typeof operations)[N]['output']>;

describe('provider handlers', () => {
  it('save → list → test: "Connected: N models", the models kept, the key sent as Bearer and never returned', async () => {
    const { h, providers } = await setup();
    server.setModels(['llama3.2', 'qwen2.5-coder']);
    const saved = out('providers.save', await h['providers.save']({ provider: { name: 'Local', kind: 'openai-compatible', baseUrl: server.url, apiKey: KEY } }, ctx));
    expect(saved.hasKey).toBe(true);
    expect(JSON.stringify(saved)).not.toContain(KEY);
    expect(JSON.stringify(out('providers.list', await h['providers.list']({}, ctx)))).not.toContain(KEY);

    const verdict = out('providers.test', await h['providers.test']({ id: saved.id }, ctx));
    expect(verdict).toMatchObject({ ok: true, models: ['llama3.2', 'qwen2.5-coder'] });
    expect(verdict.message).toMatch(/^Connected: 2 models \(\d+ ms\)$/);
    expect(typeof verdict.latencyMs).toBe('number');
    expect(providers.get(saved.id)!.models).toEqual(['llama3.2', 'qwen2.5-coder']);
    expect(server.requests.at(-1)).toMatchObject({ path: '/v1/models', authorization: `Bearer ${KEY}` });
  });

  it('test verdicts for a refused key, a server that is down, no models', async () => {
    const { h } = await setup();
    const p = await h['providers.save']({ provider: { name: 'Local', kind: 'openai-compatible', baseUrl: server.url, apiKey: KEY } }, ctx);
    server.failModels({ status: 401, body: { error: { message: `bad key ${KEY}` } } });
    const refused = out('providers.test', await h['providers.test']({ id: p.id }, ctx));
    expect(refused).toEqual({ ok: false, message: 'the provider refused the key (401): check it in Settings' });

    server.failModels(undefined);
    server.setModels([]);
    const empty = await h['providers.test']({ id: p.id }, ctx);
    expect(empty.ok).toBe(true);
    expect(empty.message).toContain('lists no models');

    const down = await h['providers.save']({ provider: { name: 'Down', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' } }, ctx);
    const verdict = await h['providers.test']({ id: down.id }, ctx);
    expect(verdict.ok).toBe(false);
    expect(verdict.message).toContain('cannot reach http://127.0.0.1:9/v1: is the server running?');
  });

  it('a test that does not answer in time: a verdict, not a hang', async () => {
    const dataDir = await tempDir();
    const secrets = new SecretStore({ dataDir, cipher: new KeyFileCipher(dataDir) });
    await secrets.open();
    const providers = await ProviderStore.open({ dataDir, secrets, now: () => new Date() });
    const h = providerHandlers({ providers, clients: new ProviderClients({ providers, secrets }), testTimeoutMs: 200 });
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    try {
      const p = await h['providers.save']({ provider: { name: 'Slow', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1` } }, ctx);
      const verdict = await h['providers.test']({ id: p.id }, ctx);
      expect(verdict).toEqual({ ok: false, message: `http://127.0.0.1:${port}/v1 did not answer within 200 ms: is the server running, or the model still loading?` });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('delete removes the provider and its key; unknown ids are NOT_FOUND', async () => {
    const { h, secrets } = await setup();
    const p = await h['providers.save']({ provider: { name: 'X', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: KEY } }, ctx);
    expect(out('providers.delete', await h['providers.delete']({ id: p.id }, ctx))).toEqual({ deleted: true });
    expect(secrets.values()).not.toContain(KEY);
    await expect(Promise.resolve().then(() => h['providers.test']({ id: p.id }, ctx))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('detect offers a local server that answers, not one already saved nor one that is not there', async () => {
    const { h } = await setup();
    server.setModels(['llama3.2']);
    const found = out('providers.detect', await h['providers.detect']({}, ctx));
    expect(found).toEqual([{ name: 'Ollama', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${server.port}/v1`, models: ['llama3.2'] }]);

    other = await startScriptedModelServer();
    other.setModels(['lm-model']);
    await h['providers.save']({ provider: { name: 'Mine', kind: 'openai-compatible', baseUrl: `http://localhost:${server.port}/v1/` } }, ctx);
    expect(await h['providers.detect']({}, ctx)).toEqual([{ name: 'LM Studio', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${other.port}/v1`, models: ['lm-model'] }]);
  });
});

describe('ProviderClients', () => {
  it('reads the key on every call: a key removed in Settings is no longer sent', async () => {
    const { providers, clients } = await setup();
    const p = await providers.save(undefined, { name: 'L', kind: 'openai-compatible', baseUrl: server.url, apiKey: KEY });
    const c = clients.forProvider(p.id);
    await c.listModels();
    expect(server.requests.at(-1)!.apiKey).toBe(KEY);
    await providers.save(p.id, { name: 'L', kind: 'openai-compatible', baseUrl: server.url, apiKey: null });
    await clients.forProvider(p.id).listModels();
    expect(server.requests.at(-1)!.apiKey).toBe('not-needed');
    expect(() => clients.forProvider('missing')).toThrow(/no model provider/);
  });

  it('uses the Anthropic client for an anthropic provider', async () => {
    const { providers, clients } = await setup();
    const p = await providers.save(undefined, { name: 'C', kind: 'anthropic', baseUrl: server.url, apiKey: KEY });
    server.script([{ kind: 'text', text: 'hello' }]);
    const r = await clients.forProvider(p.id).step({ model: 'claude', messages: [{ role: 'user', text: 'hi' }], tools: [] }, () => undefined, new AbortController().signal);
    expect(r.text).toBe('hello');
    expect(server.requests.at(-1)!.path).toBe('/v1/messages');
  });

  it('a key rebound in the Secrets screen to another host is not sent; the error says what to do', async () => {
    const { providers, clients, secrets } = await setup();
    const p = await providers.save(undefined, { name: 'L', kind: 'openai-compatible', baseUrl: server.url, apiKey: KEY });
    await secrets.setHosts(`provider-${p.id}`, ['elsewhere.example.com']);
    await expect(clients.forProvider(p.id).listModels()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(server.requests.length).toBe(0);
  });
});
