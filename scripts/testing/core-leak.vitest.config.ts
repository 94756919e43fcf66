// The project's vitest config, running only core-left-open.fixture.ts: scripts/architecture.test.ts
// runs it in a child process to see the setup file fail a file that leaves a core open. Run as the
// bulk of the suite runs (the 'shared' project: isolate false), where the check must hold too.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config';

const { projects: _projects, ...test } = base.test!;

export default defineConfig({
  ...base,
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: { ...test, isolate: false, include: ['scripts/testing/core-left-open.fixture.ts'] },
});
