import path from 'node:path';

export interface DataDirInputs {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  homedir: string;
  /** Electron's `app.getPath('userData')`, in the desktop app (also run as the command): Electron knows its own folder best. */
  electronUserData?: string;
  /** Whether a folder exists (fs.existsSync): a data folder at the former Linux default is kept. */
  exists?: (dir: string) => boolean;
}

/** The app's name: the last part of its data folder, as Electron names an app's user-data folder. */
const APP_NAME = 'Toolsmith';

/**
 * The data folder: `--data-dir`, then TOOLSMITH_DATA_DIR, then the app's own folder (Electron's
 * userData in the desktop app; the same place worked out here under Node). The desktop app, the
 * headless host and the `toolsmith` command all ask this, so without either setting they open
 * the same folder. On Linux, a folder at the former default of the host and the command
 * (`$XDG_DATA_HOME/toolsmith`, else `~/.local/share/toolsmith`) is still used under Node while
 * the app's own folder does not exist, so an upgrade never opens an empty folder.
 */
export function resolveDataDir(i: DataDirInputs): string {
  const fromArg = argValue(i.argv, '--data-dir');
  if (fromArg) return path.resolve(fromArg);
  const fromEnv = i.env.TOOLSMITH_DATA_DIR;
  if (fromEnv && fromEnv.trim() !== '') return path.resolve(fromEnv);
  if (i.electronUserData) return i.electronUserData;
  const own = platformDataDir(i.platform, i.env, i.homedir);
  if (i.platform === 'linux' && i.exists && !i.exists(own)) {
    const former = formerLinuxDataDir(i.env, i.homedir);
    if (i.exists(former)) return former;
  }
  return own;
}

/** Where the headless host and the command kept their data on Linux before they shared the app's folder. */
export function formerLinuxDataDir(env: DataDirInputs['env'], homedir: string): string {
  const xdg = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homedir, '.local', 'share');
  return path.join(xdg, 'toolsmith');
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
