/**
 * The trust list: grants kept in the data folder; one store sees another's grant; a damaged
 * list trusts nothing, is reported once, and the next grant writes a good one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { openStore } from './testing/fixtures';

const tempDir = useTempDirs();
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('the script trust list', () => {
  it('keeps grants, by content, for this process and another on the same folder', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const one = await openStore(dataDir);
    const two = await openStore(dataDir);
    expect(one.store.isScriptTrusted(A)).toBe(false);
    await one.store.trustScripts([A, 'not-a-hash'], 'allowed');
    expect(one.store.isScriptTrusted(A)).toBe(true);
    // The other store sees it once it looks at the file again.
    await vi.waitFor(() => expect(two.store.isScriptTrusted(A)).toBe(true));
    await two.store.trustScripts([B], 'saved');
    const file = JSON.parse(await fs.readFile(path.join(dataDir, 'script-trust.json'), 'utf8')) as { scripts: Record<string, { how: string }> };
    expect(Object.fromEntries(Object.entries(file.scripts).map(([k, v]) => [k, v.how]))).toEqual({ [A]: 'allowed', [B]: 'saved' });
    await one.store.close();
    await two.store.close();
  });

  it('a damaged list trusts nothing and is reported once; the next grant writes a good one', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store, problems } = await openStore(dataDir);
    await store.trustScripts([A], 'allowed');
    await fs.writeFile(path.join(dataDir, 'script-trust.json'), '{ damaged');
    await vi.waitFor(() => expect(store.isScriptTrusted(A)).toBe(false));
    expect(store.isScriptTrusted(A)).toBe(false);
    expect(problems.list()).toEqual([expect.objectContaining({ kind: 'corrupt-file', message: expect.stringMatching(/^the script trust list cannot be used/) })]);
    await store.trustScripts([B], 'allowed');
    expect(store.isScriptTrusted(B)).toBe(true);
    expect(JSON.parse(await fs.readFile(path.join(dataDir, 'script-trust.json'), 'utf8'))).toMatchObject({ version: 1, scripts: { [B]: { how: 'allowed' } } });
    await store.close();
  });
});
