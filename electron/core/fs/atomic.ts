/**
 * Small file helpers shared by the stores. Atomic writes live in ../store/durable-fs.ts
 * (temp file, fsync, rename, folder fsync), the one implementation every store uses.
 */
import fs from 'node:fs/promises';

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
