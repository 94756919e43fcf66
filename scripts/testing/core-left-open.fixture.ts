// Run by scripts/architecture.test.ts (through core-leak.vitest.config.ts), never by the suite:
// one core closed, one left open; the run must fail naming the second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createCore } from '../../electron/core/app';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-core-leak-'));
const resourcesDir = path.join(dir, 'resources');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('closes the core it opens', async () => {
  const core = await createCore({ dataDir: path.join(dir, 'closed'), resourcesDir, host: 'electron', watch: false, streams: false });
  await core.close();
});

it('leaves a core open', async () => {
  const core = await createCore({ dataDir: path.join(dir, 'open'), resourcesDir, host: 'electron', watch: false, streams: false }); // LEFT OPEN
  expect(core.dataDir).toBe(path.join(dir, 'open'));
});
