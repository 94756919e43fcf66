// The desktop app under `npm start` needs better-sqlite3 built for Electron's ABI, while the
// tests and the headless host need Node's build in node_modules. The two are kept apart:
// `npm start` stages the app in .electron-app/ (the built main and preload, a package.json,
// and its own node_modules/better-sqlite3 compiled against Electron's headers with node-gyp).
// Node resolves `better-sqlite3` from .electron-app/main.mjs to that copy first, and every
// other package from the project's node_modules. node_modules itself is never rebuilt.
//
// The build needs Electron's headers, which node-gyp downloads once (to ~/.electron-gyp);
// where that or the compiler fails, `npm start` serves the headless host instead and says why.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { WORKERS } from './worker-bundles.mjs';

export const APP_DIR_NAME = '.electron-app';
export const MODULE = 'better-sqlite3';
export const HEADERS_URL = 'https://electronjs.org/headers';
const STAMP = '.toolsmith-electron-build.json';
const BINARY = path.join('build', 'Release', 'better_sqlite3.node');

/** What the staged module must be built for. */
export function wantedBuild({ electronVersion, moduleVersion, platform = process.platform, arch = process.arch }) {
  return { electron: electronVersion, module: moduleVersion, platform, arch };
}

/** Whether the staged build can be used as it is; when not, why it is (re)built. */
export function buildState(stamp, wanted, hasBinary) {
  if (!stamp || !hasBinary) return { ready: false, why: `${MODULE} has not been built for Electron ${wanted.electron} yet` };
  for (const key of ['electron', 'module', 'platform', 'arch']) {
    if (stamp[key] !== wanted[key]) return { ready: false, why: `${MODULE} was built for ${key} ${stamp[key]}, and this is ${wanted[key]}` };
  }
  return { ready: true };
}

/** Why node-gyp failed, in words a user can act on. */
export function rebuildFailure(output, electronVersion) {
  const text = String(output ?? '');
  const fetching = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|fetch failed|FetchError|status ?code:? ?4\d\d|\b40[34]\b|certificate|proxy/i;
  if (fetching.test(text) && /header|download|tarball|https?:\/\//i.test(text)) {
    return `Electron ${electronVersion}'s headers could not be downloaded (node-gyp fetches them from ${HEADERS_URL} on the first start; this machine cannot reach it)`;
  }
  if (/Could not find any Python|find Python|not found: (make|g\+\+|c\+\+|cc|gcc)|No Xcode|could not find any Visual Studio|MSBuild/i.test(text)) {
    return 'no C/C++ build tools were found (node-gyp needs Python 3, make and a C++ compiler)';
  }
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /error|ERR!/i.test(l) && !/not ok$/.test(l))[0];
  return `the native build failed${line ? `: ${line.slice(0, 200)}` : ''}`;
}

/** The window when Electron and its native build are ready; otherwise the headless host, and why. */
export function decideStart({ electron, native }) {
  if (!electron.ok) return { mode: 'headless', cause: 'electron', reason: electron.reason };
  if (!native.ok) return { mode: 'headless', cause: 'native', reason: native.reason };
  return { mode: 'electron', appDir: native.appDir };
}

/** The paragraph `npm start` prints before serving the headless host. */
export function fallbackMessage(decision) {
  const lines =
    decision.cause === 'native'
      ? [
          'Electron was found, but its copy of the database module could not be built, so Toolsmith is',
          'starting its headless host instead: the same app, served to your browser from 127.0.0.1.',
          `Electron loads native modules built for its own ABI; the build failed: ${decision.reason}.`,
          'Where the headers can be downloaded, `npm start` builds it once (in .electron-app/, apart from',
          'the node_modules the tests use). Offline, set TOOLSMITH_ELECTRON_NODEDIR to a folder holding',
          "Electron's unpacked headers, or TOOLSMITH_ELECTRON_HEADERS_URL to a mirror.",
        ]
      : [
          'Electron could not be started on this machine, so Toolsmith is starting its headless host',
          'instead: the same app, served to your browser from 127.0.0.1. Electron downloads its binary',
          'on first start, and that failed here' + (decision.reason ? ` (${decision.reason})` : '') + '.',
          'To get the desktop window, run `npx install-electron` where the download is possible, or set',
          'ELECTRON_OVERRIDE_DIST_PATH to a folder holding an Electron 45 binary.',
        ];
  return ['', ...lines, ''].join('\n');
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The environment node-gyp runs in: npm's own settings (npm_config_nodedir, _target, _runtime) would point it at Node's headers. */
export function gypEnv(env) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_config_(nodedir|target|runtime|disturl|dist_url|arch|build_from_source|devdir)$/i.test(k)));
}

/**
 * Makes sure .electron-app/ holds a better-sqlite3 built for this Electron, building it when
 * missing or stale; then stages the built app there. Answers { ok, appDir } or { ok: false, reason }.
 * `electronPath` (when given) loads the new build once with ELECTRON_RUN_AS_NODE to prove it fits.
 */
export async function prepareElectronApp(opts) {
  const root = opts.root;
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((m) => console.log(m));
  const require = createRequire(path.join(root, 'package.json'));
  const appDir = opts.appDir ?? path.join(root, APP_DIR_NAME);
  const source = opts.moduleDir ?? path.dirname(require.resolve(`${MODULE}/package.json`));
  const target = path.join(appDir, 'node_modules', MODULE);
  const electronVersion = opts.electronVersion ?? require('electron/package.json').version;
  const wanted = wantedBuild({ electronVersion, moduleVersion: readJson(path.join(source, 'package.json'))?.version });

  const state = buildState(readJson(path.join(target, STAMP)), wanted, fs.existsSync(path.join(target, BINARY)));
  if (!state.ready) {
    log(`${state.why}: building it now, once, in ${path.relative(root, target) || target} (a minute or two)...`);
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.cpSync(source, target, { recursive: true, filter: (src) => path.relative(source, src).split(path.sep)[0] !== 'build' });
    const nodedir = env.TOOLSMITH_ELECTRON_NODEDIR;
    const args = [
      opts.nodeGyp ?? require.resolve('node-gyp/bin/node-gyp.js'),
      'rebuild',
      '--release',
      '--runtime=electron',
      `--target=${electronVersion}`,
      `--arch=${wanted.arch}`,
      '--build-from-source',
      ...(nodedir ? [`--nodedir=${nodedir}`] : [`--dist-url=${opts.headersUrl ?? env.TOOLSMITH_ELECTRON_HEADERS_URL ?? HEADERS_URL}`, `--devdir=${opts.devDir ?? path.join(os.homedir(), '.electron-gyp')}`]),
    ];
    const r = await run(process.execPath, args, { cwd: target, env: gypEnv(env), timeoutMs: opts.timeoutMs ?? 20 * 60_000 });
    if (r.status !== 0) {
      fs.rmSync(target, { recursive: true, force: true });
      return { ok: false, reason: rebuildFailure(`${r.stdout ?? ''}\n${r.stderr ?? ''}\n${r.error?.message ?? ''}`, electronVersion) };
    }
    if (opts.electronPath) {
      const load = await run(opts.electronPath, ['-e', `require(${JSON.stringify(path.join(target, BINARY))})`], { env: { ...env, ELECTRON_RUN_AS_NODE: '1' }, timeoutMs: 60_000 });
      if (load.status !== 0) {
        fs.rmSync(target, { recursive: true, force: true });
        return { ok: false, reason: `the build does not load in Electron: ${(load.stderr || load.error?.message || '').trim().split('\n')[0]}` };
      }
    }
    fs.writeFileSync(path.join(target, STAMP), JSON.stringify(wanted, null, 2) + '\n');
  }
  stageApp(root, appDir, opts.distDir ?? path.join(root, 'dist-electron'));
  return { ok: true, appDir };
}

/** Runs a command to its end (or `timeoutMs`, then kills it), collecting its output. */
function run(cmd, args, { cwd, env, timeoutMs }) {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr, error });
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, error: status === null ? new Error(`${path.basename(cmd)} was stopped after ${timeoutMs} ms`) : undefined });
    });
  });
}

/** The built main, preload and worker threads, beside the Electron build of the module, as an app Electron opens by folder. */
function stageApp(root, appDir, distDir) {
  const workers = Object.keys(WORKERS).flatMap((name) => [`${name}.cjs`, `${name}.cjs.map`]);
  for (const name of ['main.mjs', 'main.mjs.map', 'preload.cjs', 'preload.cjs.map', ...workers]) {
    const from = path.join(distDir, name);
    if (fs.existsSync(from)) fs.copyFileSync(from, path.join(appDir, name));
  }
  const project = readJson(path.join(root, 'package.json')) ?? {};
  const pkg = { name: project.name ?? 'toolsmith', productName: project.productName ?? 'Toolsmith', version: project.version ?? '0.0.0', private: true, type: 'module', main: 'main.mjs' };
  fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
}
