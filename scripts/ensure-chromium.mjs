// Finds a Chromium for the end-to-end tests, or gets one: Playwright's installer where it can
// download, Debian's package where it cannot and we are root; otherwise says what to install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const found = () => [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', playwrightChromium()].find((p) => p && existsSync(p));

function playwrightChromium() {
  const r = spawnSync(process.execPath, ['-e', "process.stdout.write(require('playwright-core').chromium.executablePath())"], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function tryRun(cmd, args) {
  console.log(`ensure-chromium: ${cmd} ${args.join(' ')}`);
  return spawnSync(cmd, args, { stdio: 'inherit', timeout: 15 * 60_000 }).status === 0;
}

let path = found();
if (!path) {
  const isRoot = process.getuid?.() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (isRoot && hasApt) {
    if (tryRun('apt-get', ['update', '-qq'])) tryRun('apt-get', ['install', '-y', '-qq', 'chromium']);
  }
  path = found();
  if (!path) {
    tryRun('npx', ['playwright', 'install', 'chromium']);
    path = found();
  }
}
if (!path) {
  console.error(
    'No Chromium for the end-to-end tests. Install one and run `npm test` again:\n' +
      '  Debian/Ubuntu: sudo apt-get install -y chromium\n' +
      '  elsewhere:     npx playwright install chromium\n' +
      '  or set CHROMIUM_PATH to a Chromium or Chrome binary.',
  );
  process.exit(1);
}
console.log(`ensure-chromium: using ${path}`);
