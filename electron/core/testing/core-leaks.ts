/**
 * Every core a test file opens is closed by the end of the file (a vitest setup file, see
 * vitest.config.ts). A core holds SQLite files, folder watchers and timers: one left open keeps
 * them for the rest of the worker's life and hides a missing `close()` the product code would
 * have too. `createCore` is wrapped (vi.mock of ../app, so the hosts' and helpers' calls are
 * seen as well) to record where each core was created; after the file's own afterAll hooks, the
 * file fails naming each core that was never closed.
 */
import path from 'node:path';
import { afterAll, expect, vi } from 'vitest';
import type { Core, CoreConfig } from '../app';

export interface OpenedCore {
  /** The first frame outside this file and app.ts: where createCore was called, `file:line:column`. */
  where: string;
  /** The first frame in a test file, when that is not `where` (a helper opened the core). */
  test?: string;
  /** The running test's name, or undefined outside a test (module scope, beforeAll). */
  testName?: string;
  closed: boolean;
}

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const opened: OpenedCore[] = [];

function frames(stack: string): string[] {
  return stack
    .split('\n')
    .slice(1)
    .map((line) => /\(?((?:file:\/\/)?\/[^()]+?:\d+:\d+)\)?$/.exec(line.trim())?.[1])
    .filter((f): f is string => f !== undefined)
    .map((f) => f.replace(/^file:\/\//, ''))
    .filter((f) => !f.includes('/node_modules/') && !f.startsWith('node:'));
}

function shown(frame: string): string {
  const rel = path.relative(ROOT, frame);
  return rel.startsWith('..') ? frame : rel;
}

/** Records a core and where it was created (`stack`: an Error's stack taken in createCore's caller). */
export function trackCore(core: Core, stack: string): Core {
  const own = frames(stack).filter((f) => !/[\\/]core-leaks\.ts:|[\\/]electron[\\/]core[\\/]app\.ts:/.test(f));
  const where = own[0] ? shown(own[0]) : '(unknown place)';
  const inTest = own.find((f) => /\.(test|spec)\.tsx?:/.test(f));
  const entry: OpenedCore = {
    where,
    test: inTest && shown(inTest) !== where ? shown(inTest) : undefined,
    testName: expect.getState().currentTestName,
    closed: false,
  };
  opened.push(entry);
  const close = core.close.bind(core);
  core.close = () => {
    entry.closed = true;
    return close();
  };
  return core;
}

/** The cores recorded so far that were never closed. */
export function unclosedCores(): OpenedCore[] {
  return opened.filter((c) => !c.closed);
}

/** Throws, naming each core recorded and never closed; then forgets them (one report each). */
export function checkCoresClosed(): void {
  const left = unclosedCores();
  opened.length = 0;
  if (left.length === 0) return;
  const lines = left.map(
    (c) => `  - created at ${c.where}${c.test ? ` (from ${c.test})` : ''}${c.testName ? ` in test "${c.testName}"` : ' outside any test'}`,
  );
  throw new Error(
    `${left.length} core${left.length === 1 ? ' was' : 's were'} created and never closed ` +
      `(a core holds SQLite files, watchers and timers: await core.close() in the test or its afterEach/afterAll):\n${lines.join('\n')}`,
  );
}

vi.mock('../app', async (importOriginal) => {
  const app = await importOriginal<typeof import('../app')>();
  return {
    ...app,
    createCore(config: CoreConfig): Promise<Core> {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 50;
      const stack = new Error('createCore').stack ?? '';
      Error.stackTraceLimit = limit;
      return app.createCore(config).then((core) => trackCore(core, stack));
    },
  };
});

// Registered before the test file's own hooks, so it runs after them (vitest runs after-hooks in
// the reverse order): a core closed in the file's afterAll counts as closed.
afterAll(() => checkCoresClosed());
