/**
 * The `documents` built-in tool (functionId `documents.query`): agents list and filter the
 * workspace's documents (tags, creator, type, words), read one's metadata and versions, and
 * describe one (description, tags). The file's content is read with readfile (ranges; a large
 * one through the oversized-output path).
 */
import { AppError } from '../../../shared/errors';
import type { DocumentInfo } from '../../../shared/model/document';
import type { LocalFunction } from '../invoke/types';
import { argsOf, checkAborted, enumArg, intArg, optString, reqString } from '../lib/args';
import type { DocumentStore } from './document-store';

export const DOCUMENTS_FUNCTION_ID = 'documents.query';
export const DOCUMENT_OPERATIONS = ['list', 'get', 'describe'] as const;

function stringList(v: unknown, name: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new AppError('VALIDATION_FAILED', `${name} must be a list of strings`, { field: name });
  return v as string[];
}

/** What the model gets of a document: its metadata, versions as count and the last one. */
function brief(d: DocumentInfo): Record<string, unknown> {
  return {
    path: d.path,
    mimeType: d.mimeType,
    sizeBytes: d.sizeBytes,
    ...(d.tokenCount !== undefined ? { tokenCount: d.tokenCount } : {}),
    createdBy: d.createdBy,
    createdAt: d.createdAt,
    updatedBy: d.updatedBy,
    updatedAt: d.updatedAt,
    summary: d.autoSummary,
    summarySource: summarySource(d),
    description: d.description,
    tags: d.tags,
  };
}

/** Where a document's summary comes from, so an agent knows how far to trust it. */
export function summarySource(d: DocumentInfo): string {
  const s = d.summaryInfo;
  if (s?.source === 'model') return `model ${s.model ?? 'unknown'}`;
  return s?.failed ? `first lines (the model could not summarize it: ${s.failed})` : 'first lines';
}

export function registerDocumentTool(functions: { register(id: string, fn: LocalFunction): unknown }, documents: () => DocumentStore | undefined): void {
  functions.register(DOCUMENTS_FUNCTION_ID, createDocumentTool(documents));
}

export function createDocumentTool(documents: () => DocumentStore | undefined): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    if (args.operation === undefined) throw new AppError('VALIDATION_FAILED', `operation is required: one of ${DOCUMENT_OPERATIONS.join(', ')}`, { field: 'operation' });
    const operation = enumArg(args, 'operation', DOCUMENT_OPERATIONS, 'list');
    checkAborted(signal, ctx?.signal);
    const store = documents();
    if (!store) throw new AppError('UNAVAILABLE', 'documents are not available in this process');
    await store.idle();
    switch (operation) {
      case 'list': {
        const tags = stringList(args.tags, 'tags');
        const createdBy = optString(args, 'created_by', 200);
        const mimeType = optString(args, 'mime_type', 200);
        const text = optString(args, 'text', 1000);
        const pathPrefix = optString(args, 'path_prefix', 4096);
        const limit = intArg(args, 'limit', 1, 200, 50);
        const list = store.list({ ...(tags ? { tags } : {}), ...(createdBy ? { createdBy } : {}), ...(mimeType ? { mimeType } : {}), ...(text ? { text } : {}), ...(pathPrefix ? { pathPrefix } : {}), limit });
        return { operation, documents: list.map(brief) };
      }
      case 'get': {
        const d = store.get(reqString(args, 'path', 4096));
        return { operation, document: { ...brief(d), versions: (d.versions ?? []).map((v) => ({ seq: v.seq, hash: v.hash, sizeBytes: v.sizeBytes, at: v.at, by: v.by })) } };
      }
      case 'describe': {
        const path = reqString(args, 'path', 4096);
        const description = optString(args, 'description', 2000);
        const tags = stringList(args.set_tags, 'set_tags');
        if (description === undefined && tags === undefined) throw new AppError('VALIDATION_FAILED', 'describe needs description, set_tags, or both', { field: 'description' });
        const d = store.describe(path, { ...(description !== undefined ? { description } : {}), ...(tags ? { tags } : {}) }, ctx?.ownerId ?? 'user');
        return { operation, document: brief(d) };
      }
    }
  };
}
