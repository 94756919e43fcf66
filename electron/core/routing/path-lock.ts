/**
 * The key of a file's write queue (../lib/serial-queue.ts's KeyedQueue): writes to one file
 * (append's last-byte check and its multi-chunk write, replace's temp file and rename) run
 * one after another instead of interleaving. A model's tool calls run concurrently, so two
 * of them can route to the same workspace file at once.
 *
 * The key is the real path when it exists (a symbolic link inside the workspace and its
 * target share one lock), lower-cased on macOS and Windows whose file systems usually
 * ignore letter case.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** The lock key of an absolute path: see the file comment. */
export async function lockKey(abs: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  let key: string;
  try {
    key = await fs.realpath(abs);
  } catch {
    key = await fs.realpath(path.dirname(abs)).then(
      (dir) => path.join(dir, path.basename(abs)),
      () => path.resolve(abs),
    );
  }
  return platform === 'darwin' || platform === 'win32' ? key.toLowerCase() : key;
}
