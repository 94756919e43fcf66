import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh temp folder per test, removed afterwards. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  return async () => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-test-'));
    made.push(d);
    return d;
  };
}

/** The repo's resources folder (built-in bundles), for cores built in tests. */
export const RESOURCES_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'resources');
