import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { Problem } from '../../../../shared/model/app-info';
import { KeyFileCipher } from '../../secrets/cipher';
import { SecretStore } from '../../secrets/secret-store';
import { useTempDirs } from '../../testing/temp-dir';
import { PROVIDERS_FILE_NAME, ProviderStore, checkBaseUrl, keyHost, keyName } from './provider-store';

const tempDir = useTempDirs();
const KEY = 'sk-or-v1-abcdef0123456789';

async function setup(dir?: string) {
  const dataDir = dir ?? (await tempDir());
  const secrets = new SecretStore({ dataDir, cipher: new KeyFileCipher(dataDir) });
  await secrets.open();
  const changes: string[][] = [];
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  let t = Date.parse('2030-01-01T00:00:00.000Z');
  const store = await ProviderStore.open({ dataDir, secrets, now: () => new Date((t += 1000)), onChange: (ids) => changes.push(ids), problems: (p) => problems.push(p) });
  return { dataDir, secrets, store, changes, problems };
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('ProviderStore', () => {
  it('adds a provider, keeps its key in the secret store bound to the host, never in the file or the view', async () => {
    const { dataDir, secrets, store, changes } = await setup();
    const p = await store.save(undefined, { name: 'OpenRouter', kind: 'openai-compatible', baseUrl: 'https://OpenRouter.ai:443/api/v1/', apiKey: KEY });
    expect(p).toMatchObject({ name: 'OpenRouter', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', hasKey: true, models: [] });
    expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(JSON.stringify(p)).not.toContain(KEY);
    expect(secrets.list()).toEqual([expect.objectContaining({ name: keyName(p.id), hosts: ['openrouter.ai'] })]);
    expect(secrets.resolve(keyName(p.id), 'openrouter.ai')).toBe(KEY);
    const text = await fs.readFile(path.join(dataDir, PROVIDERS_FILE_NAME), 'utf8');
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toMatchObject({ format: 'toolsmith-providers', version: 1, providers: [{ id: p.id, name: 'OpenRouter' }] });
    expect(changes).toEqual([[p.id]]);
    expect(store.list()).toEqual([p]);
  });

  it('reopens what it wrote', async () => {
    const { dataDir, store } = await setup();
    const p = await store.save(undefined, { name: 'Ollama', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' });
    await store.setModels(p.id, ['llama3.2', 'llama3.2', 'qwen']);
    const again = await setup(dataDir);
    expect(again.store.list()).toEqual([{ ...p, models: ['llama3.2', 'qwen'], hasKey: false }]);
  });

  it('changes a provider: a key absent is kept, a new one replaces it, null removes it', async () => {
    const { secrets, store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: KEY });
    const renamed = await store.save(p.id, { name: 'B', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9090/v1' });
    expect(renamed).toMatchObject({ id: p.id, name: 'B', hasKey: true, createdAt: p.createdAt });
    expect(renamed.updatedAt > p.updatedAt).toBe(true);
    expect(secrets.resolve(keyName(p.id), '127.0.0.1')).toBe(KEY);
    await store.save(p.id, { name: 'B', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9090/v1', apiKey: 'another-key-1234' });
    expect(secrets.resolve(keyName(p.id), '127.0.0.1')).toBe('another-key-1234');
    expect((await store.save(p.id, { name: 'B', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9090/v1', apiKey: null })).hasKey).toBe(false);
    expect(secrets.list()).toEqual([]);
  });

  it('drops the key when the base URL moves to another host without a new key', async () => {
    const { secrets, store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: KEY });
    const moved = await store.save(p.id, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' });
    expect(moved.hasKey).toBe(false);
    expect(secrets.values()).not.toContain(KEY);
    const withKey = await store.save(p.id, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: KEY });
    expect(withKey.hasKey).toBe(true);
    expect(secrets.list()[0]!.hosts).toEqual(['api.openai.com']);
  });

  it("an empty key ('') keeps the stored key on the same host and removes it when the host changes", async () => {
    const { secrets, store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: KEY });
    const kept = await store.save(p.id, { name: 'A2', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1/', apiKey: '  ' });
    expect(kept.hasKey).toBe(true);
    expect(secrets.resolve(keyName(p.id), 'api.openai.com')).toBe(KEY);
    const moved = await store.save(p.id, { name: 'A2', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: '' });
    expect(moved.hasKey).toBe(false);
    expect(secrets.list()).toEqual([]);
  });

  it('a providers.json that cannot be written leaves the old key in place', async () => {
    const { dataDir, secrets, store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: KEY });
    // A directory where the file should be: replacing it fails.
    const file = path.join(dataDir, PROVIDERS_FILE_NAME);
    await fs.rm(file);
    await fs.mkdir(path.join(file, 'blocker'), { recursive: true });
    for (const baseUrl of ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1']) {
      await errorOf(store.save(p.id, { name: 'B', kind: 'openai-compatible', baseUrl, apiKey: 'sk-new-0123456789' }));
      expect(store.get(p.id)).toEqual(p);
      expect(secrets.list()).toEqual([expect.objectContaining({ name: keyName(p.id), hosts: ['api.openai.com'] })]);
      expect(secrets.resolve(keyName(p.id), 'api.openai.com')).toBe(KEY);
    }
    await errorOf(store.save(undefined, { name: 'C', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-new-0123456789' }));
    expect(store.list()).toEqual([p]);
    expect(secrets.list().length).toBe(1);
  });

  it('a key that cannot be stored undoes the change of the file', async () => {
    const { dataDir, secrets, store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: KEY });
    const before = await fs.readFile(path.join(dataDir, PROVIDERS_FILE_NAME), 'utf8');
    const set = vi.spyOn(secrets, 'set').mockRejectedValue(new AppError('UNAVAILABLE', 'cannot write secrets.json'));
    expect((await errorOf(store.save(p.id, { name: 'B', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-new-0123456789' }))).code).toBe('UNAVAILABLE');
    expect((await errorOf(store.save(undefined, { name: 'C', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-new-0123456789' }))).code).toBe('UNAVAILABLE');
    set.mockRestore();
    expect(store.list()).toEqual([p]);
    expect(await fs.readFile(path.join(dataDir, PROVIDERS_FILE_NAME), 'utf8')).toBe(before);
    expect(secrets.resolve(keyName(p.id), 'api.openai.com')).toBe(KEY);
  });

  it('keeps the models when only the name changes, forgets them when the server changes', async () => {
    const { store } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' });
    await store.setModels(p.id, ['m1']);
    expect((await store.save(p.id, { name: 'A2', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' })).models).toEqual(['m1']);
    expect((await store.save(p.id, { name: 'A2', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' })).models).toEqual([]);
  });

  it('deletes a provider and its key', async () => {
    const { secrets, store, changes } = await setup();
    const p = await store.save(undefined, { name: 'A', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: KEY });
    await store.delete(p.id);
    expect(store.list()).toEqual([]);
    expect(secrets.list()).toEqual([]);
    expect(changes.at(-1)).toEqual([p.id]);
    expect((await errorOf(store.delete(p.id))).code).toBe('NOT_FOUND');
  });

  it('refuses unknown ids and bad base URLs, changing nothing', async () => {
    const { dataDir, store, secrets } = await setup();
    expect((await errorOf(store.save('nope', { name: 'A', kind: 'openai-compatible', baseUrl: 'http://x.test/v1' }))).code).toBe('NOT_FOUND');
    for (const baseUrl of ['file:///etc/passwd', 'ftp://host/v1', `https://user:${KEY}@host.test/v1`, 'http://h.test/v1#x']) {
      const e = await errorOf(store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl, apiKey: KEY }));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify({ m: e.message, d: e.details })).not.toContain(KEY);
    }
    expect(store.list()).toEqual([]);
    expect(secrets.list()).toEqual([]);
    await expect(fs.stat(path.join(dataDir, PROVIDERS_FILE_NAME))).rejects.toThrow();
    expect(store.get('nope')).toBeUndefined();
    expect(() => store.require('nope')).toThrow(/no model provider/);
  });

  it('moves a damaged providers.json aside, reports it, and starts empty', async () => {
    for (const text of ['{ not json', '', '{"format":"toolsmith-providers","version":1,"providers":[{"id":"x"}]}']) {
      const dataDir = await tempDir();
      const file = path.join(dataDir, PROVIDERS_FILE_NAME);
      await fs.writeFile(file, text);
      const { store, problems } = await setup(dataDir);
      expect(store.list()).toEqual([]);
      expect(problems).toEqual([expect.objectContaining({ kind: 'corrupt-file', path: file })]);
      const aside = (await fs.readdir(dataDir)).filter((n) => n.startsWith(`${PROVIDERS_FILE_NAME}.corrupt-`));
      expect(aside.length).toBe(1);
      expect(await fs.readFile(path.join(dataDir, aside[0]!), 'utf8')).toBe(text);
    }
  });

  it('serialises quick saves: both land', async () => {
    const { store } = await setup();
    await Promise.all([
      store.save(undefined, { name: 'A', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' }),
      store.save(undefined, { name: 'B', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:2/v1' }),
    ]);
    const again = await setup((store as unknown as { opts: { dataDir: string } }).opts.dataDir);
    expect(again.store.list().map((p) => p.name)).toEqual(['A', 'B']);
  });
});

describe('keyHost and checkBaseUrl', () => {
  it('binds to the host: lowercase, no port', () => {
    expect(keyHost('https://API.Example.com:8443/v1')).toBe('api.example.com');
    expect(keyHost('http://[::1]:11434/v1')).toBe('[::1]');
    expect(checkBaseUrl(' http://127.0.0.1:11434/v1/ ')).toBe('http://127.0.0.1:11434/v1');
  });

  it('refuses a base URL with a query string or a fragment, even an empty one', () => {
    for (const [url, rule] of [
      ['https://api.example.com/v1?key=abc', 'query'],
      ['https://api.example.com/v1?', 'query'],
      ['https://api.example.com/v1#top', 'hash'],
      ['https://api.example.com/v1#', 'hash'],
    ] as const) {
      let err: unknown;
      try {
        checkBaseUrl(url);
      } catch (e) {
        err = e;
      }
      expect(err, url).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(JSON.stringify(err), url).toContain(rule);
    }
  });
});
