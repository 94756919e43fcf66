/**
 * What the conformance run needs that `npm ci` does not install: the suite and a Node 22 to run
 * it (the suite wants Node ≥ 22; the app stays on the Node it was built for). Both are
 * installed on first use into the cache folder, one npm prefix per pinned version, so nothing
 * of them reaches package.json or node_modules.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Ignored by git (.gitignore): the installed tools and the raw results of each run. */
export const CACHE = path.join(ROOT, '.conformance');

/** The suite's latest release: 2025-06-18 and 2025-11-25 scenarios only. */
export const SUITE_STABLE = '0.1.16';
/** The prerelease with the 2026-07-28 scenarios and `--requirements`; its scenario set still moves, hence the exact pin. */
export const SUITE_NEXT = '0.2.0-alpha.12';
export const NODE22 = '22.23.3';

export interface Tools {
  node22: string;
  /** The suite's CLI entry, run with node22. */
  suite: string;
  suiteVersion: string;
}

function npm(args: string[], cwd: string, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // npm_execpath is npm's own CLI when this runs under `npm run`; otherwise npm from PATH.
    const viaNpm = process.env.npm_execpath && /npm-cli\.[cm]?js$/.test(process.env.npm_execpath);
    const [cmd, pre] = viaNpm ? [process.execPath, [process.env.npm_execpath!]] : ['npm', []];
    const child = spawn(cmd, [...pre, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      void fs.writeFile(logFile, Buffer.concat(out)).finally(() => {
        if (code === 0) resolve();
        else reject(new Error(`npm ${args.join(' ')} failed (exit ${code}); see ${logFile}`));
      });
    });
  });
}

/** Installs `spec` (name@exact-version) into its own prefix under the cache, once; answers the prefix. */
async function ensurePackage(dirName: string, spec: string, check: (prefix: string) => boolean): Promise<string> {
  const prefix = path.join(CACHE, 'tools', dirName);
  const done = path.join(prefix, '.installed');
  if (existsSync(done) && check(prefix)) return prefix;
  process.stderr.write(`conformance: installing ${spec} into ${path.relative(ROOT, prefix)}/ (first run only; needs the npm registry)…\n`);
  await fs.rm(prefix, { recursive: true, force: true });
  await fs.mkdir(prefix, { recursive: true });
  await fs.writeFile(path.join(prefix, 'package.json'), JSON.stringify({ name: `conformance-${dirName}`, private: true }) + '\n');
  await npm(['install', '--save-exact', '--no-audit', '--no-fund', '--loglevel=error', spec], prefix, path.join(prefix, 'install.log'));
  if (!check(prefix)) throw new Error(`${spec} installed, but what it should provide is missing; see ${path.join(prefix, 'install.log')}`);
  await fs.writeFile(done, `${spec}\n`);
  process.stderr.write(`conformance: ${spec} installed.\n`);
  return prefix;
}

function suiteEntry(prefix: string): string {
  return path.join(prefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
}

export async function ensureTools(suiteVersion: string): Promise<Tools> {
  const nodePrefix = await ensurePackage(`node-${NODE22}`, `node@${NODE22}`, (p) => existsSync(path.join(p, 'node_modules', '.bin', 'node')));
  const node22 = path.join(nodePrefix, 'node_modules', '.bin', 'node');
  const suitePrefix = await ensurePackage(`suite-${suiteVersion}`, `@modelcontextprotocol/conformance@${suiteVersion}`, (p) => existsSync(suiteEntry(p)));
  return { node22, suite: suiteEntry(suitePrefix), suiteVersion };
}
