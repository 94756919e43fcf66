/**
 * The core's worker threads as the build ships them: a bundle that searches a buffer, runs a
 * grep and runs a script tool's script (as dist-electron/serve.mjs and .bench-dist/run.mjs do) is built with esbuild beside
 * the worker bundles of worker-bundles.mjs, and run by plain Node, which has no TypeScript
 * loader: each worker starts from its .cjs file next to the bundle.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without types
import { WORKERS, workerBundles } from './worker-bundles.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

/** Runs a Node script; its stdout parsed as JSON, or the failure with stderr. */
function runNode(file: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd: path.dirname(file), timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as unknown);
    });
  });
}

const ENTRY = `
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileBufferStore } from ${JSON.stringify(path.join(root, 'electron/core/routing/buffer-store.ts'))};
import { withRegexSession } from ${JSON.stringify(path.join(root, 'electron/core/lib/safe-regex.ts'))};
import { schemaPattern } from ${JSON.stringify(path.join(root, 'electron/core/lib/schema-regexp.ts'))};
import { SandboxPool } from ${JSON.stringify(path.join(root, 'electron/core/script-tools/sandbox-pool.ts'))};

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-worker-bundle-'));
const store = new FileBufferStore({ dataDir: dir, workspaceDir: dir, now: () => new Date() });
const out = {};
try {
  await store.write('o', 'b', 'alpha\\nneedle one\\nbeta\\nNEEDLE two\\n', 'replace', 'test');
  const found = async (opts) => {
    try {
      return (await store.search('o', 'b', opts)).matches.map((m) => [m.line, m.text]);
    } catch (e) {
      return { error: e.code + ': ' + e.message };
    }
  };
  out.substring = await found({ query: 'needle' });
  out.ignoringCase = await found({ query: 'needle', caseSensitive: false });
  out.regex = await found({ query: 'N[A-Z]+ \\\\w+', regex: true });
  try {
    out.grep = await withRegexSession({}, (s) =>
      s.run({ kind: 'grep', pattern: 'e+d', flags: 'i', files: [{ path: 'f.txt', text: 'x\\nneedle\\nNEEDLE' }], maxMatches: 10, maxLineChars: 100 }),
    );
  } catch (e) {
    out.grep = { error: e.code + ': ' + e.message };
  }
  const pool = new SandboxPool();
  try {
    const limits = { timeLimitMs: 5000, memoryBytes: 32 * 1024 * 1024, maxOutputBytes: 1024 * 1024 };
    const end = await pool.run({ key: 'k', source: 'function run(a) { return a.n * 2 }', filename: 'x.js', argsJson: '{"n":21}', invocationId: 'i', limits, live: false }, { op: async () => ({ ok: true, json: 'null' }) });
    out.script = end.ok ? JSON.parse(end.json) : { error: end.error.code + ': ' + end.error.message };
  } catch (e) {
    out.script = { error: e.code + ': ' + e.message };
  } finally {
    await pool.close();
  }
  try {
    const lookahead = schemaPattern('^(?=.*\\\\d)\\\\w+$');
    out.lookahead = [lookahead.engine, lookahead.test('abc1'), lookahead.test('abc')];
  } catch (e) {
    out.lookahead = { error: e.code + ': ' + e.message };
  }
} finally {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out));
`;

async function bundleApp(withWorkers: boolean): Promise<string> {
  // Inside the project, so the bundle's external packages resolve from its node_modules.
  await fs.mkdir(path.join(root, '.test-results'), { recursive: true });
  const out = await fs.mkdtemp(path.join(root, '.test-results', 'worker-bundles-'));
  dirs.push(out);
  const entry = path.join(out, 'entry.ts');
  await fs.writeFile(entry, ENTRY);
  const app = { bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'silent' } as const;
  await build({ ...app, entryPoints: [entry], outfile: path.join(out, 'app.mjs'), absWorkingDir: root });
  if (withWorkers) {
    const options = Object.values((workerBundles as (dir: string) => Record<string, object>)(out));
    await Promise.all(options.map((o) => build({ ...o, absWorkingDir: root, sourcemap: false, logLevel: 'silent' })));
  }
  return path.join(out, 'app.mjs');
}

describe('the worker bundles', () => {
  it('name each worker module of the core, one .cjs file each', async () => {
    expect(Object.keys(WORKERS as Record<string, string>).sort()).toEqual(['buffer-search-worker', 'safe-regex-worker', 'script-worker', 'sync-regex-worker']);
    for (const [name, source] of Object.entries(WORKERS as Record<string, string>)) {
      expect(path.basename(source)).toBe(`${name}.ts`);
      await fs.access(path.join(root, source));
    }
  });

  it('run beside a bundle under plain Node: a buffer search and a grep answer from the .cjs workers', async () => {
    const app = await bundleApp(true);
    const names = (await fs.readdir(path.dirname(app))).sort();
    expect(names).toEqual(['app.mjs', 'buffer-search-worker.cjs', 'entry.ts', 'safe-regex-worker.cjs', 'script-worker.cjs', 'sync-regex-worker.cjs']);
    expect(await runNode(app)).toEqual({
      substring: [[2, 'needle one']],
      ignoringCase: [
        [2, 'needle one'],
        [4, 'NEEDLE two'],
      ],
      regex: [[4, 'NEEDLE two']],
      grep: {
        matches: [
          { path: 'f.txt', line: 2, text: 'needle' },
          { path: 'f.txt', line: 3, text: 'NEEDLE' },
        ],
        more: false,
      },
      // A schema pattern re2js cannot run, answered by the synchronous worker.
      lookahead: ['bounded', true, false],
      // A script run by QuickJS in the script tools' worker, which carries its engine's code.
      script: 42,
    });
  });

  it('are what a bundle needs: without them a search fails with an error naming the missing file', async () => {
    const app = await bundleApp(false);
    const r = (await runNode(app)) as Record<string, { error: string }>;
    expect(r.substring!.error).toMatch(/^INTERNAL: .*buffer-search-worker\.cjs/);
    expect(r.grep!.error).toMatch(/^INTERNAL: .*safe-regex-worker\.cjs/);
    expect(r.lookahead!.error).toMatch(/^INTERNAL: the schema pattern .* could not be checked: .*sync-regex-worker\.cjs is missing/);
    expect(r.script!.error).toMatch(/^UNAVAILABLE: script tools cannot start their sandbox: .*script-worker\.cjs/);
  });
});
