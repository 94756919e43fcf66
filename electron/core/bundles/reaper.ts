/**
 * Soft-deleted bundles are removed for good two days after their deletion, once their
 * tools folder is empty (docs/design/registry.md, soft delete).
 * The removal order keeps a killed reaper harmless: tools/ (rmdir fails if anything is
 * in it), then bundle.json, then the folder; a folder left without bundle.json is skipped
 * by the loader and removed by the next reap.
 */
import type { Bundle } from '../../../shared/model/bundle';
import path from 'node:path';
import { attempt, errnoOf, listDir, removeFile, type CommitGuard, type StoreFs } from '../lib/durable-fs';
import type { StoreLayout } from './layout';
import type { LockSet } from '../lib/locks';
import { readBundleOnDisk } from './on-disk';
import { bundleLockKey } from './scan';

export const REAP_AFTER_MS = 2 * 24 * 60 * 60 * 1000;

export function isReapable(b: Bundle, now: Date): boolean {
  return !b.isBuiltIn && b.softDeletedAt !== undefined && now.getTime() - Date.parse(b.softDeletedAt) >= REAP_AFTER_MS;
}

async function ignoring(codes: string[], op: Promise<unknown>): Promise<boolean> {
  try {
    await op;
    return true;
  } catch (e) {
    if (codes.includes(errnoOf(e) ?? '')) return false;
    throw e;
  }
}

/** Removes a bundle's folder if its tools folder is empty; false if tools remain. Hold the bundle lock; bundle.json goes through its fence. */
export async function removeEmptyBundleFolder(fs: StoreFs, layout: StoreLayout, bundleId: string, guard: CommitGuard): Promise<boolean> {
  // A script file whose tool file is gone (a removal that did not finish) does not keep the folder.
  const names = await listDir(fs, layout.toolsDir(bundleId));
  for (const name of names) {
    if (name.endsWith('.js') && !name.startsWith('.') && !names.includes(name.replace(/\.js$/, '.json'))) {
      await removeFile(fs, path.join(layout.toolsDir(bundleId), name), guard);
    }
  }
  const toolsGone = await ignoring(['ENOENT'], fs.rmdir(layout.toolsDir(bundleId))).catch((e) => {
    if (errnoOf(e) === 'ENOTEMPTY' || errnoOf(e) === 'EEXIST') return 'not-empty' as const;
    throw e;
  });
  if (toolsGone === 'not-empty') return false;
  await removeFile(fs, layout.bundleFile(bundleId), guard);
  // A dead writer's temp file may still be here; the next open sweeps it and the next reap ends the job.
  await ignoring(['ENOENT', 'ENOTEMPTY', 'EEXIST'], fs.rmdir(layout.bundleDir(bundleId)));
  return true;
}

/** Under the bundle's lock: removes a bundle that is still reapable on disk and has no tools left; true if it is gone. */
export function reapBundle(d: { fs: StoreFs; layout: StoreLayout; locks: LockSet; now: () => Date }, bundleId: string): Promise<boolean> {
  return d.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, async (guard) => {
    const current = await readBundleOnDisk(d.fs, d.layout, bundleId);
    if (current && !isReapable(current, d.now())) return false;
    guard();
    return attempt('remove', d.layout.bundleDir(bundleId), () => removeEmptyBundleFolder(d.fs, d.layout, bundleId, guard));
  });
}

/** The timers the reaper runs on; tests pass ones they move by hand. */
export interface IntervalTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const NODE_TIMERS: IntervalTimers = {
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/**
 * Runs the store's reaper once at start (a session shorter than the interval would never
 * reap otherwise), then every `everyMs`; a run still going when the next is due is not
 * doubled. Returns a function that stops it.
 */
export function startReaper(
  reap: () => Promise<unknown>,
  everyMs = 60 * 60 * 1000,
  onError: (e: unknown) => void = () => undefined,
  timers: IntervalTimers = NODE_TIMERS,
): () => void {
  let running: Promise<unknown> | undefined;
  const run = (): void => {
    if (running) return;
    running = reap()
      .catch(onError)
      .finally(() => (running = undefined));
  };
  const handle = timers.setInterval(run, everyMs);
  run();
  return () => timers.clearInterval(handle);
}
