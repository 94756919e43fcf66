/** Reading the JSON files the stores keep, and setting a bad one aside. */
import fsp from 'node:fs/promises';

export type ReadJsonResult =
  | { kind: 'missing' }
  | { kind: 'ok'; value: unknown }
  | { kind: 'corrupt'; message: string };

/** The fs functions these need; the store passes its own (tests inject faults through it). */
export type JsonFs = Pick<typeof fsp, 'readFile' | 'rename'>;

/** A JSON file: missing, parsed, or corrupt (empty, or not JSON) with the reason. Other read errors are thrown. */
export async function readJson(file: string, fs: JsonFs = fsp): Promise<ReadJsonResult> {
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
export async function moveAside(file: string, now: Date, fs: JsonFs = fsp): Promise<string> {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  await fs.rename(file, target);
  return target;
}
