/**
 * A buffer search's options checked and turned into what the search worker runs: the
 * pattern (a literal query escaped), its flags, the required literal a case-sensitive regex
 * must contain (to skip windows quickly), context and match limits. Every refusal is a
 * VALIDATION_FAILED naming its field; the pattern is compiled here first, so a syntax
 * error is reported before any worker starts (compiling never backtracks).
 */
import { AppError } from '../../../shared/errors';
import { compileRegex, escapeRegExp } from '../lib/safe-regex';
import { isAsciiPattern, requiredLiteral } from './buffer-search';
import {
  BUFFER_SEARCH_DEFAULT_MATCHES,
  BUFFER_SEARCH_MAX_CONTEXT_LINES,
  BUFFER_SEARCH_MAX_MATCHES,
  BUFFER_SEARCH_MAX_QUERY_CHARS,
} from './limits';
import type { BufferSearchOptions } from './types';

export interface SearchPlan {
  query: string;
  pattern: string;
  asciiPattern: boolean;
  literal: string | undefined;
  regex: boolean;
  caseSensitive: boolean;
  contextLines: number;
  maxMatches: number;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function searchPlan(opts: BufferSearchOptions | undefined): SearchPlan {
  const o = opts ?? ({} as BufferSearchOptions);
  if (typeof o.query !== 'string' || o.query === '') throw new AppError('VALIDATION_FAILED', 'query is required: the text (or regular expression) to search for', { field: 'query' });
  if (o.query.length > BUFFER_SEARCH_MAX_QUERY_CHARS) throw new AppError('VALIDATION_FAILED', `query may be at most ${fmt(BUFFER_SEARCH_MAX_QUERY_CHARS)} characters`, { field: 'query' });
  if (/[\r\n]/.test(o.query)) throw new AppError('VALIDATION_FAILED', 'query may not contain a line break: the search works line by line', { field: 'query' });
  const regex = o.regex === true;
  const caseSensitive = o.caseSensitive !== false;
  const pattern = regex ? o.query : escapeRegExp(o.query);
  compileRegex(pattern, `gm${caseSensitive ? '' : 'i'}`);
  return {
    query: o.query,
    pattern,
    asciiPattern: isAsciiPattern(pattern),
    literal: regex && caseSensitive ? (requiredLiteral(pattern) ?? undefined) : undefined,
    regex,
    caseSensitive,
    contextLines: boundedInt(o.contextLines, 'contextLines', 0, BUFFER_SEARCH_MAX_CONTEXT_LINES, 0),
    maxMatches: boundedInt(o.maxMatches, 'maxMatches', 1, BUFFER_SEARCH_MAX_MATCHES, BUFFER_SEARCH_DEFAULT_MATCHES),
  };
}

function boundedInt(v: unknown, field: string, min: number, max: number, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new AppError('VALIDATION_FAILED', `${field} must be a whole number from ${fmt(min)} to ${fmt(max)}`, { field });
  }
  return v;
}
