/**
 * Every process and server a run starts is registered here and stopped when the run ends: after
 * it finishes, when it fails, and on Ctrl+C or SIGTERM. Child processes are started in their own
 * process group (detached), so stopping one stops what it started too (the suite's client runs
 * start a shell and a driver per scenario; the host starts worker threads, not processes).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

type Closer = () => Promise<void>;

const groups = new Set<ChildProcess>();
/** The process group of each child started (its pid): swept even after the leader has exited. */
const pgids = new Set<number>();
const closers: Closer[] = [];
const finals: Closer[] = [];
let cleaning: Promise<void> | undefined;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) killPgid(child.pid, signal);
}

function killPgid(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Starts a child in its own process group; it is stopped at the end of the run if still running. */
export function start(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  groups.add(child);
  if (child.pid !== undefined) pgids.add(child.pid);
  child.on('exit', () => groups.delete(child));
  return child;
}

/** Resolves when the child has exited (its exit code, or null when a signal ended it). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** SIGTERM to the child's group, SIGKILL after `graceMs` if it is still there. */
export async function stop(child: ChildProcess, graceMs = 5000): Promise<void> {
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
  // What the group leader left behind (a shell's child) goes too.
  killGroup(child, 'SIGKILL');
}

/** Something else to close at the end (a server of this process); closed in reverse order, before the processes stop. */
export function onCleanup(close: Closer): void {
  closers.push(close);
}

/** Run once every process has stopped (removing the folder they wrote to). */
export function afterCleanup(fn: Closer): void {
  finals.push(fn);
}

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await Promise.all([...groups].map((c) => stop(c)));
    // What exited leaders left in their groups (a shell's children) goes too.
    for (const pgid of pgids) killPgid(pgid, 'SIGKILL');
    for (const fn of finals) await fn().catch(() => {});
  })();
  return cleaning;
}

/** Ctrl+C and SIGTERM stop everything before the run exits; a last synchronous sweep on exit. */
export function installSignalHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nconformance: ${signal}, stopping what the run started…\n`);
      // 128 + the signal's number, as shells report it.
      void cleanup().finally(() => process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]));
    });
  }
  process.on('exit', () => {
    for (const c of groups) killGroup(c, 'SIGKILL');
    for (const pgid of pgids) killPgid(pgid, 'SIGKILL');
  });
}
