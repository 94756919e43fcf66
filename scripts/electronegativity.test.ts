/** The security scan `npm test` runs over the shell (scripts/electronegativity.mjs) finds what it should. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import { annotationsWithoutReason, scanShell, shellFiles } from './electronegativity.mjs';

type Scan = { findings: { id: string; file: string; line: number }[]; problems: string[] };

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>, excluded: Record<string, string> = {}): { root: string; annotationsFile: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-eng-test-'));
  dirs.push(root);
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  const annotationsFile = path.join(root, 'annotations.json');
  fs.writeFileSync(annotationsFile, JSON.stringify({ excluded }));
  return { root, annotationsFile };
}

const OFFLINE = {
  AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK: 'needs the network in this test',
  ELECTRON_VERSION_JSON_CHECK: 'feeds the check above only',
};

describe('electronegativity over the shell', () => {
  it('scans main, preload and the host helpers with the Electron version from package.json', () => {
    const files = shellFiles() as string[];
    expect(files).toEqual(expect.arrayContaining(['electron/main.ts', 'electron/preload.ts', 'electron/host/shell/window-options.ts', 'electron/host/security.ts', 'package.json']));
    expect(files.some((f) => f.endsWith('.test.ts'))).toBe(false);
  });

  it('reports a window without isolation or sandbox, and a shell that limits neither navigation nor permissions', async () => {
    const p = project({
      'electron/main.ts': [
        "import { BrowserWindow } from 'electron';",
        'const win = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false } });',
        "void win.loadURL('https://example.com');",
        '',
      ].join('\n'),
    }, OFFLINE);
    const r = (await scanShell({ ...p, files: ['electron/main.ts'] })) as Scan;
    expect(r.problems).toEqual([]);
    const ids = r.findings.map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(['CONTEXT_ISOLATION_JS_CHECK', 'SANDBOX_JS_CHECK', 'LIMIT_NAVIGATION_GLOBAL_CHECK', 'PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK']));
  }, 60_000);

  it('takes a line annotated with its reason, and refuses an annotation without one', async () => {
    const main = (tail: string) => `import { shell } from 'electron';\nconst url = 'https://example.com';\nshell.openExternal(url);${tail}\n`;
    const openExternal = (r: Scan) => r.findings.filter((f) => f.id === 'OPEN_EXTERNAL_JS_CHECK');
    const plain = (await scanShell({ ...project({ 'electron/main.ts': main('') }, OFFLINE), files: ['electron/main.ts'] })) as Scan;
    expect(openExternal(plain)).toEqual([expect.objectContaining({ file: 'electron/main.ts', line: 3 })]);

    const annotated = project({ 'electron/main.ts': main(' /* eng-disable OPEN_EXTERNAL_JS_CHECK -- url checked by isSafeExternalUrl */') }, OFFLINE);
    const r1 = (await scanShell({ ...annotated, files: ['electron/main.ts'] })) as Scan;
    expect(r1.problems).toEqual([]);
    expect(openExternal(r1)).toEqual([]);

    const bare = project({ 'electron/main.ts': main(' /* eng-disable OPEN_EXTERNAL_JS_CHECK */') }, OFFLINE);
    const r2 = (await scanShell({ ...bare, files: ['electron/main.ts'] })) as Scan;
    expect(r2.problems).toEqual([expect.stringMatching(/electron\/main\.ts:3: eng-disable without a reason/)]);
  }, 60_000);

  it('refuses an excluded check with no reason or a misspelt name', async () => {
    const p = project({ 'electron/main.ts': 'export {};\n' }, { ...OFFLINE, CSP_GLOBAL_CHECK: '', CPS_GLOBAL_CHECK: 'a typo of the name' });
    const r = (await scanShell({ ...p, files: ['electron/main.ts'] })) as Scan;
    expect(r.problems).toEqual([expect.stringMatching(/CSP_GLOBAL_CHECK is excluded without a reason/), expect.stringMatching(/no check named CPS_GLOBAL_CHECK/)]);
  });

  it('finds a reason on every annotation in the shell', () => {
    for (const f of shellFiles() as string[]) {
      expect(annotationsWithoutReason(f, fs.readFileSync(path.join(import.meta.dirname, '..', f), 'utf8')), f).toEqual([]);
    }
  });
});
