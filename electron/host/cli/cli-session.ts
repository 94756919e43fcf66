/**
 * The session-data folder of a command-line run of the installed app (`Toolsmith --cli …`):
 * Chromium's local storage, cookies and caches go to a temporary folder of the command's own,
 * never to the profile an open window may be writing. The folder's name holds the process id;
 * a folder whose process is gone (a command that was killed) is removed by the next command.
 */
import fs from 'node:fs';
import path from 'node:path';

export const CLI_SESSION_PREFIX = 'toolsmith-cli-session-';

/** Whether a process runs under this id (signal 0 only checks). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the folders in `tmp` left by commands whose process is gone; answers their names. Never throws. */
export function sweepCliSessions(tmp: string, alive: (pid: number) => boolean = processAlive): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = name.startsWith(CLI_SESSION_PREFIX) ? /^(\d+)-/.exec(name.slice(CLI_SESSION_PREFIX.length)) : null;
    if (!m || alive(Number(m[1]))) continue;
    try {
      fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Held by something (Windows): a later command tries again.
    }
  }
  return removed;
}

/** Makes this process's folder in `tmp` (throws when it cannot: the caller stops rather than share the window's profile). */
export function makeCliSession(tmp: string, pid: number = process.pid): string {
  return fs.mkdtempSync(path.join(tmp, `${CLI_SESSION_PREFIX}${pid}-`));
}

/** Removes a folder made by makeCliSession; never throws (a file still held only leaves it for a later sweep). */
export function removeCliSession(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // Swept by a later command.
  }
}
