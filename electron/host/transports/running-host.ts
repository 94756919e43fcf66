/**
 * How `toolsmith mcp` (a process of its own, started by an MCP client) finds the app running on
 * the same data folder, whose window can answer approvals: the app writes its loopback address
 * and process identity (pid, machine, start time) to `running-host.json` in the data folder
 * while it runs (0600), and removes it when it stops. A file left by an app that was killed
 * names a process that is gone, or a pid reused by another process (its start time differs):
 * ignored, so the API token is never sent to whatever listens on that port now.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/lib/atomic-write';
import { isProcessAlive, startTicksOf, thisProcess, type ProcessIdentity } from '../../core/lib/process-identity';

export const RUNNING_HOST_FILE = 'running-host.json';

export interface RunningHost {
  pid: number;
  /** The process's identity (store/process-identity.ts): a reused pid is told apart by its start time. */
  identity?: ProcessIdentity;
  /** `http://127.0.0.1:PORT/`: the contract is served under `rpc/`. */
  url: string;
}

const LOOPBACK_URL = /^http:\/\/127\.0\.0\.1:\d{1,5}\/$/;

/** Writes this process's record; answers a function that removes it (only while it is still this process's). */
export async function announceRunningHost(dataDir: string, url: string, pid: number = process.pid): Promise<() => Promise<void>> {
  const file = path.join(dataDir, RUNNING_HOST_FILE);
  const record: RunningHost = { pid, url, identity: pid === process.pid ? thisProcess() : { ...thisProcess(), pid, start: startTicksOf(pid) ?? 't0' } };
  try {
    await writeFileAtomic(file, JSON.stringify(record) + '\n', { mode: 0o600, exactMode: true });
  } catch (e) {
    // The app runs on without it; `toolsmith mcp` then says no window is open.
    console.error(`Toolsmith: could not write ${file} (toolsmith mcp will not find this app to ask approvals): ${(e as Error).message}`);
    return async () => undefined;
  }
  return async () => {
    const now = await readRunningHostFile(dataDir);
    if (now?.pid === pid && now.url === url) await fs.rm(file, { force: true }).catch(() => undefined);
  };
}

async function readRunningHostFile(dataDir: string): Promise<RunningHost | null> {
  try {
    const v = JSON.parse(await fs.readFile(path.join(dataDir, RUNNING_HOST_FILE), 'utf8')) as Partial<RunningHost>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0 || typeof v.url !== 'string' || !LOOPBACK_URL.test(v.url)) return null;
    const id = v.identity;
    const identity = id && id.pid === v.pid && typeof id.host === 'string' && typeof id.start === 'string' ? { pid: id.pid, host: id.host, start: id.start } : undefined;
    return { pid: v.pid, url: v.url, ...(identity ? { identity } : {}) };
  } catch {
    return null;
  }
}

/**
 * The app running on this data folder, or null when none is: no file, a bad one, one without
 * the process's identity, one written on another machine or before a reboot (another boot id
 * or pid namespace), or one whose process is gone or was replaced (Linux: its start time
 * differs). Only then is the API token sent to the address it names.
 */
export async function findRunningHost(dataDir: string, alive: (pid: number) => boolean = isProcessAlive): Promise<RunningHost | null> {
  const host = await readRunningHostFile(dataDir);
  if (!host?.identity) return null;
  const here = thisProcess();
  if (host.identity.host !== here.host || !alive(host.pid)) return null;
  if (host.pid === here.pid) return host.identity.start === here.start ? host : null;
  // Linux tells a reused pid by its start time; elsewhere (a start that is a clock reading) the live pid is all there is.
  const start = startTicksOf(host.pid);
  if (!host.identity.start.startsWith('t') && start !== host.identity.start) return null;
  return host;
}

