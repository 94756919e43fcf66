/**
 * The benchmarks as `npm run bench` builds them on a fresh clone: bundled, their data files
 * must sit beside the bundle, where the bundled code looks for them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without types
import { BENCH_DATA_FILES, buildBench } from './bench-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

describe('the benchmark build', () => {
  it('puts the real registry beside the bundle, and bundled code reads it from there', { timeout: 120_000 }, async () => {
    // Inside the repository, as .bench-dist is: the bundle's packages resolve from node_modules.
    const out = await fs.mkdtemp(path.join(root, '.bench-dist-test-'));
    dirs.push(out);
    const entry = (await buildBench(out)) as string;
    await fs.access(entry);
    for (const f of BENCH_DATA_FILES as string[]) await fs.access(path.join(out, path.basename(f)));
    // A probe bundled into the same folder, as run.mjs is, reads the registry the tool-search workload reads.
    const probe = path.join(out, 'probe.ts');
    await fs.writeFile(
      probe,
      `import { readRealRegistry } from ${JSON.stringify(path.join(root, 'electron/core/tool-search/testing/real-registry.ts'))};\n` +
        'console.log(JSON.stringify(readRealRegistry().bundles.reduce((n, b) => n + b.tools.length, 0)));\n',
    );
    await build({ entryPoints: [probe], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: path.join(out, 'probe.mjs'), logLevel: 'warning', absWorkingDir: root });
    const tools = await new Promise<number>((resolve, reject) =>
      execFile(process.execPath, [path.join(out, 'probe.mjs')], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as number))),
    );
    expect(tools).toBeGreaterThanOrEqual(500);
  });
});
