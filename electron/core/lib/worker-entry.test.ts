import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledWorkerPath, compileWorkerSource, isSourceUrl, startWorker } from './worker-entry';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-worker-entry-'));
  dirs.push(d);
  return d;
}

/** Posts one message to a worker and waits for its answer; the worker is ended after. */
async function ask(w: Worker, message: unknown): Promise<unknown> {
  try {
    return await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.postMessage(message);
    });
  } finally {
    await w.terminate();
  }
}

const LIMITS = { maxOldGenerationSizeMb: 64 };

describe('worker entries', () => {
  it('tells a TypeScript source from a bundle by its module URL', () => {
    expect(isSourceUrl('file:///app/electron/core/routing/buffer-search.ts')).toBe(true);
    expect(isSourceUrl('file:///app/dist-electron/serve.mjs')).toBe(false);
    expect(isSourceUrl('file:///app/.bench-dist/run.mjs')).toBe(false);
  });

  it('runs a TypeScript worker module from sources: typed code and its local imports, bundled once per process', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'twice.ts'), 'export const twice = (n: number): number => n * 2;\n');
    await fs.writeFile(
      path.join(dir, 'double-worker.ts'),
      [
        "import { parentPort } from 'node:worker_threads';",
        "import { twice } from './twice';",
        'interface Job { n: number }',
        'parentPort!.on("message", (job: Job) => parentPort!.postMessage({ doubled: twice(job.n) }));',
      ].join('\n'),
    );
    const caller = pathToFileURL(path.join(dir, 'caller.ts')).href;
    expect(await ask(startWorker(caller, 'double-worker', LIMITS), { n: 21 })).toEqual({ doubled: 42 });
    // Compiled once: a later edit of the source is not seen by this process.
    const first = compileWorkerSource(caller, 'double-worker');
    await fs.writeFile(path.join(dir, 'twice.ts'), 'export const twice = (n: number): number => n * 3;\n');
    expect(compileWorkerSource(caller, 'double-worker')).toBe(first);
    expect(await ask(startWorker(caller, 'double-worker', LIMITS), { n: 1 })).toEqual({ doubled: 2 });
  });

  it('reports a worker module that does not compile, naming the file', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'broken-worker.ts'), 'const x: number = ;\n');
    expect(() => compileWorkerSource(pathToFileURL(path.join(dir, 'caller.ts')).href, 'broken-worker')).toThrow(/broken-worker\.ts/);
  });

  it('runs the bundled worker file beside a bundle', async () => {
    const dir = await tempDir();
    await fs.writeFile(
      path.join(dir, 'echo-worker.cjs'),
      "const { parentPort } = require('node:worker_threads');\nparentPort.on('message', (m) => parentPort.postMessage({ echo: m }));\n",
    );
    const caller = pathToFileURL(path.join(dir, 'serve.mjs')).href;
    expect(bundledWorkerPath(caller, 'echo-worker')).toBe(path.join(dir, 'echo-worker.cjs'));
    expect(await ask(startWorker(caller, 'echo-worker', LIMITS), 'hi')).toEqual({ echo: 'hi' });
  });

  it('takes a packaged worker from app.asar.unpacked when it is there, else from beside the bundle', async () => {
    const dir = await tempDir();
    const bundle = pathToFileURL(path.join(dir, 'app.asar', 'dist-electron', 'main.mjs')).href;
    expect(bundledWorkerPath(bundle, 'echo-worker')).toBe(path.join(dir, 'app.asar', 'dist-electron', 'echo-worker.cjs'));
    await fs.mkdir(path.join(dir, 'app.asar.unpacked', 'dist-electron'), { recursive: true });
    await fs.writeFile(path.join(dir, 'app.asar.unpacked', 'dist-electron', 'echo-worker.cjs'), '');
    expect(bundledWorkerPath(bundle, 'echo-worker')).toBe(path.join(dir, 'app.asar.unpacked', 'dist-electron', 'echo-worker.cjs'));
  });
});
