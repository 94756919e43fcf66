// The project's vitest config, running only core-left-open.fixture.ts: scripts/architecture.test.ts
// runs it in a child process to see the setup file fail a file that leaves a core open.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config';

export default defineConfig({
  ...base,
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: { ...base.test, include: ['scripts/testing/core-left-open.fixture.ts'] },
});
