/**
 * Opening a workspace file with the system's application from the headless host: the
 * platform's opener (`xdg-open`, `open`, `explorer`) when it is on the PATH, started
 * detached so the host never waits for it. Where there is none (a server without a
 * desktop), the core answers UNAVAILABLE with a message saying so.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function systemOpener(platform: NodeJS.Platform, envPath: string | undefined): string | undefined {
  const name = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  const dirs = (envPath ?? '').split(path.delimiter).filter(Boolean);
  for (const d of dirs) {
    const candidate = path.join(d, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** A function for CoreConfig.openPath, or undefined when this machine has no opener. */
export function headlessOpenPath(platform = process.platform, envPath = process.env.PATH): ((absPath: string) => Promise<void>) | undefined {
  const opener = systemOpener(platform, envPath);
  if (!opener) return undefined;
  return (absPath) =>
    new Promise((resolve, reject) => {
      const child = spawn(opener, [absPath], { detached: true, stdio: 'ignore' });
      child.once('error', reject);
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
}
