/**
 * The `buffer_ops` tool (docs/design/routing.md; the built-in tool `buffers/buffer-ops`): a
 * model's access to the buffers its conversation or workflow run routed outputs to. The call
 * shape: `operation` is required, `target` names the buffer, except for `search`, where
 * (as in `buffer_ops(operation="search", target="TODO",
 * scope="search_results")`) target is the text to find and `scope` the buffer; `query` may
 * be given instead of target for the text, and then target may name the buffer.
 *
 * - list: every buffer with its size; info: one buffer's metadata;
 * - peek: `max_chars` characters from `offset` (default 0, 2,000 characters);
 * - read: a range, required: `start_line` + `end_line` or `offset` + `length`; a full read
 *   or a range over the limits is refused with a message saying how to ask;
 * - search: substring (or `regex: true`) with line numbers and context; a pattern that
 *   backtracks forever is stopped (TIMEOUT);
 * - export: the buffer to a workspace file (`destination`, `write_mode` default append).
 *
 * The buffers are those of ctx.ownerId; without one (the tester, the REST API) the call is
 * refused. The store may be bound late (a function), so the function can be registered
 * before the registry opens and the tool is never shown disabled.
 */
import { AppError } from '../../../shared/errors';
import type { WriteMode } from '../../../shared/model/routing';
import type { LocalFunction } from '../invoke/types';
import { argsOf, boolArg, checkAborted, enumArg, optInt, optString, type Args } from '../lib/args';
import { BUFFER_PEEK_DEFAULT_CHARS, BUFFER_READ_MAX_CHARS, BUFFER_SEARCH_MAX_CONTEXT_LINES, BUFFER_SEARCH_MAX_MATCHES, BUFFER_SEARCH_MAX_QUERY_CHARS } from './limits';
import type { BufferStore } from './types';

export const BUFFER_OPERATIONS = ['list', 'info', 'peek', 'read', 'search', 'export'] as const;
export type BufferOperation = (typeof BUFFER_OPERATIONS)[number];

const MAX_INT = Number.MAX_SAFE_INTEGER;

function requireName(args: Args, field: string, why: string, maxLength = 200): string {
  const v = optString(args, field, maxLength);
  if (v === undefined || v === '') throw new AppError('VALIDATION_FAILED', `${field} is required ${why}`, { field });
  return v;
}

/** The functionId of the built-in tool buffers/buffer-ops. */
export const BUFFER_OPS_FUNCTION_ID = 'buffers.ops';

/** Registers buffer_ops on a function registry (the app does it; the tools folder knows nothing of buffers). */
export function registerBufferOps(functions: { register(id: string, fn: LocalFunction): unknown }, buffers: BufferStore | (() => BufferStore | undefined)): void {
  functions.register(BUFFER_OPS_FUNCTION_ID, createBufferOpsFunction(buffers));
}

export function createBufferOpsFunction(buffers: BufferStore | (() => BufferStore | undefined)): LocalFunction {
  const store = (): BufferStore => {
    const s = typeof buffers === 'function' ? buffers() : buffers;
    if (!s) throw new AppError('UNAVAILABLE', 'buffers are not available in this process');
    return s;
  };

  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    if (args.operation === undefined) throw new AppError('VALIDATION_FAILED', `operation is required: one of ${BUFFER_OPERATIONS.join(', ')}`, { field: 'operation' });
    const operation = enumArg(args, 'operation', BUFFER_OPERATIONS, 'list');
    const ownerId = ctx?.ownerId;
    if (typeof ownerId !== 'string' || ownerId === '') {
      throw new AppError('UNAVAILABLE', 'buffer_ops runs inside a conversation or a workflow run: only there are there buffers to use');
    }
    checkAborted(signal, ctx?.signal);
    const s = store();

    switch (operation) {
      case 'list': {
        const list = await s.list(ownerId);
        return { operation, buffers: list.map((b) => ({ name: b.name, chars: b.chars, lines: b.lines, bytes: b.bytes, updatedAt: b.updatedAt, source: b.source })) };
      }
      case 'info': {
        const name = requireName(args, 'target', 'for info: the buffer name');
        const b = await s.info(ownerId, name);
        return { operation, name: b.name, chars: b.chars, bytes: b.bytes, lines: b.lines, createdAt: b.createdAt, updatedAt: b.updatedAt, source: b.source };
      }
      case 'peek': {
        const name = requireName(args, 'target', 'for peek: the buffer name');
        const offset = optInt(args, 'offset', 0, MAX_INT) ?? 0;
        const maxChars = optInt(args, 'max_chars', 1, BUFFER_READ_MAX_CHARS) ?? BUFFER_PEEK_DEFAULT_CHARS;
        const info = await s.info(ownerId, name);
        if (offset > info.chars) {
          throw new AppError('VALIDATION_FAILED', `offset ${offset} is past the end: buffer '${name}' has ${info.chars} characters`, { field: 'offset' });
        }
        const length = Math.min(maxChars, info.chars - offset);
        const text = length > 0 ? (await s.read(ownerId, name, { offset, length })).text : '';
        const end = offset + text.length;
        return { operation, name, offset, text, chars: text.length, totalChars: info.chars, more: end < info.chars, ...(end < info.chars ? { nextOffset: end } : {}) };
      }
      case 'read': {
        const name = requireName(args, 'target', 'for read: the buffer name');
        const r = await s.read(ownerId, name, {
          startLine: optInt(args, 'start_line', 1, MAX_INT),
          endLine: optInt(args, 'end_line', 1, MAX_INT),
          offset: optInt(args, 'offset', 0, MAX_INT),
          length: optInt(args, 'length', 1, MAX_INT),
        });
        return { operation, name, ...r };
      }
      case 'search': {
        const explicit = optString(args, 'query', BUFFER_SEARCH_MAX_QUERY_CHARS);
        const query = explicit ?? optString(args, 'target', BUFFER_SEARCH_MAX_QUERY_CHARS);
        if (query === undefined || query === '') {
          throw new AppError('VALIDATION_FAILED', 'search needs the text to find: target="TODO" (or query="TODO") and the buffer in scope', { field: 'target' });
        }
        const name = optString(args, 'scope', 200) ?? (explicit !== undefined ? optString(args, 'target', 200) : undefined);
        if (name === undefined || name === '') {
          throw new AppError('VALIDATION_FAILED', 'search needs the buffer to search in scope, e.g. scope="search_results"', { field: 'scope' });
        }
        const r = await s.search(ownerId, name, {
          query,
          regex: boolArg(args, 'regex', false),
          caseSensitive: boolArg(args, 'case_sensitive', true),
          contextLines: optInt(args, 'context_lines', 0, BUFFER_SEARCH_MAX_CONTEXT_LINES) ?? 1,
          maxMatches: optInt(args, 'max_matches', 1, BUFFER_SEARCH_MAX_MATCHES) ?? 50,
          signal,
        });
        return { operation, name, query, ...r };
      }
      case 'export': {
        const name = requireName(args, 'target', 'for export: the buffer name');
        const destination = requireName(args, 'destination', 'for export: a file path relative to the workspace, e.g. reports/results.md', 4096);
        const writeMode: WriteMode = enumArg(args, 'write_mode', ['append', 'replace', 'new'] as const, 'append');
        const r = await s.export(ownerId, name, destination, writeMode);
        return { operation, name, path: r.path, chars: r.chars, writeMode };
      }
    }
  };
}
