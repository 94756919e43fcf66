// `npm start`: build, then open the Electron window; where Electron's binary is missing and
// cannot be fetched, say so and serve the same UI headless at a printed address.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const skipBuild = args.includes('--no-build');
const passThrough = args.filter((a) => a !== '--no-build');

if (!skipBuild) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const electron = findElectron();
if (electron.ok) {
  const child = spawn(electron.path, ['dist-electron/main.mjs', ...passThrough], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    [
      '',
      'Electron could not be started on this machine, so Toolsmith is starting its headless host',
      'instead: the same app, served to your browser from 127.0.0.1. Electron downloads its binary',
      'on first start, and that failed here' + (electron.reason ? ` (${electron.reason})` : '') + '.',
      'To get the desktop window, run `npx install-electron` where the download is possible, or set',
      'ELECTRON_OVERRIDE_DIST_PATH to a folder holding an Electron 45 binary.',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['dist-electron/serve.mjs', ...passThrough], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
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
