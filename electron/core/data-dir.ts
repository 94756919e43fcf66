import path from 'node:path';

export interface DataDirInputs {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Electron's `app.getPath('userData')` when running in the shell. */
  electronUserData?: string;
  platform: NodeJS.Platform;
  homedir: string;
}

/** `--data-dir`, then TOOLSMITH_DATA_DIR, then Electron's userData, then the platform's data folder. */
export function resolveDataDir(i: DataDirInputs): string {
  const fromArg = argValue(i.argv, '--data-dir');
  if (fromArg) return path.resolve(fromArg);
  const fromEnv = i.env.TOOLSMITH_DATA_DIR;
  if (fromEnv && fromEnv.trim() !== '') return path.resolve(fromEnv);
  if (i.electronUserData) return i.electronUserData;
  return platformDataDir(i.platform, i.env, i.homedir);
}

export function platformDataDir(platform: NodeJS.Platform, env: DataDirInputs['env'], homedir: string): string {
  if (platform === 'darwin') return path.join(homedir, 'Library', 'Application Support', 'Toolsmith');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(homedir, 'AppData', 'Roaming'), 'Toolsmith');
  const xdg = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homedir, '.local', 'share');
  return path.join(xdg, 'toolsmith');
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
