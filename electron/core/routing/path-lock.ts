/**
 * An async mutex keyed by a file's path: writes to one file (append's last-byte check and
 * its multi-chunk write, replace's temp file and rename) run one after another instead of
 * interleaving. A model's tool calls run concurrently, so two of them can route to the same
 * workspace file at once.
 *
 * The key is the real path when it exists (a symbolic link inside the workspace and its
 * target share one lock), lower-cased on macOS and Windows whose file systems usually
 * ignore letter case.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished; releases on success and on failure. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys currently held or awaited (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

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
