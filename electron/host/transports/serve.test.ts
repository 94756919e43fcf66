/**
 * `npm run serve`'s entry (serve.ts, bundled as `npm run build` bundles it to serve.mjs), run as a
 * child process with a home folder of its own: a command line it does not take ends with exit 2
 * and the usage before any data folder is made or opened (a misspelt `--data-dir` once started
 * the host on the desktop app's own folder), and `--help` prints the usage.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without types
import { electronBundles } from '../../../scripts/electron-bundles.mjs';
import { useTempDirs } from '../../core/testing/temp-dir';
import { parseServeArgv, SERVE_USAGE } from './serve-host';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
// Inside the repo, so the bundle's bare imports resolve from its node_modules as the app's do.
const OUT = path.join(ROOT, 'node_modules', '.cache', `toolsmith-serve-${process.pid}`);
const ENTRY = path.join(OUT, 'serve.mjs');
const SLOW = 120_000;

beforeAll(async () => {
  await build((electronBundles as (dir: string) => Record<string, Parameters<typeof build>[0]>)(OUT).serve!);
}, 120_000);
afterAll(async () => {
  await fs.rm(OUT, { recursive: true, force: true });
});

const tempDir = useTempDirs();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** It printed its address: it started serving (then it is stopped). */
  served: boolean;
}

/** serve.mjs with `args`, HOME (and so the desktop app's default folder) in `home`. */
function serve(home: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), TOOLSMITH_DATA_DIR: '' };
    delete env.TOOLSMITH_PORT;
    const child = spawn(process.execPath, [ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Run = { code: null, stdout: '', stderr: '', served: false };
    child.stdout.on('data', (c: Buffer) => {
      run.stdout += c.toString();
      if (!run.served && run.stdout.includes('Toolsmith is running at')) {
        run.served = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (c: Buffer) => (run.stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ...run, code }));
  });
}

describe('serve.mjs (npm run serve): its command line', () => {
  it('refuses an unknown option, an extra argument, an option without its value, a repeated one and a bad port: exit 2 with the usage, no data folder made or opened', async () => {
    const home = await tempDir();
    const misspelt = path.join(home, 'mine');
    const cases: [string[], string][] = [
      [['--data-dri', misspelt], "serve: unknown option '--data-dri' (did you mean --data-dir?)"],
      [['--port', '0', '--data-dri', misspelt], "serve: unknown option '--data-dri' (did you mean --data-dir?)"],
      [['--data-dir', misspelt, '--prot', '0'], "serve: unknown option '--prot' (did you mean --port?)"],
      [['--port', '0', misspelt], `serve: unexpected argument '${misspelt}': serve takes options only`],
      [['--data-dir'], "serve: option '--data-dir' needs a value: --data-dir DIR"],
      [['--data-dir', '--port', '0'], "serve: option '--data-dir' needs a value"],
      [['--data-dir=', '--port', '0'], "serve: option '--data-dir' needs a value"],
      [['--data-dir', misspelt, '--data-dir', misspelt], "serve: option '--data-dir' is given twice"],
      [['--port', 'eighty', '--data-dir', misspelt], "serve: --port must be a number from 0 to 65535: got 'eighty'"],
    ];
    for (const [args, message] of cases) {
      const r = await serve(home, args);
      const shown = `${args.join(' ')}\n${r.stdout}${r.stderr}`;
      expect(r.served, shown).toBe(false);
      expect(r.code, shown).toBe(2);
      expect(r.stderr, shown).toContain(message);
      expect(r.stderr, shown).toContain('Usage: npm run serve -- [options]');
      expect(r.stderr, shown).toContain('--data-dir DIR');
      expect(r.stdout, shown).toBe('');
      // Nothing was made: not the folder named, not the desktop app's own (~/.config/Toolsmith).
      expect(await fs.readdir(home), shown).toEqual([]);
    }
  }, SLOW);

  it('--help (and -h) prints the usage on stdout and exits 0, opening nothing', async () => {
    const home = await tempDir();
    for (const args of [['--help'], ['-h'], ['--data-dir', path.join(home, 'mine'), '--help']]) {
      const r = await serve(home, args);
      expect([r.code, r.served, r.stderr], args.join(' ')).toEqual([0, false, '']);
      expect(r.stdout).toContain('Usage: npm run serve -- [options]');
      for (const option of ['--port N', '--data-dir DIR', '--static DIR', '--resources DIR', '-h, --help']) expect(r.stdout).toContain(option);
      expect(await fs.readdir(home)).toEqual([]);
    }
  }, SLOW);
});

describe('serve --frame-port', () => {
  it('pins the port of MCP Apps’ pages, checked as --port is', () => {
    expect(parseServeArgv(['--frame-port', '41999']).framePort).toBe(41999);
    expect(parseServeArgv(['--frame-port=0']).framePort).toBe(0);
    expect(() => parseServeArgv(['--frame-port', 'x'])).toThrow("--frame-port must be a number from 0 to 65535: got 'x'");
    expect(() => parseServeArgv(['--frame-port'])).toThrow("option '--frame-port' needs a value: --frame-port N");
    expect(SERVE_USAGE).toContain('--frame-port N');
  });
});
