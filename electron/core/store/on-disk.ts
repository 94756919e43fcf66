/**
 * Reads of single records straight from disk, for writes: under the bundle lock the file
 * is the truth (another process may have changed it since the catalog was loaded).
 */
import { AppError } from '../../../shared/errors';
import { BundleSchema, type Bundle } from '../../../shared/model/bundle';
import { ToolSchema, type Tool } from '../../../shared/model/tool';
import type { z } from 'zod';
import { attempt, readJsonFile, type StoreFs } from './durable-fs';
import { firstIssueMessage } from './input';
import type { StoreLayout } from './layout';

async function readRecord<S extends z.ZodType>(fs: StoreFs, file: string, schema: S, what: string): Promise<z.output<S> | undefined> {
  const r = await attempt('read', file, () => readJsonFile(fs, file));
  if (r.kind === 'missing') return undefined;
  const parsed = r.kind === 'ok' ? schema.safeParse(r.value) : undefined;
  if (parsed?.success) return parsed.data;
  const why = r.kind === 'corrupt' ? r.message : firstIssueMessage(parsed!.error!);
  // A bad file is set aside by the loader, which re-checks it under the lock; here we only refuse.
  throw new AppError('UNAVAILABLE', `${what} file ${file} cannot be used (${why}); reload the store to set it aside`, { path: file });
}

export function readBundleOnDisk(fs: StoreFs, layout: StoreLayout, bundleId: string): Promise<Bundle | undefined> {
  return readRecord(fs, layout.bundleFile(bundleId), BundleSchema, 'bundle');
}

export function readToolOnDisk(fs: StoreFs, file: string): Promise<Tool | undefined> {
  return readRecord(fs, file, ToolSchema, 'tool');
}
