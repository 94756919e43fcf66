/**
 * Removes temp files left by writers that died (SIGKILL, power cut) before they could
 * clean up. A temp file names its writer's pid: it is removed when that process is
 * gone, or when it is older than an hour (the pid may have been reused). A live
 * writer's temp file is left alone, so opening a store never breaks another process's
 * write in progress. Temp files written under a lock are in its lock folder instead
 * (locks.ts), which goes with the lock: `LockSet.clearDeadLocks()` on open, or the next
 * writer's takeover.
 */
import path from 'node:path';
import { listDir, type StoreFs } from '../lib/durable-fs';
import { tempFileOwner, type StoreLayout } from './layout';
import { isProcessAlive } from '../lib/process-identity';

export { isProcessAlive };

const MAX_TEMP_AGE_MS = 60 * 60 * 1000;

/**
 * A folder's entries; none when it cannot be listed (EACCES and the like): the sweep is
 * housekeeping, and the scan reports such a folder and serves the rest.
 */
async function listOrNone(fs: StoreFs, dir: string): Promise<string[]> {
  try {
    return await listDir(fs, dir);
  } catch {
    return [];
  }
}

/** The folders our temp files can be in. */
async function tempFolders(layout: StoreLayout, fs: StoreFs): Promise<string[]> {
  const folders = [layout.dataDir, layout.overridesDir, layout.bundlesDir];
  for (const name of await listOrNone(fs, layout.bundlesDir)) {
    if (name.startsWith('.')) continue;
    folders.push(layout.bundleDir(name), layout.toolsDir(name));
  }
  return folders;
}

/** Returns how many temp files were removed. */
/** Ages are measured on the wall clock, like the files' mtimes (not the store's injected clock). */
export async function sweepTempFiles(layout: StoreLayout, fs: StoreFs, isAlive = isProcessAlive): Promise<number> {
  let removed = 0;
  const folders = await tempFolders(layout, fs);
  // Listed at once (a listing changes nothing); the temp files are then dealt with in order.
  const listings = await Promise.all(folders.map((dir) => listOrNone(fs, dir)));
  for (const [k, dir] of folders.entries()) {
    for (const name of listings[k]!) {
      const pid = tempFileOwner(name);
      if (pid === undefined) continue;
      const file = path.join(dir, name);
      try {
        const age = Date.now() - (await fs.stat(file)).mtimeMs;
        if (isAlive(pid) && age < MAX_TEMP_AGE_MS) continue;
        await fs.unlink(file);
        removed++;
      } catch {
        // Gone already, or not ours to remove: the next open tries again.
      }
    }
  }
  return removed;
}
