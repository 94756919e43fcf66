/**
 * Whether a folder's volume finds names without regard to case (macOS and Windows by
 * default): there `Docs/a.md` and `docs/a.md` are one file, so a FileSource's rules must
 * match paths without case too, or a rule for `Docs/**` would not cover `DOCS/a.md`.
 *
 * Asked of the disk, not guessed from the platform: a name in the folder (or the folder's
 * own name) is looked up with its case flipped; the same file (device and inode) means the
 * volume ignores case, no such name (or another file) means it does not. Only when no name
 * with a letter can be tried does the platform decide (darwin and win32: without case).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** How many names of the folder are read at most to find one with a letter. */
const NAMES_TRIED = 64;

/** `name` with each ASCII letter's case flipped, or undefined when it has none. */
export function flipCase(name: string): string | undefined {
  if (!/[A-Za-z]/.test(name)) return undefined;
  return name.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

/** true: the volume ignores case; false: it does not; undefined: `file` cannot tell (no letter, gone). */
async function probe(file: string): Promise<boolean | undefined> {
  const flipped = flipCase(path.basename(file));
  if (flipped === undefined) return undefined;
  try {
    const [a, b] = await Promise.all([fs.lstat(file), fs.lstat(path.join(path.dirname(file), flipped))]);
    return a.dev === b.dev && a.ino === b.ino;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // The flipped name does not exist, so names are told apart by case (the original was just seen).
    if (code === 'ENOENT' || code === 'ENOTDIR') return (await fs.lstat(file).then(() => true, () => false)) ? false : undefined;
    return undefined;
  }
}

/** The platform's default, when the disk cannot be asked. */
export function platformIgnoresCase(platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/** Whether `root` (a real path of a folder) is on a volume that ignores case; see the file comment. */
export async function volumeIgnoresCase(root: string): Promise<boolean> {
  try {
    const dir = await fs.opendir(root, { bufferSize: 32 });
    let tried = 0;
    try {
      for await (const d of dir) {
        if (++tried > NAMES_TRIED) break;
        const r = await probe(path.join(root, d.name));
        if (r !== undefined) return r;
      }
    } finally {
      await dir.close().catch(() => undefined);
    }
  } catch {
    // An unreadable folder: its own name below, then the platform.
  }
  return (await probe(root)) ?? platformIgnoresCase();
}
