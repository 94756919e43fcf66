import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that replace a module (vi.mock of a package or a product module) or otherwise change what
 * every later file in the worker would see: each runs in a fresh module graph of its own. So do
 * the renderer's component tests (*.test.tsx), which set a DOM environment at their top
 * (`// @vitest-environment happy-dom`) and may replace modules such as Monaco's loader.
 */
const ISOLATED = ['electron/core/llm/tokens-runs.test.ts', 'renderer/**/*.test.tsx'];
const ALL = ['electron/**/*.test.ts', 'shared/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts', 'renderer/**/*.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    // Runs before each test file, in either project (with isolate: false as well).
    setupFiles: ['electron/core/testing/core-leaks.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default on two cores is one worker (cores - 1), and most files wait on child
    // processes, sockets and timers rather than the CPU.
    maxWorkers: 2,
    // Set in each project: a project that extends this config adds its include to this one.
    projects: [
      // Most files share their worker's module graph: re-importing the core for each of ~270
      // files cost about two minutes of a run. Files still run one at a time per worker, and
      // each file's setup (core-leaks.ts) still runs before it.
      { extends: true, test: { name: 'shared', isolate: false, include: ALL, exclude: [...configDefaults.exclude, ...ISOLATED] } },
      { extends: true, test: { name: 'isolated', isolate: true, include: ISOLATED } },
    ],
  },
});
