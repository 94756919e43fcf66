import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

async function importErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the import rules of the three rooms', () => {
  it('refuses electron in the core', async () => {
    expect(await importErrors('electron/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
  });

  it('refuses the hosts in the core', async () => {
    expect(await importErrors('electron/core/bundles/x.ts', "import { startHttpHost } from '../../host/http';\nexport const a = startHttpHost;\n")).toHaveLength(1);
  });

  it('refuses electron/ and Node in the renderer', async () => {
    expect(await importErrors('renderer/x.ts', "import { createCore } from '../electron/core/app';\nexport const a = createCore;\n")).toHaveLength(1);
    expect(await importErrors('renderer/features/x.tsx', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
  });

  it('refuses Node and the renderer in shared', async () => {
    expect(await importErrors('shared/x.ts', "import path from 'node:path';\nexport const a = path;\n")).toHaveLength(1);
    expect(await importErrors('shared/x.ts', "import { App } from '../renderer/App';\nexport const a = App;\n")).toHaveLength(1);
  });

  it('lets each room import what it may', async () => {
    expect(await importErrors('electron/core/x.ts', "import fs from 'node:fs';\nimport { z } from 'zod';\nimport { ERROR_CODES } from '../../shared/errors';\nexport const a = [fs, z, ERROR_CODES];\n")).toEqual([]);
    expect(await importErrors('renderer/x.ts', "import { operations } from '../shared/contract';\nexport const a = operations;\n")).toEqual([]);
    expect(await importErrors('electron/main.ts', "import { app } from 'electron';\nimport { createCore } from './core/app';\nexport const a = [app, createCore];\n")).toEqual([]);
  });
});
