/**
 * Reads of single records straight from disk, for writes: under the bundle lock the file
 * is the truth (another process may have changed it since the catalog was loaded).
 * Unknown fields come back on the record (see EXTRA_FIELDS in records.ts) so a write
 * keeps them; a file with bytes that are not UTF-8 is refused, never rewritten.
 */
import { AppError } from '../../../shared/errors';
import { BundleSchema, type Bundle } from '../../../shared/model/bundle';
import { ToolSchema, type Tool } from '../../../shared/model/tool';
import type { z } from 'zod';
import { firstIssueMessage } from './input';
import type { StoreLayout } from './layout';
import type { Quarantine } from './quarantine';
import { readDataFile } from './read-data';
import { parseKeepingUnknown, withExtra } from './records';
import type { StoreFs } from '../lib/durable-fs';

async function readRecord<S extends z.ZodType>(fs: StoreFs, file: string, schema: S, what: string): Promise<z.output<S> | undefined> {
  const r = await readDataFile(fs, file);
  if (r.kind === 'missing') return undefined;
  if (r.kind === 'unreadable') {
    throw new AppError('UNAVAILABLE', `${r.message}; nothing was changed`, { path: file, errno: r.errno });
  }
  if (r.kind === 'ok' && r.badUtf8) {
    throw new AppError('UNAVAILABLE', `${what} file ${file} ${r.badUtf8}; nothing was changed`, { path: file, rule: 'not-utf8' });
  }
  const refuse = (why: string) =>
    new AppError('UNAVAILABLE', `${what} file ${file} cannot be used (${why}); fix it by hand, or remove it, and try again`, { path: file });
  if (r.kind === 'corrupt') throw refuse(r.message);
  const parsed = parseKeepingUnknown(schema, r.value);
  if (!parsed.ok) throw refuse(firstIssueMessage(parsed.error));
  return withExtra(parsed.data as object, parsed.extra) as z.output<S>;
}

export function readBundleOnDisk(fs: StoreFs, layout: StoreLayout, bundleId: string): Promise<Bundle | undefined> {
  return readRecord(fs, layout.bundleFile(bundleId), BundleSchema, 'bundle');
}

/**
 * The bundle a PUT replaces. A damaged bundle.json (not JSON, not a bundle) is moved to
 * quarantine/ first and counts as absent, so a PUT repairs the bundle and loses nothing.
 * Unreadable and non-UTF-8 files are refused as by readBundleOnDisk.
 */
export async function readBundleToReplace(fs: StoreFs, layout: StoreLayout, bundleId: string, quarantine: Quarantine): Promise<Bundle | undefined> {
  try {
    return await readBundleOnDisk(fs, layout, bundleId);
  } catch (e) {
    const r = await readDataFile(fs, layout.bundleFile(bundleId));
    if (r.kind === 'unreadable' || r.kind === 'missing' || (r.kind === 'ok' && r.badUtf8)) throw e;
    await quarantine.setAside(layout.bundleFile(bundleId), `bundle.json: ${(e as Error).message}; replaced by a PUT of the bundle`);
    return undefined;
  }
}

export function readToolOnDisk(fs: StoreFs, file: string): Promise<Tool | undefined> {
  return readRecord(fs, file, ToolSchema, 'tool');
}
