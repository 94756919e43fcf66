import { describe, expect, it } from 'vitest';
import { CLI_FLAG, LINUX_CLI_SWITCHES, cliArgsFromArgv, installedCliCommand } from './cli-mode';

const EXE = '/opt/Toolsmith/toolsmith';

describe('cliArgsFromArgv', () => {
  it('answers the arguments after --cli of a packaged app, as given', () => {
    expect(cliArgsFromArgv([EXE, '--cli', 'tools', 'list', '--json'], false)).toEqual(['tools', 'list', '--json']);
    expect(cliArgsFromArgv([EXE, '--cli', 'invoke', 'text/count', '--args', '{"text": "a b"}'], false)).toEqual(['invoke', 'text/count', '--args', '{"text": "a b"}']);
    // A second --cli, an empty argument, a `--`: the command's own.
    expect(cliArgsFromArgv([EXE, '--cli', 'tools', 'search', '--cli', '', '--'], false)).toEqual(['tools', 'search', '--cli', '', '--']);
  });

  it('answers no arguments for a bare --cli (the command then prints its help)', () => {
    expect(cliArgsFromArgv([EXE, '--cli'], false)).toEqual([]);
  });

  it('skips the app’s folder of a development run (electron APP_DIR …)', () => {
    expect(cliArgsFromArgv(['/x/electron', '.electron-app', '--cli', 'bundles', 'list'], true)).toEqual(['bundles', 'list']);
    // Without that, the folder is not mistaken for an argument, nor --cli for the folder.
    expect(cliArgsFromArgv(['/x/electron', '.electron-app', 'tools', '--cli'], true)).toBeNull();
    expect(cliArgsFromArgv(['/x/electron', '--cli', 'tools'], true)).toBeNull();
  });

  it('skips Chromium switches before --cli (the Linux launcher’s, or --no-sandbox)', () => {
    expect(cliArgsFromArgv([EXE, ...LINUX_CLI_SWITCHES, '--cli', 'test'], false)).toEqual(['test']);
    expect(cliArgsFromArgv([EXE, '--no-sandbox', '--ozone-platform=headless', '--cli', 'mcp'], false)).toEqual(['mcp']);
  });

  it('is null for the desktop app: no --cli, or --cli after an argument that is not a switch', () => {
    expect(cliArgsFromArgv([EXE], false)).toBeNull();
    expect(cliArgsFromArgv([EXE, '--data-dir', '/tmp/d'], false)).toBeNull();
    expect(cliArgsFromArgv([EXE, '--data-dir', '/tmp/d', '--cli', 'tools', 'list'], false)).toBeNull();
    // macOS may pass a process serial number to an app opened from the Finder.
    expect(cliArgsFromArgv([EXE, '-psn_0_12345'], false)).toBeNull();
    expect(cliArgsFromArgv([EXE, 'cli', 'tools'], false)).toBeNull();
    expect(cliArgsFromArgv([EXE, '--cli=tools'], false)).toBeNull();
    expect(cliArgsFromArgv([], false)).toBeNull();
  });
});

describe('installedCliCommand', () => {
  it('starts the app’s binary with --cli; on Linux headless and without the GPU', () => {
    expect(installedCliCommand({ platform: 'darwin', execPath: '/Applications/Toolsmith.app/Contents/MacOS/Toolsmith' })).toEqual([
      '/Applications/Toolsmith.app/Contents/MacOS/Toolsmith',
      CLI_FLAG,
    ]);
    expect(installedCliCommand({ platform: 'win32', execPath: 'C:\\Programs\\Toolsmith\\Toolsmith.exe' })).toEqual(['C:\\Programs\\Toolsmith\\Toolsmith.exe', '--cli']);
    expect(installedCliCommand({ platform: 'linux', execPath: EXE })).toEqual([EXE, '--ozone-platform=headless', '--disable-gpu', '--cli']);
  });

  it('names the AppImage file rather than the binary inside its mount', () => {
    const cmd = installedCliCommand({ platform: 'linux', execPath: '/tmp/.mount_ToolsmXYZ/toolsmith', appImage: '/home/ada/Apps/Toolsmith.AppImage' });
    expect(cmd[0]).toBe('/home/ada/Apps/Toolsmith.AppImage');
    expect(cmd.slice(1)).toEqual([...LINUX_CLI_SWITCHES, '--cli']);
  });

  it('gives a command the app itself reads back as a command-line run', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const cmd = installedCliCommand({ platform, execPath: EXE });
      expect(cliArgsFromArgv([...cmd, 'mcp', '--data-dir', '/d'], false), platform).toEqual(['mcp', '--data-dir', '/d']);
    }
  });
});
