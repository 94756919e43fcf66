import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { useTempDirs } from '../testing/temp-dir';
import { KEY_FILE_NAME, KeyFileCipher, type SecretCipher } from './cipher';
import { createRedactor } from './redact';
import { SECRETS_FILE_NAME, SecretStore, type SecretStoreOptions } from './secret-store';

const tempDir = useTempDirs();
const posix = process.platform !== 'win32';
const VALUE = 'sk-live-4f9a8b7c6d5e4f3a2b1c';

async function openStore(dataDir: string, extra: Partial<SecretStoreOptions> = {}) {
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  const store = new SecretStore({
    dataDir,
    cipher: new KeyFileCipher(dataDir),
    now: () => new Date('2030-01-02T03:04:05.000Z'),
    problems: (p) => problems.push(p),
    ...extra,
  });
  await store.open();
  return { store, problems };
}

async function errorOf(fn: () => unknown): Promise<AppError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an error');
}

function runWorker(dataDir: string, name: string, host: string): Promise<{ ok: boolean; value?: string; error?: string; list?: unknown }> {
  const worker = path.join(import.meta.dirname, 'testing', 'resolve-worker.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', worker, dataDir, name, host], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve, reject) => {
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.trim()));
      } catch {
        reject(new Error(`worker printed ${JSON.stringify(out)}; stderr: ${err}`));
      }
    });
  });
}

describe('SecretStore', () => {
  it('round-trips through a second store and a new process on the same folder', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await store.set('OPENAI_KEY', VALUE, ['API.OpenAI.com.']);
    expect(store.list()).toEqual([
      { name: 'OPENAI_KEY', hosts: ['api.openai.com'], createdAt: '2030-01-02T03:04:05.000Z', updatedAt: '2030-01-02T03:04:05.000Z' },
    ]);

    const { store: second } = await openStore(dir);
    expect(second.list().map((s) => s.name)).toEqual(['OPENAI_KEY']);
    expect(second.resolve('OPENAI_KEY', 'api.openai.com')).toBe(VALUE);
    expect(second.values()).toEqual([VALUE]);

    const child = await runWorker(dir, 'OPENAI_KEY', 'api.openai.com');
    expect(child).toMatchObject({ ok: true, value: VALUE });
  });

  it('never writes the plaintext: secrets.json and secret.key hold no trace of it', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await store.set('TOKEN', VALUE, ['example.com']);
    await store.set('OTHER', 'another-plain-value', ['example.com']);
    for (const f of [SECRETS_FILE_NAME, KEY_FILE_NAME]) {
      const bytes = await fs.readFile(path.join(dir, f));
      for (const needle of [VALUE, 'another-plain-value', Buffer.from(VALUE).toString('base64').slice(0, 16), 'sk-live']) {
        expect(bytes.includes(Buffer.from(needle)), `${needle} in ${f}`).toBe(false);
      }
    }
    const doc = JSON.parse(await fs.readFile(path.join(dir, SECRETS_FILE_NAME), 'utf8'));
    expect(doc).toMatchObject({ format: 'toolsmith-secrets', version: 1, cipher: 'aes-gcm-keyfile' });
    expect(Object.keys(doc.secrets[0]).sort()).toEqual(['createdAt', 'hosts', 'name', 'updatedAt', 'value']);
    if (posix) {
      expect((await fs.stat(path.join(dir, SECRETS_FILE_NAME))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.join(dir, KEY_FILE_NAME))).mode & 0o777).toBe(0o600);
    }
    expect((await fs.readdir(dir)).sort()).toEqual([KEY_FILE_NAME, SECRETS_FILE_NAME]);
  });

  it('list() and the change callback carry no values', async () => {
    const dir = await tempDir();
    const seen: unknown[] = [];
    const { store } = await openStore(dir, { onChange: (l) => seen.push(l) });
    await store.set('A1', VALUE, ['a.example.com']);
    expect(JSON.stringify(store.list())).not.toContain(VALUE);
    expect(JSON.stringify(seen)).not.toContain(VALUE);
    expect(seen).toHaveLength(1);
  });

  it('binds a secret to hosts: exact, and *. on a label boundary only', async () => {
    const { store } = await openStore(await tempDir());
    await store.set('K', VALUE, ['*.example.com', 'exact.org', '[::1]']);
    expect(store.resolve('K', 'api.example.com')).toBe(VALUE);
    expect(store.resolve('K', 'a.b.example.com')).toBe(VALUE);
    expect(store.resolve('K', 'API.Example.COM.')).toBe(VALUE);
    expect(store.resolve('K', 'exact.org')).toBe(VALUE);
    expect(store.resolve('K', '[::1]')).toBe(VALUE);
    expect(store.resolve('K', '::1')).toBe(VALUE);
    for (const host of ['example.com', 'example.com.evil.com', 'badexample.com', 'evil.com', 'sub.exact.org', 'exact.org.evil.com', '.example.com', '']) {
      const e = await errorOf(() => store.resolve('K', host));
      expect(e.code).toBe('FORBIDDEN');
    }
    const e = await errorOf(() => store.resolve('K', 'evil.com'));
    expect(e.message).toBe("secret 'K' is not bound to host 'evil.com'");
    expect(e.message).not.toContain(VALUE);
    expect((await errorOf(() => store.resolve('NOPE', 'exact.org'))).code).toBe('NOT_FOUND');
  });

  it('validates names, values and hosts', async () => {
    const { store } = await openStore(await tempDir());
    for (const name of ['', '1abc', '_x', 'a b', 'a/b', 'a'.repeat(65), 'é']) {
      expect((await errorOf(() => store.set(name, VALUE, ['a.com']))).code).toBe('VALIDATION_FAILED');
    }
    await store.set('a'.repeat(64), VALUE, ['a.com']);
    await store.set('Name_1.x-y', VALUE, ['a.com']);
    expect((await errorOf(() => store.set('V', '', ['a.com']))).message).toMatch(/needs a value/);
    expect((await errorOf(() => store.set('V', 'x'.repeat(64 * 1024 + 1), ['a.com']))).message).toMatch(/64 KiB/);
    await store.set('V', 'x'.repeat(64 * 1024), ['a.com']);
    expect((await errorOf(() => store.set('V', 'é'.repeat(32 * 1024 + 1), ['a.com']))).message).toMatch(/64 KiB/); // bytes, not characters
    expect((await errorOf(() => store.set('H', VALUE, []))).message).toMatch(/at least one host/);
    for (const bad of ['http://a.com', 'a.com/path', 'a.com:443', '*.com', '*', 'a..com', '*.*.a.com', 'a_b.com', ' ']) {
      const e = await errorOf(() => store.set('H', VALUE, [bad]));
      expect(e.code, bad).toBe('VALIDATION_FAILED');
    }
    expect((await errorOf(() => store.set('H', VALUE, ['a.com:443']))).message).toMatch(/port/);
    expect((await store.set('H', VALUE, ['A.com', 'a.com.', ' a.com ', '*.Ex-ample.co.uk'])).hosts).toEqual(['a.com', '*.ex-ample.co.uk']);
  });

  it('replaces a value, keeps createdAt, and changes hosts without the value', async () => {
    const dir = await tempDir();
    let now = new Date('2030-01-01T00:00:00.000Z');
    const { store } = await openStore(dir, { now: () => now });
    await store.set('K', 'first-value', ['a.com']);
    now = new Date('2030-06-01T00:00:00.000Z');
    const info = await store.set('K', 'second-value', ['b.com']);
    expect(info).toEqual({ name: 'K', hosts: ['b.com'], createdAt: '2030-01-01T00:00:00.000Z', updatedAt: '2030-06-01T00:00:00.000Z' });
    expect(store.values()).toEqual(['second-value']);
    await store.setHosts('K', ['c.com', '*.d.com']);
    expect(store.resolve('K', 'x.d.com')).toBe('second-value');
    expect((await errorOf(() => store.resolve('K', 'b.com'))).code).toBe('FORBIDDEN');
    expect((await errorOf(() => store.setHosts('NONE', ['a.com']))).code).toBe('NOT_FOUND');

    const { store: again } = await openStore(dir);
    expect(again.list()[0]!.hosts).toEqual(['c.com', '*.d.com']);
    expect(again.resolve('K', 'c.com')).toBe('second-value');
  });

  it('deletes a secret for good', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await store.set('K', VALUE, ['a.com']);
    await store.delete('K');
    expect(store.list()).toEqual([]);
    expect(store.values()).toEqual([]);
    expect((await errorOf(() => store.delete('K'))).code).toBe('NOT_FOUND');
    expect((await openStore(dir)).store.list()).toEqual([]);
  });

  it('values() returns the same array until something changes', async () => {
    const { store } = await openStore(await tempDir());
    await store.set('A', 'value-a', ['a.com']);
    const v1 = store.values();
    expect(store.values()).toBe(v1);
    await store.set('B', 'value-b', ['a.com']);
    expect(store.values()).not.toBe(v1);
    expect([...store.values()].sort()).toEqual(['value-a', 'value-b']);
  });

  it('values() holds the tokens of a JSON secret (an OAuth sign-in) as values of their own, so a server echoing one is redacted', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    const tokens = { access_token: 'at-7d1f0c2e9b', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-51aa90c3e7', id_token: 'eyJhbGciOi.id', scope: 'read' };
    await store.set('mcp-oauth.x.tokens', JSON.stringify(tokens), ['mcp.example.com']);
    await store.set('mcp-oauth.x.client', JSON.stringify({ client_id: 'public-id', client_secret: 'cs-0b9e77f1', client_name: 'Toolsmith' }), ['mcp.example.com']);
    await store.set('NOT_AN_OBJECT', '["at-in-an-array"]', ['a.com']);
    const values = store.values();
    expect(values).toEqual(expect.arrayContaining(['at-7d1f0c2e9b', 'rt-51aa90c3e7', 'eyJhbGciOi.id', 'cs-0b9e77f1', JSON.stringify(tokens)]));
    // Fields that are not credentials stay readable: 'Bearer', 'read', the client's id and name.
    for (const plain of ['Bearer', '3600', 'read', 'public-id', 'Toolsmith', 'at-in-an-array']) expect(values).not.toContain(plain);
    // After a restart (the values come from the file) too.
    const again = (await openStore(dir)).store;
    const redact = createRedactor(() => again.values());
    expect(redact('Authorization: Bearer at-7d1f0c2e9b; refresh=rt-51aa90c3e7; secret cs-0b9e77f1')).toBe('Authorization: Bearer [redacted]; refresh=[redacted]; secret [redacted]');
  });

  it('serialises two quick set() calls: both survive, in memory and on disk', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await Promise.all([store.set('ONE', 'value-one', ['a.com']), store.set('TWO', 'value-two', ['b.com'])]);
    const many = Array.from({ length: 20 }, (_, k) => store.set(`K${k}`, `value-${k}`, ['c.com']));
    await Promise.all(many);
    const { store: again } = await openStore(dir);
    expect(again.list().map((s) => s.name)).toHaveLength(22);
    expect(again.resolve('ONE', 'a.com')).toBe('value-one');
    expect(again.resolve('TWO', 'b.com')).toBe('value-two');
    expect(again.resolve('K19', 'c.com')).toBe('value-19');
  });

  it('a failed change leaves the store and the file as they were', async () => {
    const dir = await tempDir();
    const real = new KeyFileCipher(dir);
    let fail = false;
    const flaky: SecretCipher = {
      kind: real.kind,
      encrypt: (p) => (fail ? Promise.reject(new Error('keyring locked')) : real.encrypt(p)),
      decrypt: (d) => real.decrypt(d),
    };
    const store = new SecretStore({ dataDir: dir, cipher: flaky });
    await store.open();
    await store.set('A', 'value-a', ['a.com']);
    const before = await fs.readFile(path.join(dir, SECRETS_FILE_NAME));
    fail = true;
    await expect(store.set('B', 'value-b', ['a.com'])).rejects.toThrow(/keyring locked/);
    fail = false;
    expect(store.list().map((s) => s.name)).toEqual(['A']);
    expect(store.values()).toEqual(['value-a']);
    expect((await fs.readFile(path.join(dir, SECRETS_FILE_NAME))).equals(before)).toBe(true);
    await store.set('C', 'value-c', ['a.com']); // the queue is not stuck
    expect(store.list().map((s) => s.name)).toEqual(['A', 'C']);
  });

  describe('with the wrong key', () => {
    it('locks: a clear error, nothing overwritten, and it opens again once the key is back', async () => {
      const dir = await tempDir();
      const { store } = await openStore(dir);
      await store.set('K', VALUE, ['a.com']);
      const keyFile = path.join(dir, KEY_FILE_NAME);
      const secretsFile = path.join(dir, SECRETS_FILE_NAME);
      const goodKey = await fs.readFile(keyFile);
      const before = await fs.readFile(secretsFile);

      // Another key in place of ours.
      const elsewhere = await tempDir();
      await new KeyFileCipher(elsewhere).encrypt('x');
      await fs.copyFile(path.join(elsewhere, KEY_FILE_NAME), keyFile);

      const { store: wrong, problems } = await openStore(dir);
      expect(wrong.lockedReason()?.message).toMatch(/different key.*Nothing was changed/);
      expect(problems).toHaveLength(1);
      expect(wrong.list().map((s) => s.name)).toEqual(['K']);
      expect(wrong.values()).toEqual([]);
      expect((await errorOf(() => wrong.resolve('K', 'a.com'))).message).toMatch(/different key/);
      await expect(wrong.set('NEW', 'v-new', ['a.com'])).rejects.toThrow(/different key/);
      await expect(wrong.delete('K')).rejects.toThrow(/different key/);
      await expect(wrong.setHosts('K', ['b.com'])).rejects.toThrow(/different key/);
      expect((await fs.readFile(secretsFile)).equals(before)).toBe(true);
      expect((await fs.readdir(dir)).sort()).toEqual([KEY_FILE_NAME, SECRETS_FILE_NAME]);

      await fs.writeFile(keyFile, goodKey);
      await wrong.open();
      expect(wrong.lockedReason()).toBeUndefined();
      expect(wrong.resolve('K', 'a.com')).toBe(VALUE);
    });

    it('locks when the key file is missing, and does not make a new one', async () => {
      const dir = await tempDir();
      const { store } = await openStore(dir);
      await store.set('K', VALUE, ['a.com']);
      await fs.rm(path.join(dir, KEY_FILE_NAME));
      const { store: s2 } = await openStore(dir);
      expect(s2.lockedReason()?.message).toMatch(/secret\.key is missing/);
      await expect(s2.set('X', 'v-xxx', ['a.com'])).rejects.toThrow(/missing/);
      expect(await fs.readdir(dir)).toEqual([SECRETS_FILE_NAME]);
    });

    it('locks when the file was written by the other cipher', async () => {
      const dir = await tempDir();
      const { store } = await openStore(dir);
      await store.set('K', VALUE, ['a.com']);
      const file = path.join(dir, SECRETS_FILE_NAME);
      const doc = JSON.parse(await fs.readFile(file, 'utf8'));
      doc.cipher = 'electron-safe-storage';
      await fs.writeFile(file, JSON.stringify(doc));
      const { store: s2 } = await openStore(dir);
      expect(s2.lockedReason()?.message).toMatch(/desktop app \(system keychain\)/);
    });
  });

  it('a tampered value: a clear error for that secret, the others work, its bytes are kept', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await store.set('GOOD', 'good-value', ['a.com']);
    await store.set('BAD', 'bad-value', ['a.com']);
    const file = path.join(dir, SECRETS_FILE_NAME);
    const doc = JSON.parse(await fs.readFile(file, 'utf8'));
    const bad = doc.secrets.find((s: { name: string }) => s.name === 'BAD');
    const bytes = Buffer.from(bad.value, 'base64');
    bytes[bytes.length - 1]! ^= 0xff;
    bad.value = bytes.toString('base64');
    await fs.writeFile(file, JSON.stringify(doc));

    const { store: s2, problems } = await openStore(dir);
    expect(s2.lockedReason()).toBeUndefined();
    expect(s2.resolve('GOOD', 'a.com')).toBe('good-value');
    const e = await errorOf(() => s2.resolve('BAD', 'a.com'));
    expect(e.message).toMatch(/'BAD' does not decrypt \(it was altered or damaged\)/);
    expect(s2.list().find((s) => s.name === 'BAD')).toMatchObject({ unreadable: true });
    expect(problems.map((p) => p.message).join()).toMatch(/'BAD' does not decrypt/);
    expect(s2.values()).toEqual(['good-value']);

    await s2.set('OTHER', 'other-value', ['a.com']);
    const after = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(after.secrets.find((s: { name: string }) => s.name === 'BAD').value).toBe(bad.value);
    await s2.set('BAD', 'new-bad-value', ['a.com']);
    expect(s2.resolve('BAD', 'a.com')).toBe('new-bad-value');
  });

  it('a corrupt secrets.json is reported, moved aside (kept), and the store starts empty', async () => {
    for (const text of ['{ not json', '', '{"format":"toolsmith-secrets","version":1,"cipher":"aes-gcm-keyfile","secrets":[{"name":"x"}]}']) {
      const dir = await tempDir();
      const file = path.join(dir, SECRETS_FILE_NAME);
      await fs.writeFile(file, text);
      const { store, problems } = await openStore(dir);
      expect(store.list()).toEqual([]);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ kind: 'corrupt-file', path: file, movedTo: expect.stringContaining('secrets.json.corrupt-') });
      expect(await fs.readFile(problems[0]!.movedTo!, 'utf8')).toBe(text);
      await store.set('K', VALUE, ['a.com']);
      expect((await openStore(dir)).store.resolve('K', 'a.com')).toBe(VALUE);
    }
  });

  it('refuses to be used before open()', async () => {
    const dir = await tempDir();
    const store = new SecretStore({ dataDir: dir, cipher: new KeyFileCipher(dir) });
    expect((await errorOf(() => store.resolve('K', 'a.com'))).message).toMatch(/not open/);
    await expect(store.set('K', VALUE, ['a.com'])).rejects.toThrow(/not open/);
  });

  it('works with an async cipher such as the shell passes (safeStorage)', async () => {
    const dir = await tempDir();
    const fake: SecretCipher = {
      kind: 'electron-safe-storage',
      encrypt: async (p) => Buffer.from([...Buffer.from(p)].map((b) => b ^ 0x5a)),
      decrypt: async (d) => Buffer.from([...d].map((b) => b ^ 0x5a)).toString(),
    };
    const a = new SecretStore({ dataDir: dir, cipher: fake });
    await a.open();
    await a.set('K', VALUE, ['a.com']);
    const b = new SecretStore({ dataDir: dir, cipher: fake });
    await b.open();
    expect(b.resolve('K', 'a.com')).toBe(VALUE);
  });
});
