/**
 * Reading one data file (bundle.json, a tool file, an override, usage.json) for the loader
 * and for writes, without ever throwing on what a person may have left in the folder:
 *
 * - `unreadable`: the name is a folder (EISDIR), permission is denied (EACCES), ... The
 *   entry is reported and skipped; the app starts and serves the rest.
 * - `corrupt`: empty or not JSON.
 * - `ok` with `badUtf8`: the file parses but holds bytes that are not UTF-8. It is served
 *   as decoded (each bad byte as U+FFFD) and reported; writes refuse to rewrite it, so
 *   the bytes are never replaced silently.
 * A leading byte-order mark is accepted (some editors write one).
 */
import { isUtf8 } from 'node:buffer';
import { errnoOf, ioError, type StoreFs } from '../lib/durable-fs';

export type DataFile =
  | { kind: 'missing' }
  | { kind: 'ok'; value: unknown; badUtf8?: string }
  | { kind: 'corrupt'; message: string }
  | { kind: 'unreadable'; message: string; errno?: string };

/** Where the first byte that is not UTF-8 is, as a person finds it in an editor. */
function badUtf8Where(bytes: Buffer, text: string): string {
  const at = text.indexOf('\uFFFD');
  const line = at < 0 ? 1 : text.slice(0, at).split('\n').length;
  return `holds bytes that are not valid UTF-8 (first on line ${line}); it is shown with U+FFFD in their place and the app will not rewrite it until it is saved as UTF-8 (${bytes.length} bytes)`;
}

export async function readDataFile(fs: StoreFs, file: string): Promise<DataFile> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return { kind: 'missing' };
    // ioError's wording ("could not read X: a folder is in the way (EISDIR); nothing was changed") minus the tail.
    return { kind: 'unreadable', errno: code, message: ioError('read', file, e).message.replace(/; nothing was changed$/, '') };
  }
  let text = bytes.toString('utf8');
  const badUtf8 = isUtf8(bytes) ? undefined : badUtf8Where(bytes, text);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { kind: 'corrupt', message: 'the file is empty' };
  try {
    return badUtf8 ? { kind: 'ok', value: JSON.parse(text), badUtf8 } : { kind: 'ok', value: JSON.parse(text) };
  } catch (e) {
    return { kind: 'corrupt', message: `not valid JSON: ${(e as Error).message}` };
  }
}
