/**
 * The command as a process, in this process: the exit code it ends with, and what the host lends
 * it (the app's binary lends its keychain cipher). The command as a child process: cli.test.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SecretCipher } from '../../core/secrets/cipher';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { useCapturedOutput } from '../testing/captured-output';
import { runCliProcess } from './run-process';

const tempDir = useTempDirs();
const SLOW = 120_000;

const io = useCapturedOutput();

/** Runs the command; answers the code it ended the process with. */
function run(argv: string[], host?: Parameters<typeof runCliProcess>[1]['host']): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    runCliProcess(argv, { exit: resolve, ...(host ? { host } : {}) }).catch(reject);
  });
}

describe('runCliProcess', () => {
  it('ends with 0 when done, 2 for bad usage, 1 when the command fails', { timeout: SLOW }, async () => {
    expect(await run(['--version'])).toBe(0);
    expect(io.out).toMatch(/^\d+\.\d+\.\d+/);
    expect(await run(['no-such-command'])).toBe(2);
    expect(io.err).toContain("unknown command 'no-such-command'");
    const dir = await tempDir();
    expect(await run(['tools', 'show', 'nowhere/nothing', '--data-dir', dir, '--resources', RESOURCES_DIR])).toBe(1);
    expect(io.err).toContain("no bundle named 'nowhere'");
  });

  it('opens the core with the cipher its host gives, as the app’s binary gives its keychain', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    const keychain: SecretCipher = {
      kind: 'electron-safe-storage',
      encrypt: (plain) => Buffer.from([...Buffer.from(plain, 'utf8')].reverse()),
      decrypt: (data) => Buffer.from([...data].reverse()).toString('utf8'),
    };
    const curl = "curl -H 'Authorization: Bearer s3cret-token' 'https://api.example.com/items?q=shoes'";
    const code = await run(['import', 'curl', curl, '--bundle', 'shop', '--data-dir', dir, '--resources', RESOURCES_DIR], { secretCipher: keychain });
    expect(code, io.err).toBe(0);
    const secrets = JSON.parse(await fs.readFile(path.join(dir, 'secrets.json'), 'utf8')) as { cipher: string; secrets: { value: string }[] };
    expect(secrets.cipher).toBe('electron-safe-storage');
    expect(secrets.secrets).toHaveLength(1);
    expect(keychain.decrypt(Buffer.from(secrets.secrets[0]!.value, 'base64'))).toBe('s3cret-token');
    // No key file: the host's cipher was the only one used.
    await expect(fs.stat(path.join(dir, 'secret.key'))).rejects.toThrow();
  });
});
