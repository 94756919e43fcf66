import fs from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';

/** Writes JSON so that the file always parses as the old or the new version (temp, fsync, rename). */
export async function writeJsonAtomic(file: string, value: unknown, mode = 0o644): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n', { fsync: true, mode });
}

export async function writeTextAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  await writeFileAtomic(file, text, { fsync: true, mode });
}

export type ReadJsonResult =
  | { kind: 'missing' }
  | { kind: 'ok'; value: unknown }
  | { kind: 'corrupt'; message: string };

export async function readJson(file: string): Promise<ReadJsonResult> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  if (text.trim() === '') return { kind: 'corrupt', message: 'the file is empty' };
  try {
    return { kind: 'ok', value: JSON.parse(text) };
  } catch (e) {
    return { kind: 'corrupt', message: `not valid JSON: ${(e as Error).message}` };
  }
}

/** Moves a bad file aside (never deletes it) and returns where it went. */
export async function moveAside(file: string, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  await fs.rename(file, target);
  return target;
}
