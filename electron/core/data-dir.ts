import path from 'node:path';

export interface DataDirInputs {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  homedir: string;
}

/** The app's name: the last part of its data folder, as Electron names an app's user-data folder. */
const APP_NAME = 'Toolsmith';

/**
 * The data folder: `--data-dir`, then TOOLSMITH_DATA_DIR, then the app's own folder. The desktop
 * app, the headless host and the `toolsmith` command all ask this, so without either setting
 * they open the same folder.
 */
export function resolveDataDir(i: DataDirInputs): string {
  const fromArg = argValue(i.argv, '--data-dir');
  if (fromArg) return path.resolve(fromArg);
  const fromEnv = i.env.TOOLSMITH_DATA_DIR;
  if (fromEnv && fromEnv.trim() !== '') return path.resolve(fromEnv);
  return platformDataDir(i.platform, i.env, i.homedir);
}

/**
 * The app's own folder: where Electron keeps the user data of an app named Toolsmith
 * (`app.getPath('userData')`): `%APPDATA%` on Windows, `~/Library/Application Support` on
 * macOS, `$XDG_CONFIG_HOME` (else `~/.config`) on Linux, each with `Toolsmith` in it.
 */
export function platformDataDir(platform: NodeJS.Platform, env: DataDirInputs['env'], homedir: string): string {
  if (platform === 'darwin') return path.join(homedir, 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(homedir, 'AppData', 'Roaming'), APP_NAME);
  // The XDG spec: a relative value is to be ignored.
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir, '.config');
  return path.join(xdg, APP_NAME);
}

/** Reads `--name value` or `--name=value` from an argv list. */
export function argValue(argv: readonly string[], name: string): string | undefined {
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a === name) return argv[k + 1];
    if (a.startsWith(name + '=')) return a.slice(name.length + 1);
  }
  return undefined;
}
