/**
 * The preload is built as `npm run build` builds it (into a temp folder) and checked: it is
 * small and carries no zod or contract schemas, only the names it needs to refuse an
 * unknown operation. The names it carries match the contract exactly.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { eventNames, operationNames } from '../shared/contract';
import { EVENT_NAMES, OP_NAMES } from '../shared/contract-names';
import { NAMES_FILE, renderContractNames } from './contract-names';
// @ts-expect-error -- a plain .mjs build script without types
import { PRELOAD_MAX_BYTES, electronBundles } from './electron-bundles.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

describe('the preload', () => {
  it('is built without zod or the contract schemas, under its size budget', async () => {
    const out = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-preload-'));
    dirs.push(out);
    const options = (electronBundles as (dir: string) => Record<string, object>)(out).preload!;
    const r = await build({ ...options, absWorkingDir: root, metafile: true, sourcemap: false, logLevel: 'silent' });
    const inputs = Object.keys(r.metafile!.inputs);
    expect(inputs.filter((i) => i.includes('node_modules/'))).toEqual([]);
    expect(inputs).not.toContain('shared/contract.ts');
    expect(inputs).toContain('shared/contract-names.ts');
    const code = await fs.readFile(path.join(out, 'preload.cjs'), 'utf8');
    expect(code.length).toBeLessThan(PRELOAD_MAX_BYTES as number);
    expect(code).not.toMatch(/zod|ZodError|safeParse/);
    // It still knows every operation by name.
    for (const name of operationNames) expect(code).toContain(`"${name}"`);
  });

  it('carries exactly the contract’s operation and event names (regenerate with npx tsx scripts/contract-names.ts)', async () => {
    expect([...OP_NAMES]).toEqual(operationNames);
    expect([...EVENT_NAMES]).toEqual(eventNames);
    expect(await fs.readFile(NAMES_FILE, 'utf8')).toBe(renderContractNames());
  });
});
