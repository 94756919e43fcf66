/**
 * Writes of files only the user may read (mode 0600 from the first byte, whatever the
 * umask): the key file and secrets.json. A plain atomic write makes its temp file 0644,
 * which would expose a key for a moment.
 */
import { writeFileAtomic } from '../lib/atomic-write';

export const PRIVATE_MODE = 0o600;

const PRIVATE = { mode: PRIVATE_MODE, exactMode: true } as const;

/**
 * Creates `file` atomically, only if it does not exist (AlreadyExists otherwise): temp
 * file, fsync, link, fsync of the folder. Without hard links, an exclusive create of the name.
 */
export function createPrivateFile(file: string, text: string): Promise<void> {
  return writeFileAtomic(file, text, { ...PRIVATE, exclusive: true });
}

/** Replaces (or creates) `file` atomically with mode 0600: temp file, fsync, rename, fsync of the folder. */
export function replacePrivateFile(file: string, text: string): Promise<void> {
  return writeFileAtomic(file, text, PRIVATE);
}
