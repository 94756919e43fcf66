/**
 * Writes of files only the user may read (mode 0600): the key file and secrets.json.
 * durable-fs.ts writes its temp files with mode 0644, which would expose a key for a
 * moment, so these two helpers do the same dance with 0600 from the first byte.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir, nodeFs } from '../store/durable-fs';
import { tempPathFor } from '../store/layout';

export const PRIVATE_MODE = 0o600;

/** Creates `file` exclusively ('wx'), mode exactly 0600 whatever the umask, complete and fsynced. */
export async function createPrivateFile(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, 'wx', PRIVATE_MODE);
  try {
    await handle.chmod(PRIVATE_MODE);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces (or creates) `file` atomically with mode 0600: temp file, fsync, rename, fsync of the folder. */
export async function replacePrivateFile(file: string, text: string): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await createPrivateFile(temp, text);
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.unlink(temp).catch(() => undefined);
    throw e;
  }
  await fsyncDir(nodeFs, path.dirname(file));
}
