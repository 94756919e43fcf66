import { ESLint } from 'eslint';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createCore } from '../electron/core/app';
import { checkCoresClosed, unclosedCores } from '../electron/core/testing/core-leaks';
import type { LayersTable } from './eslint/layers.js';
import { compare, layerGraph, renderTable, tableComments, withTable } from './layers';

const root = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

async function ruleErrors(ruleId: string, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal, `${file} does not parse`).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

const importErrors = (file: string, code: string) => ruleErrors('no-restricted-imports', file, code);
const layerErrors = (file: string, code: string) => ruleErrors('toolsmith/layers', file, code);

/** The table the lint rule is given, read through ESLint's own view of the config. */
async function configuredLayers(): Promise<LayersTable> {
  const config = (await eslint.calculateConfigForFile(path.join(root, 'electron/core/app.ts'))) as { rules: Record<string, [unknown, { layers: LayersTable }]> };
  return config.rules['toolsmith/layers']![1].layers;
}

/** The 1-based line of the only line of `file` containing `marker`. */
function lineOf(file: string, marker: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(marker) && !l.includes('lineOf(') ? [i + 1] : []));
  expect(at, `${marker} in ${file}`).toHaveLength(1);
  return at[0]!;
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

  it('lets the hosts import only types from electron', async () => {
    const hostErrors = (code: string) => ruleErrors('@typescript-eslint/no-restricted-imports', 'electron/host/shell/x.ts', code);
    expect(await hostErrors("import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
    expect(await hostErrors("import type { BrowserWindow } from 'electron';\nexport type A = BrowserWindow;\n")).toEqual([]);
  });

  it('lets each room import what it may', async () => {
    expect(await importErrors('electron/core/x.ts', "import fs from 'node:fs';\nimport { z } from 'zod';\nimport { ERROR_CODES } from '../../shared/errors';\nexport const a = [fs, z, ERROR_CODES];\n")).toEqual([]);
    expect(await importErrors('renderer/x.ts', "import { operations } from '../shared/contract';\nexport const a = operations;\n")).toEqual([]);
    expect(await importErrors('electron/main.ts', "import { app } from 'electron';\nimport { createCore } from './core/app';\nexport const a = [app, createCore];\n")).toEqual([]);
  });
});

describe('folder layers: toolsmith/layers and the `layers` table of eslint.config.js', () => {
  it('refuses an import of a folder its entry does not list, naming the rule table', async () => {
    const errors = await layerErrors('electron/core/lib/x.ts', "import { ToolStore } from '../bundles/tool-store';\nexport const a = ToolStore;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("electron/core/lib may not import electron/core/bundles ('../bundles/tool-store')");
    expect(errors[0]).toContain('`layers` in eslint.config.js');
  });

  it('counts type-only, re-exported and dynamic imports, and import types', async () => {
    const code = [
      "import type { RenderedTurn } from '../timeline/render';",
      "export * from '../agent/loop';",
      "export const load = () => import('../chat/chat-service');",
      "export type Db = typeof import('../memory/memory-db');",
      'export type R = RenderedTurn;',
      '',
    ].join('\n');
    const errors = await layerErrors('electron/core/llm/x.ts', code);
    expect(errors.map((e) => /may not import (\S+)/.exec(e)?.[1])).toEqual([
      'electron/core/timeline',
      'electron/core/agent',
      'electron/core/chat',
      'electron/core/memory',
    ]);
  });

  it('holds the hosts, the shell entry and the renderer to their entries too', async () => {
    expect(await layerErrors('electron/host/shell/x.ts', "import { buildProgram } from '../cli/program';\nexport const a = buildProgram;\n")).toHaveLength(1);
    expect(await layerErrors('electron/core/lib/x.ts', "import { createCore } from '../app';\nexport const a = createCore;\n")).toHaveLength(1);
    expect(await layerErrors('electron/preload.ts', "import { createCore } from './core/app';\nexport const a = createCore;\n")).toHaveLength(1);
    expect(await layerErrors('renderer/editor/x.tsx', "import { ToolsScreen } from '../features/tools/ToolsScreen';\nexport const a = ToolsScreen;\n")).toHaveLength(1);
    expect(await layerErrors('renderer/components/x.tsx', "import { ChatScreen } from '../features/chat/ChatScreen';\nexport const a = ChatScreen;\n")).toHaveLength(1);
    expect(await layerErrors('shared/x.ts', "import { q } from '../electron/core/lib/args';\nexport const a = q;\n")).toHaveLength(1);
  });

  it('lets a folder import itself, what its entry lists and packages; tests and test support import anything', async () => {
    const agent = [
      "import fs from 'node:fs';",
      "import { ConversationStore } from '../timeline/conversation-store';",
      "import { runTurn } from './loop';",
      "import { AppError } from '../../../shared/errors';",
      'export const a = [fs, ConversationStore, runTurn, AppError];',
      '',
    ].join('\n');
    expect(await layerErrors('electron/core/agent/x.ts', agent)).toEqual([]);
    const anything = "import { ToolStore } from '../bundles/tool-store';\nimport { createCore } from '../app';\nexport const a = [ToolStore, createCore];\n";
    expect(await layerErrors('electron/core/lib/x.test.ts', anything)).toEqual([]);
    expect(await layerErrors('electron/core/testing/x.ts', anything)).toEqual([]);
    expect(await layerErrors('scripts/x.ts', "import { createCore } from '../electron/core/app';\nexport const a = createCore;\n")).toEqual([]);
  });

  it('names a folder that has no entry', async () => {
    const errors = await layerErrors('electron/core/not-in-the-table/x.ts', "import { newId } from '../lib/ids';\nexport const a = newId;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('electron/core/not-in-the-table has no entry in `layers` in eslint.config.js');
    // A feature's module.ts is a unit of its own (it wires the feature): even its own folder is another unit.
    const wiring = await layerErrors('electron/core/lib/module.ts', "import { newId } from './ids';\nexport const a = newId;\n");
    expect(wiring).toHaveLength(1);
    expect(wiring[0]).toContain('electron/core/lib/module.ts has no entry');
  });

  it('matches the tree: an entry for each folder with product code, none for a folder without, and every allowance used', async () => {
    const graph = layerGraph();
    const result = compare(graph, await configuredLayers());
    const fix = 'npx tsx scripts/layers.ts prints what differs; --write rewrites the table';
    expect(result.violations.map((v) => `${v.from} -> ${v.to}: ${v.where.join(', ')}`), fix).toEqual([]);
    expect(result.unlisted, fix).toEqual([]);
    expect(result.staleEntries, fix).toEqual([]);
    expect(result.unusedAllowances.map((u) => `${u.from} -> ${u.to}`), fix).toEqual([]);
    // The graph is the real one: the agent uses the timeline, the hosts open the core.
    expect(graph.edges.get('electron/core/agent')?.has('electron/core/timeline')).toBe(true);
    expect(graph.edges.get('electron/host/transports')?.has('electron/core/app.ts')).toBe(true);
  });

  it('scripts/layers.ts finds a planted import, counts type-only imports, leaves tests out and keeps the comments of the table', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-layers-'));
    const plant = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    try {
      plant('electron/core/a/x.ts', "import type { Y } from '../b/y';\nexport const x = 1 as unknown as Y;\n");
      plant('electron/core/b/y.ts', "import { z } from '../c/z';\nexport type Y = typeof z;\n");
      plant('electron/core/b/y.test.ts', "import { x } from '../a/x';\nexport const t = x;\n");
      plant('electron/core/c/testing/h.ts', "import { x } from '../../a/x';\nexport const h = x;\n");
      plant('electron/core/c/z.ts', 'export const z = 1;\n');
      const table: LayersTable = { 'electron/core/a': [], 'electron/core/b': ['electron/core/c'], 'electron/core/c': [], 'electron/core/gone': [] };
      const graph = layerGraph(dir);
      expect(compare(graph, table)).toEqual({
        violations: [{ from: 'electron/core/a', to: 'electron/core/b', where: ['electron/core/a/x.ts -> ../b/y'] }],
        unlisted: [],
        staleEntries: ['electron/core/gone'],
        unusedAllowances: [],
      });
      const config = [
        'export const layers = {',
        '  // layers:begin',
        "  'electron/core/a': [],",
        '  // The lowest layer.',
        "  'electron/core/b': [",
        "    'electron/core/c', // to remove: z belongs in b",
        '  ],',
        "  'electron/core/c': [],",
        "  'electron/core/gone': [],",
        '  // layers:end',
        '};',
        '',
      ].join('\n');
      const next = withTable(config, renderTable(graph, table, tableComments(config)));
      expect(next).toBe(
        [
          'export const layers = {',
          '  // layers:begin',
          "  'electron/core/a': [",
          "    'electron/core/b', // new: electron/core/a/x.ts -> ../b/y",
          '  ],',
          '  // The lowest layer.',
          "  'electron/core/b': [",
          "    'electron/core/c', // to remove: z belongs in b",
          '  ],',
          "  'electron/core/c': [],",
          '  // layers:end',
          '};',
          '',
        ].join('\n'),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('test support: toolsmith/no-testing-import and toolsmith/test-support-in-testing', () => {
  const testingErrors = (file: string, code: string) => ruleErrors('toolsmith/no-testing-import', file, code);
  const placeErrors = (file: string) => ruleErrors('toolsmith/test-support-in-testing', file, 'export const a = 1;\n');

  it('refuses a product file importing a testing/ folder', async () => {
    const errors = await testingErrors('electron/core/bundles/x.ts', "import { useTempDirs } from '../testing/temp-dir';\nexport const a = useTempDirs;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("'../testing/temp-dir' is in a testing/ folder");
    expect(await testingErrors('electron/host/transports/x.ts', "import { startRestHost } from '../testing/rest-host';\nexport const a = startRestHost;\n")).toHaveLength(1);
    expect(await testingErrors('shared/model/x.ts', "import type { CountedReads } from '../testing/counted-reads';\nexport type A = CountedReads;\n")).toHaveLength(1);
  });

  it('lets tests, test support, scripts, bench and e2e import it', async () => {
    const code = "import { useTempDirs } from '../testing/temp-dir';\nexport const a = useTempDirs;\n";
    expect(await testingErrors('electron/core/bundles/x.test.ts', code)).toEqual([]);
    expect(await testingErrors('electron/core/bundles/testing/x.ts', "import { useTempDirs } from '../../testing/temp-dir';\nexport const a = useTempDirs;\n")).toEqual([]);
    expect(await testingErrors('scripts/x.ts', "import { useTempDirs } from '../electron/core/testing/temp-dir';\nexport const a = useTempDirs;\n")).toEqual([]);
    expect(await testingErrors('bench/x.ts', "import { useTempDirs } from '../electron/core/testing/temp-dir';\nexport const a = useTempDirs;\n")).toEqual([]);
  });

  it('flags test support named as such outside a testing/ folder', async () => {
    for (const file of [
      'electron/core/bundles/test-helpers.ts',
      'electron/core/chat/fixtures.ts',
      'electron/host/test-fixtures/server.ts',
      'shared/test-servers.ts',
      'renderer/features/chat/test-utils.tsx',
      'scripts/test-fixtures.ts',
    ]) {
      const errors = await placeErrors(file);
      expect(errors, file).toHaveLength(1);
      expect(errors[0], file).toContain('move it into a testing/ folder');
    }
    for (const file of [
      'electron/core/testing/chat-fixtures.ts',
      'electron/core/bundles/testing/fixtures.ts',
      'e2e/fixtures/host.ts',
      'electron/core/builtin-functions/test-context.ts',
      'electron/core/testcases/test-case-store.ts',
      'bench/harness.ts',
    ]) {
      expect(await placeErrors(file), file).toEqual([]);
    }
  });
});

describe('cores left open: electron/core/testing/core-leaks.ts, a setup file of vitest.config.ts', () => {
  it('names where a core was created when it is never closed, and not once it is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-leaks-'));
    try {
      const core = await createCore({ dataDir: path.join(dir, 'data'), resourcesDir: dir, host: 'headless', watch: false, streams: false }); // CREATED HERE
      expect(unclosedCores()).toHaveLength(1);
      const line = lineOf(import.meta.filename, '// CREATED HERE');
      expect(() => checkCoresClosed()).toThrow(`1 core was created and never closed`);
      const again = await createCore({ dataDir: path.join(dir, 'data2'), resourcesDir: dir, host: 'headless', watch: false, streams: false }); // CREATED AGAIN
      let message = '';
      try {
        checkCoresClosed();
      } catch (e) {
        message = (e as Error).message;
      }
      const againLine = lineOf(import.meta.filename, '// CREATED AGAIN');
      expect(message).toContain(`created at scripts/architecture.test.ts:${againLine}:`);
      expect(message).toContain('in test "cores left open: electron/core/testing/core-leaks.ts, a setup file of vitest.config.ts > names where');
      expect(message).not.toContain(`architecture.test.ts:${line}:`); // reported once, then forgotten
      await core.close();
      await again.close();
      const closed = await createCore({ dataDir: path.join(dir, 'data3'), resourcesDir: dir, host: 'headless', watch: false, streams: false });
      await closed.close();
      expect(unclosedCores()).toEqual([]);
      expect(() => checkCoresClosed()).not.toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a test file that leaves a core open, naming where it was created (a vitest run of a fixture)', async () => {
    const fixture = path.join(root, 'scripts/testing/core-left-open.fixture.ts');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'));
    const child = spawn(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'scripts/testing/core-leak.vitest.config.ts'], {
      cwd: root,
      env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const text = stripVTControlCharacters(output);
    expect(code, text).toBe(1);
    expect(text).toContain('1 core was created and never closed');
    expect(text).toContain(`created at scripts/testing/core-left-open.fixture.ts:${lineOf(fixture, '// LEFT OPEN')}:`);
    expect(text).toContain('in test "leaves a core open"');
    expect(text).toContain('2 passed'); // both tests pass: the file fails on the core alone
  }, 120_000);
});
