#!/usr/bin/env node
// The `toolsmith` command: the built entry (`npm run build` writes dist-electron/toolsmith.mjs),
// or, in a checkout that was not built, the TypeScript source through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist-electron/toolsmith.mjs', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../electron/host/cli/toolsmith-cli.ts', import.meta.url).href);
}
