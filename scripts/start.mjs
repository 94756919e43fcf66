// `npm start`: build, then open the Electron window; where Electron's binary is missing and
// cannot be fetched, or its copy of better-sqlite3 cannot be built for Electron's ABI, say so
// and serve the same UI headless at a printed address. (electron-native.mjs keeps Electron's
// build of the native module apart from Node's, which the tests and the headless host use.)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideStart, fallbackMessage, prepareElectronApp } from './electron-native.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
const skipBuild = args.includes('--no-build');
const passThrough = args.filter((a) => a !== '--no-build');

if (!skipBuild) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const electron = findElectron();
const native = electron.ok ? await prepareNative(electron.path) : { ok: false, reason: 'no Electron' };
const decision = decideStart({ electron, native });
if (decision.mode === 'electron') {
  const child = spawn(electron.path, [decision.appDir, ...passThrough], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(fallbackMessage(decision));
  const child = spawn(process.execPath, ['dist-electron/serve.mjs', ...passThrough], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}

async function prepareNative(electronPath) {
  try {
    return await prepareElectronApp({ root, electronPath });
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** Resolving the `electron` package fetches the binary when missing; any failure means no shell. */
function findElectron() {
  if (process.env.TOOLSMITH_HEADLESS === '1') return { ok: false, reason: 'TOOLSMITH_HEADLESS=1' };
  const require = createRequire(import.meta.url);
  let pkg;
  try {
    pkg = require.resolve('electron');
  } catch {
    return { ok: false, reason: 'the electron package is not installed' };
  }
  const probe = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(pkg)}))`], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  const path = probe.stdout?.trim();
  if (probe.status === 0 && path && existsSync(path)) return { ok: true, path };
  const lastLine = `${probe.stderr ?? ''}`.split('\n').map((l) => l.trim()).filter((l) => /error|failed/i.test(l))[0];
  return { ok: false, reason: lastLine ? lastLine.slice(0, 160) : 'no binary' };
}
