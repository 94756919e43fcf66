import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, edgeFiles, folderGraph } from './folder-cycles';

const core = path.resolve(import.meta.dirname, '..', 'electron', 'core');

function plant(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-cycles-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('no import cycles between the core\'s folders', () => {
  it('the core has none', () => {
    const g = folderGraph(core);
    const found = cycles(g);
    const explain = found.map((c) => c.flatMap((a) => c.filter((b) => b !== a && g.get(a)?.has(b)).flatMap((b) => edgeFiles(core, a, b))));
    expect(found, `cycles: ${JSON.stringify(explain, null, 1)}`).toEqual([]);
    // The graph is real: the agent uses the timeline, the composition root everything.
    expect(g.get('agent')?.has('timeline')).toBe(true);
    expect(g.get('./app')?.size).toBeGreaterThan(10);
  });

  it('bites: a planted cycle is found, through type-only and dynamic imports too; tests and test helpers do not count', () => {
    const dir = plant({
      'a/x.ts': "import { y } from '../b/y';\nexport const x = y;\n",
      'b/y.ts': "import type { Z } from '../c/z';\nexport const y = 1 as unknown as Z;\n",
      'c/z.ts': "export type Z = number;\nexport const load = () => import('../a/x');\n",
      'd/w.ts': "export const w = 1;\n",
      'd/w.test.ts': "import { x } from '../a/x';\nexport const t = x;\n",
      'testing/h.ts': "import { w } from '../d/w';\nimport { x } from '../a/x';\nexport const h = [w, x];\n",
      'a/uses-d.ts': "import { w } from '../d/w';\nexport const u = w;\n",
      'app.ts': "import { x } from './a/x';\nimport { w } from './d/w';\nexport const app = [x, w];\n",
    });
    try {
      expect(cycles(folderGraph(dir))).toEqual([['a', 'b', 'c']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
