/**
 * Who a process is, well enough to tell from a lock file whether its owner is still running:
 * the pid, the machine (on Linux also its boot and pid namespace, so a pid from another
 * container or an earlier boot is never taken for one of ours) and when the process started
 * (Linux: clock ticks since boot, so a reused pid is told apart from the one that wrote the lock).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

export interface ProcessIdentity {
  pid: number;
  /** The machine the pid means something on. */
  host: string;
  /** When the process started; comparable on Linux only. */
  start: string;
}

function readOr(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Linux: the process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined elsewhere or when it is gone. */
export function startTicksOf(pid: number): string | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces; fields 3.. follow the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

let self: ProcessIdentity | undefined;

export function thisProcess(): ProcessIdentity {
  if (!self) {
    const boot = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
    const pidNamespace = readOr(() => readlinkSync('/proc/self/ns/pid'));
    const host = [os.hostname(), boot, pidNamespace].filter(Boolean).join(' ');
    const start = startTicksOf(process.pid) ?? `t${Math.round(Date.now() - process.uptime() * 1000)}`;
    self = { pid: process.pid, host, start };
  }
  return self;
}

/** Whether a pid is running on this machine (EPERM: it is, but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True only when `owner` certainly no longer runs: it was on this machine and its pid is
 * gone, or (Linux) the pid now belongs to a process that started at another time. An
 * owner on another machine is never "gone": only its lock's age can tell.
 */
export function isOwnerGone(owner: ProcessIdentity, isAlive: (pid: number) => boolean = isProcessAlive): boolean {
  const here = thisProcess();
  if (owner.host !== here.host) return false;
  if (owner.pid === here.pid) return owner.start !== here.start;
  if (!isAlive(owner.pid)) return true;
  const start = startTicksOf(owner.pid);
  return start !== undefined && !owner.start.startsWith('t') && start !== owner.start;
}
