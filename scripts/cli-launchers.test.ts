/**
 * The launchers of the installed app's `toolsmith` command (resources/cli/, docs/cli.md): the
 * shell script run for real, in the layouts electron-builder installs it in, in front of a stand-in
 * for the app's binary that records the arguments it was given; the batch file read (no cmd.exe
 * here); the .deb's scripts checked for syntax and held to electron-builder's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LINUX_CLI_SWITCHES, cliArgsFromArgv } from '../electron/host/cli/cli-mode';

const root = path.resolve(import.meta.dirname, '..');
const cliDir = path.join(root, 'resources', 'cli');
const posixOnly = it.skipIf(process.platform === 'win32');

/** Arguments a shell would mangle if the launcher quoted them wrong. */
const HARD_ARGS = ['invoke', 'text/count', '--args', '{"text": "a  b"}', '', "it's", '$HOME', '*', '"quoted"', 'two\nlines', '-n', '--', '--cli'];

/** The stand-in binary: writes each argument it got, NUL-ended, to $ARGV_FILE; exits with $FAKE_EXIT. */
const FAKE_APP = `#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a"; done > "$ARGV_FILE"
exit "\${FAKE_EXIT:-0}"
`;

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-launcher-')));
  made.push(d);
  return d;
}

function put(file: string, text: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
  return file;
}

/** The launcher installed at `at`, as electron-builder copies it (its mode kept). */
function installLauncher(at: string): string {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.copyFileSync(path.join(cliDir, 'toolsmith'), at);
  fs.chmodSync(at, fs.statSync(path.join(cliDir, 'toolsmith')).mode);
  return at;
}

/** Runs `command` (a launcher or a link to one) from elsewhere; answers its exit code, the arguments the app got, stderr. */
function run(command: string, args: readonly string[], dir: string, fakeExit = 0) {
  const argvFile = path.join(dir, 'argv');
  fs.rmSync(argvFile, { force: true });
  const r = spawnSync(command, args, { cwd: os.tmpdir(), env: { ...process.env, ARGV_FILE: argvFile, FAKE_EXIT: String(fakeExit) }, encoding: 'utf8' });
  const got = fs.existsSync(argvFile) ? fs.readFileSync(argvFile, 'utf8').split('\0').slice(0, -1) : null;
  return { status: r.status, got, stderr: r.stderr };
}

describe('resources/cli/toolsmith (Linux and macOS)', () => {
  posixOnly('starts <app>/toolsmith headless with --cli and the arguments exactly as given (the Linux layout)', () => {
    const dir = tempDir();
    const app = put(path.join(dir, 'opt', 'Toolsmith', 'toolsmith'), FAKE_APP);
    const launcher = installLauncher(path.join(dir, 'opt', 'Toolsmith', 'resources', 'bin', 'toolsmith'));
    const r = run(launcher, HARD_ARGS, dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.got).toEqual([...LINUX_CLI_SWITCHES, '--cli', ...HARD_ARGS]);
    // What the app reads back from that: the command's arguments, unchanged.
    expect(cliArgsFromArgv([app, ...r.got!], false)).toEqual(HARD_ARGS);
  });

  posixOnly('is found through links, as the .deb links it (/usr/bin → /etc/alternatives → the launcher), absolute or relative', () => {
    const dir = tempDir();
    put(path.join(dir, 'opt', 'Toolsmith', 'toolsmith'), FAKE_APP);
    const launcher = installLauncher(path.join(dir, 'opt', 'Toolsmith', 'resources', 'bin', 'toolsmith'));
    fs.mkdirSync(path.join(dir, 'etc', 'alternatives'), { recursive: true });
    fs.symlinkSync(launcher, path.join(dir, 'etc', 'alternatives', 'toolsmith'));
    fs.mkdirSync(path.join(dir, 'usr', 'bin'), { recursive: true });
    fs.symlinkSync(path.join('..', '..', 'etc', 'alternatives', 'toolsmith'), path.join(dir, 'usr', 'bin', 'toolsmith'));
    const r = run(path.join(dir, 'usr', 'bin', 'toolsmith'), ['tools', 'list', '--json'], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.got).toEqual([...LINUX_CLI_SWITCHES, '--cli', 'tools', 'list', '--json']);
  });

  posixOnly('passes the command’s exit code on: 0 done, 1 failed, 2 bad usage, 3 MCP serving off', () => {
    const dir = tempDir();
    put(path.join(dir, 'app', 'toolsmith'), FAKE_APP);
    const launcher = installLauncher(path.join(dir, 'app', 'resources', 'bin', 'toolsmith'));
    for (const code of [0, 1, 2, 3]) expect(run(launcher, ['test'], dir, code).status).toBe(code);
  });

  posixOnly('starts Contents/MacOS/Toolsmith with --cli alone in a macOS app bundle', () => {
    const dir = tempDir();
    const contents = path.join(dir, 'Applications', 'Toolsmith.app', 'Contents');
    put(path.join(contents, 'MacOS', 'Toolsmith'), FAKE_APP);
    const launcher = installLauncher(path.join(contents, 'Resources', 'bin', 'toolsmith'));
    fs.mkdirSync(path.join(dir, 'usr', 'local', 'bin'), { recursive: true });
    fs.symlinkSync(launcher, path.join(dir, 'usr', 'local', 'bin', 'toolsmith'));
    const r = run(path.join(dir, 'usr', 'local', 'bin', 'toolsmith'), HARD_ARGS, dir, 2);
    expect(r.status).toBe(2);
    expect(r.got).toEqual(['--cli', ...HARD_ARGS]);
  });

  posixOnly('says where it looked, and exits 1, when the app’s binary is not there', () => {
    const dir = tempDir();
    const launcher = installLauncher(path.join(dir, 'app', 'resources', 'bin', 'toolsmith'));
    const r = run(launcher, ['tools', 'list'], dir);
    expect(r.status).toBe(1);
    expect(r.got).toBeNull();
    expect(r.stderr).toContain("toolsmith: the app's binary is not at ");
    expect(r.stderr).toContain(path.join(dir, 'app', 'resources', 'bin'));
  });

  it('is a POSIX shell script with LF line ends', () => {
    const text = fs.readFileSync(path.join(cliDir, 'toolsmith'), 'utf8');
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).not.toContain('\r');
  });
});

describe('resources/cli/toolsmith.cmd (Windows)', () => {
  const text = fs.readFileSync(path.join(cliDir, 'toolsmith.cmd'), 'utf8');
  const lines = text.split('\r\n');

  it('has CRLF line ends throughout (cmd.exe misreads a batch file with bare LFs)', () => {
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('starts Toolsmith.exe beside resources\\bin with --cli and the arguments as typed, and exits with its code', () => {
    expect(lines).toContain('set "APP=%~dp0..\\..\\Toolsmith.exe"');
    // %* is the command line as typed, quotes and all; the exit code is read after the app ended.
    const start = lines.indexOf('"%APP%" --cli %*');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toBe('exit /b %ERRORLEVEL%');
    expect(lines).toContain('setlocal');
  });

  it('keeps the app’s path out of parenthesised blocks (a path with "(x86)" would end them)', () => {
    const code = lines.filter((l) => l.trim() !== '' && !/^(rem\b|@echo off)/i.test(l.trim()));
    for (const l of code.filter((c) => c.includes('%APP%'))) expect(l, l).not.toMatch(/\(\s*$|^\s*\)/);
    expect(code.some((l) => /^if not exist "%APP%" goto \w+$/.test(l))).toBe(true);
  });
});

describe('the .deb’s scripts (resources/cli/deb-after-*.tpl)', () => {
  const templates = path.join(root, 'node_modules', 'app-builder-lib', 'templates', 'linux');
  // The names electron-builder fills in (app-builder-lib's FpmTarget): any other ${name} fails its build.
  const MACROS = { executable: 'toolsmith', sanitizedProductName: 'Toolsmith', productFilename: 'Toolsmith' };
  const fill = (text: string) =>
    text.replace(/\$\{([a-zA-Z]+)\}/g, (_m, name: string) => {
      if (!(name in MACROS)) throw new Error(`electron-builder defines no macro \${${name}}`);
      return MACROS[name as keyof typeof MACROS];
    });

  for (const [ours, theirs, from] of [
    ['deb-after-install.tpl', 'after-install.tpl', '# Check if user namespaces'],
    ['deb-after-remove.tpl', 'after-remove.tpl', 'APPARMOR_PROFILE_DEST='],
  ] as const) {
    const text = fs.readFileSync(path.join(cliDir, ours), 'utf8');

    it(`${ours}: uses only electron-builder's macros, and bash reads it`, () => {
      const filled = fill(text);
      expect(filled).not.toContain('${');
      const r = spawnSync('bash', ['-n'], { input: filled, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    });

    it(`${ours}: after the link to the launcher, is electron-builder's ${theirs} as installed`, () => {
      const stock = fs.readFileSync(path.join(templates, theirs), 'utf8');
      expect(stock).toContain(from);
      expect(text.trimEnd().endsWith(stock.slice(stock.indexOf(from)).trimEnd())).toBe(true);
    });
  }

  it('links /usr/bin/toolsmith to the launcher, and no longer to the app’s binary', () => {
    const install = fill(fs.readFileSync(path.join(cliDir, 'deb-after-install.tpl'), 'utf8'));
    expect(install).toContain("LAUNCHER='/opt/Toolsmith/resources/bin/toolsmith'");
    expect(install).toContain(`update-alternatives --install '/usr/bin/toolsmith' 'toolsmith' "$LAUNCHER" 100`);
    expect(install).toContain("update-alternatives --remove 'toolsmith' '/opt/Toolsmith/toolsmith'");
    expect(install).not.toContain("--install '/usr/bin/toolsmith' 'toolsmith' '/opt/Toolsmith/toolsmith'");
    const remove = fill(fs.readFileSync(path.join(cliDir, 'deb-after-remove.tpl'), 'utf8'));
    expect(remove).toContain("update-alternatives --remove 'toolsmith' '/opt/Toolsmith/resources/bin/toolsmith'");
  });
});
