/**
 * The installed app as the `toolsmith` command. A packaged app cannot run as plain Node (its
 * RunAsNode fuse is off, scripts/after-pack.mjs), so the app's own binary runs the command when
 * it is started with `--cli`: `Toolsmith --cli tools list`. The launchers shipped beside it
 * (resources/cli/, docs/cli.md) do exactly that. main.ts asks cliArgsFromArgv which way it runs.
 */

/** The first argument of a command-line run, after Electron's own. */
export const CLI_FLAG = '--cli';

/**
 * Chromium switches a command-line run on Linux starts with: Ozone's headless platform, so that
 * no X server or Wayland display is needed (over SSH, in CI), and no GPU process. The launcher
 * resources/cli/toolsmith passes the same (scripts/cli-launchers.test.ts holds them to this list).
 */
export const LINUX_CLI_SWITCHES: readonly string[] = ['--ozone-platform=headless', '--disable-gpu'];

/** `--name` or `--name=value`: how Chromium's switches are written. */
const SWITCH = /^--[a-z0-9][a-z0-9-]*(=.*)?$/i;

/**
 * The command's arguments when the app was started as the command, else null (the desktop app).
 * `defaultApp` is Electron's `process.defaultApp`: true when an unpackaged app is started as
 * `electron APP_DIR …`, where the app's folder comes before the person's arguments.
 * Chromium switches before `--cli` (the Linux launcher's, or `--no-sandbox`) are Electron's:
 * they are skipped. Everything after `--cli` is the command's, as given.
 */
export function cliArgsFromArgv(argv: readonly string[], defaultApp: boolean): string[] | null {
  const user = argv.slice(defaultApp ? 2 : 1);
  for (let k = 0; k < user.length; k++) {
    const arg = user[k]!;
    if (arg === CLI_FLAG) return user.slice(k + 1);
    if (!SWITCH.test(arg)) return null;
  }
  return null;
}

export interface InstalledApp {
  platform: NodeJS.Platform;
  /** The app's binary (`process.execPath`). */
  execPath: string;
  /** The AppImage file the app runs from (`APPIMAGE` in its environment), if it does. */
  appImage?: string;
}

/**
 * How to start the installed app as the command (the arguments follow): what Settings → MCP
 * server offers an MCP client that starts `toolsmith mcp`. The app's binary itself rather than
 * a launcher: a client starts it without a shell (a Windows .cmd would need one). An AppImage
 * is mounted under a new path each time it runs, so its own file is named instead.
 */
export function installedCliCommand(app: InstalledApp): string[] {
  if (app.platform === 'linux') return [app.appImage || app.execPath, ...LINUX_CLI_SWITCHES, CLI_FLAG];
  return [app.execPath, CLI_FLAG];
}
