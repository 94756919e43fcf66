import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { useTempDirs } from '../testing/temp-dir';
import { KEY_FILE_NAME, KeyFileCipher, SecretDecryptError, describeSafeStorageBackend, formatKeyFile, parseKeyFile } from './cipher';

const tempDir = useTempDirs();
const posix = process.platform !== 'win32';

describe('KeyFileCipher', () => {
  it('round-trips a value, with a fresh IV each time', async () => {
    const dir = await tempDir();
    const c = new KeyFileCipher(dir);
    const a = await c.encrypt('hunter2-päss✓');
    const b = await c.encrypt('hunter2-päss✓');
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(await c.decrypt(a)).toBe('hunter2-päss✓');
    expect(await c.decrypt(b)).toBe('hunter2-päss✓');
    expect(a.includes(Buffer.from('hunter2'))).toBe(false);
  });

  it('creates secret.key with mode 0600, and another instance reads the same key', async () => {
    const dir = await tempDir();
    const enc = await new KeyFileCipher(dir).encrypt('value-1');
    const st = await fs.stat(path.join(dir, KEY_FILE_NAME));
    if (posix) expect(st.mode & 0o777).toBe(0o600);
    expect(await new KeyFileCipher(dir).decrypt(enc)).toBe('value-1');
    // no temp files left behind
    expect(await fs.readdir(dir)).toEqual([KEY_FILE_NAME]);
  });

  it('creates the key with mode 0600 even under a permissive umask', async () => {
    if (!posix) return;
    const dir = await tempDir();
    const old = process.umask(0);
    try {
      await new KeyFileCipher(dir).encrypt('x');
    } finally {
      process.umask(old);
    }
    expect((await fs.stat(path.join(dir, KEY_FILE_NAME))).mode & 0o777).toBe(0o600);
  });

  it('two instances creating a key at once agree on one key', async () => {
    const dir = await tempDir();
    const ciphers = Array.from({ length: 8 }, () => new KeyFileCipher(dir));
    const encs = await Promise.all(ciphers.map((c, k) => c.encrypt(`v${k}`)));
    const reader = new KeyFileCipher(dir);
    for (let k = 0; k < encs.length; k++) expect(await reader.decrypt(encs[k]!)).toBe(`v${k}`);
  });

  it('refuses tampered ciphertext with a clear error', async () => {
    const dir = await tempDir();
    const c = new KeyFileCipher(dir);
    const enc = await c.encrypt('a secret value');
    for (const at of [1, 14, enc.length - 1]) {
      const bad = Buffer.from(enc);
      bad[at]! ^= 0x01;
      await expect(c.decrypt(bad)).rejects.toThrow(/does not authenticate.*altered/);
      await expect(c.decrypt(bad)).rejects.toBeInstanceOf(SecretDecryptError);
    }
    await expect(c.decrypt(enc.subarray(0, 20))).rejects.toThrow(/truncated/);
  });

  it('refuses data encrypted with another key', async () => {
    const enc = await new KeyFileCipher(await tempDir()).encrypt('value');
    const other = new KeyFileCipher(await tempDir());
    await other.encrypt('another key');
    await expect(other.decrypt(enc)).rejects.toThrow(/different key/);
  });

  it('never creates a key to decrypt: a missing key file is a clear error', async () => {
    const dir = await tempDir();
    const enc = await new KeyFileCipher(dir).encrypt('value');
    await fs.rm(path.join(dir, KEY_FILE_NAME));
    await expect(new KeyFileCipher(dir).decrypt(enc)).rejects.toThrow(/secret\.key is missing.*restore it/);
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('a corrupt key file is an error, and it is not replaced', async () => {
    const dir = await tempDir();
    const file = path.join(dir, KEY_FILE_NAME);
    for (const text of ['garbage\n', '', formatKeyFile(Buffer.alloc(32, 7)).replace(/ [0-9a-f]{8}\n$/, ' 00000000\n')]) {
      await fs.writeFile(file, text, { mode: 0o600 });
      await fs.chmod(file, 0o600);
      const c = new KeyFileCipher(dir);
      await expect(c.encrypt('x')).rejects.toThrow(/is corrupt.*not replaced|is corrupt.*left as it is/);
      expect(await fs.readFile(file, 'utf8')).toBe(text);
    }
  });

  it('refuses a key file that others can read, and says how to fix it', async () => {
    if (!posix) return;
    const dir = await tempDir();
    const c = new KeyFileCipher(dir);
    const enc = await c.encrypt('value');
    const file = path.join(dir, KEY_FILE_NAME);
    await fs.chmod(file, 0o644);
    const fresh = new KeyFileCipher(dir);
    const err = await fresh.decrypt(enc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toMatch(/mode 644.*chmod 600/);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o644); // not changed behind the user's back
    await fs.chmod(file, 0o600);
    expect(await fresh.decrypt(enc)).toBe('value'); // a fixed file is picked up without a restart
  });

  it('skips the mode check on Windows', async () => {
    if (!posix) return;
    const dir = await tempDir();
    const enc = await new KeyFileCipher(dir).encrypt('value');
    await fs.chmod(path.join(dir, KEY_FILE_NAME), 0o644);
    expect(await new KeyFileCipher(dir, { platform: 'win32' }).decrypt(enc)).toBe('value');
  });

  it('parses only what it formats', () => {
    const key = Buffer.alloc(32, 9);
    const ok = parseKeyFile(formatKeyFile(key));
    expect(ok.ok && ok.key.equals(key)).toBe(true);
    expect(parseKeyFile(formatKeyFile(Buffer.alloc(16)))).toMatchObject({ ok: false, reason: /16 bytes/ });
    expect(parseKeyFile('toolsmith-secret-key v1 !!!! 00000000')).toMatchObject({ ok: false, reason: /not base64/ });
  });
});

describe('describeSafeStorageBackend', () => {
  it("refuses Linux's plaintext backend unless the user accepted it", () => {
    const refused = describeSafeStorageBackend('basic_text', false);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/plain text.*basic_text/);
    const accepted = describeSafeStorageBackend('basic_text', true);
    expect(accepted).toMatchObject({ ok: true, warning: expect.stringMatching(/accepted/) });
  });

  it('accepts the keyrings and refuses an unknown backend', () => {
    for (const b of ['gnome_libsecret', 'kwallet', 'kwallet5', 'kwallet6']) {
      expect(describeSafeStorageBackend(b, false)).toEqual({ ok: true });
    }
    expect(describeSafeStorageBackend('unknown', true).ok).toBe(false);
    expect(describeSafeStorageBackend('', true).ok).toBe(false);
  });
});
