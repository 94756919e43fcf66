/**
 * The `text` bundle: JSONPath queries, regex extraction, unified diffs and counts.
 *
 * - jsonpath runs jsonpath-plus with `eval: false`: script and filter expressions
 *   (`[?(...)]`, `[(...)]`) are refused, so a path can never run code.
 * - regex-extract runs the caller's pattern in a worker under a time budget (safe-regex.ts).
 * - diff uses the `diff` package with a time budget of its own (it gives up rather than
 *   spending minutes on two very different large texts).
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { JSONPath } from 'jsonpath-plus';
import { AppError } from '../../../shared/errors';
import type { LocalFunction } from '../invoke/types';
import { argsOf, boolArg, intArg, optString, q, reqString } from '../lib/args';
import { compileRegex, REGEX_TIME_BUDGET_MS, withRegexSession } from '../lib/safe-regex';

const MiB = 1024 * 1024;
export const TEXT_MAX_CHARS = 10 * MiB;
/** diff: characters of each text at most (the algorithm is O(N·D)). */
export const DIFF_MAX_CHARS = 2 * MiB;
export const DIFF_TIME_BUDGET_MS = 3000;
/** regex-extract: characters of all returned matches together at most. */
export const EXTRACT_MAX_CHARS = 4 * MiB;

export interface TextLimits {
  regexTimeoutMs: number;
  diffTimeoutMs: number;
}

// ---- jsonpath --------------------------------------------------------------------------------

function makeJsonPath(): LocalFunction {
  return async (_ctx, rawArgs) => {
    const args = argsOf(rawArgs);
    const expr = reqString(args, 'path', 1000);
    const maxResults = intArg(args, 'maxResults', 1, 10_000, 1000);
    let json: unknown = args.json;
    if (boolArg(args, 'parse', false)) {
      if (typeof json !== 'string') throw new AppError('VALIDATION_FAILED', 'with parse: true, json must be a string holding a JSON document', { field: 'json' });
      try {
        json = JSON.parse(json);
      } catch (e) {
        throw new AppError('VALIDATION_FAILED', `json is not a valid JSON document: ${(e as Error).message}`, { field: 'json' });
      }
    }
    if (json === undefined) throw new AppError('VALIDATION_FAILED', 'json is required', { field: 'json' });
    if (!expr.trimStart().startsWith('$')) throw new AppError('VALIDATION_FAILED', `the JSONPath ${q(expr)} must start with $`, { field: 'path' });
    let found: { path: string; value: unknown }[];
    try {
      found = (JSONPath({ path: expr, json: json as object, eval: false, wrap: true, resultType: 'all' }) ?? []) as { path: string; value: unknown }[];
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      if (/prevented|eval/i.test(msg)) {
        throw new AppError('VALIDATION_FAILED', `the JSONPath ${q(expr)} uses a script or filter expression ([?(...)] or [(...)]), which is not supported: select by names, indexes, slices, * and ..`, { field: 'path' });
      }
      if (e instanceof RangeError) throw new AppError('VALIDATION_FAILED', 'the JSON document is nested too deeply to query', { field: 'json' });
      throw new AppError('VALIDATION_FAILED', `invalid JSONPath ${q(expr)}: ${msg}`, { field: 'path' });
    }
    const truncated = found.length > maxResults;
    const kept = found.slice(0, maxResults);
    return { values: kept.map((r) => (r.value === undefined ? null : r.value)), paths: kept.map((r) => r.path), truncated };
  };
}

// ---- regex-extract ---------------------------------------------------------------------------

/** The capture groups a pattern has: their count and names (matching '' against `(?:p)|`). */
function groupsOf(pattern: string, flags: string): { count: number; names: string[] } {
  const m = new RegExp(`(?:${pattern})|`, flags.replace(/[gy]/g, '')).exec('');
  return { count: m ? m.length - 1 : 0, names: Object.keys(m?.groups ?? {}) };
}

function makeRegexExtract(limits: TextLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const text = reqString(args, 'text', TEXT_MAX_CHARS);
    const pattern = reqString(args, 'pattern', 1000);
    if (pattern === '') throw new AppError('VALIDATION_FAILED', 'pattern must not be empty', { field: 'pattern' });
    const flags = optString(args, 'flags', 10) ?? '';
    if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length) {
      throw new AppError('VALIDATION_FAILED', `flags may hold each of i, m, s and u once: got ${q(flags)}`, { field: 'flags' });
    }
    const maxMatches = intArg(args, 'maxMatches', 1, 10_000, 1000);
    const rawGroup = args.group ?? 0;
    compileRegex(pattern, flags);
    const { count, names } = groupsOf(pattern, flags);
    let group: number | string;
    const asNumber = typeof rawGroup === 'string' && /^\d{1,6}$/.test(rawGroup) && !names.includes(rawGroup) ? Number(rawGroup) : rawGroup;
    if (typeof asNumber === 'number' && Number.isInteger(asNumber) && asNumber >= 0) {
      if (asNumber > count) throw new AppError('VALIDATION_FAILED', `group ${asNumber} does not exist: the pattern has ${count} capture group${count === 1 ? '' : 's'}`, { field: 'group' });
      group = asNumber;
    } else if (typeof asNumber === 'string' && asNumber !== '') {
      if (!names.includes(asNumber)) {
        throw new AppError('VALIDATION_FAILED', `the pattern has no group named ${q(asNumber)}${names.length ? ` (it has ${names.join(', ')})` : ''}`, { field: 'group' });
      }
      group = asNumber;
    } else {
      throw new AppError('VALIDATION_FAILED', 'group must be a group number (0 = the whole match) or a group name', { field: 'group' });
    }
    const sig = [ctx?.signal, signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    return withRegexSession({ timeoutMs: ctx?.regexTimeLimitMs ?? limits.regexTimeoutMs, signal: sig.length ? AbortSignal.any(sig) : undefined }, (s) =>
      s.run({ kind: 'extract', pattern, flags, text, group, maxMatches, maxChars: EXTRACT_MAX_CHARS }),
    );
  };
}

// ---- diff ------------------------------------------------------------------------------------

function makeDiff(limits: TextLimits): LocalFunction {
  return async (_ctx, rawArgs) => {
    const args = argsOf(rawArgs);
    const before = reqString(args, 'before', DIFF_MAX_CHARS);
    const after = reqString(args, 'after', DIFF_MAX_CHARS);
    const beforeName = optString(args, 'beforeName', 200) ?? 'before';
    const afterName = optString(args, 'afterName', 200) ?? 'after';
    const context = intArg(args, 'context', 0, 1000, 3);
    const ignoreWhitespace = boolArg(args, 'ignoreWhitespace', false);
    if (before === after) return { diff: '', identical: true, added: 0, removed: 0, hunks: 0 };
    const patch = structuredPatch(beforeName, afterName, before, after, undefined, undefined, { context, ignoreWhitespace, timeout: limits.diffTimeoutMs });
    if (!patch) {
      throw new AppError('TIMEOUT', `the texts differ too much to diff within ${limits.diffTimeoutMs} ms: diff smaller parts`);
    }
    let added = 0;
    let removed = 0;
    for (const h of patch.hunks) {
      for (const l of h.lines) {
        if (l.startsWith('+')) added++;
        else if (l.startsWith('-')) removed++;
      }
    }
    if (patch.hunks.length === 0) return { diff: '', identical: true, added: 0, removed: 0, hunks: 0 };
    return { diff: formatPatch(patch, FILE_HEADERS_ONLY), identical: false, added, removed, hunks: patch.hunks.length };
  };
}

// ---- count -----------------------------------------------------------------------------------

/**
 * characters: Unicode code points (an emoji such as 😀 is 1, a flag such as 🇫🇷 is 2);
 * words: runs of non-whitespace; lines: '\n', '\r\n' and '\r' end a line, a final line
 * without one counts, and a trailing line break does not start another ('' has 0 lines,
 * 'a' 1, 'a\n' 1, 'a\nb' 2); bytes: the UTF-8 encoding (a lone surrogate counts 3, as
 * U+FFFD).
 */
export function countText(text: string): { characters: number; words: number; lines: number; bytes: number } {
  let characters = 0;
  let bytes = 0;
  let words = 0;
  let breaks = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    characters++;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (cp === 0x0a) breaks++;
    else if (cp === 0x0d && text.charCodeAt(i + 1) !== 0x0a) breaks++;
    const space = cp <= 0x20 ? cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) : isUnicodeSpace(cp);
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  const last = text.charCodeAt(text.length - 1);
  const lines = text.length === 0 ? 0 : last === 0x0a || last === 0x0d ? breaks : breaks + 1;
  return { characters, words, lines, bytes };
}

function isUnicodeSpace(cp: number): boolean {
  return cp === 0x85 || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000 || cp === 0xfeff;
}

function makeCount(): LocalFunction {
  return async (_ctx, rawArgs) => countText(reqString(argsOf(rawArgs), 'text', TEXT_MAX_CHARS));
}

export type TextFunctionName = 'jsonpath' | 'regex-extract' | 'diff' | 'count';

export function createTextFunctions(limits: Partial<TextLimits> = {}): Record<TextFunctionName, LocalFunction> {
  const l: TextLimits = { regexTimeoutMs: REGEX_TIME_BUDGET_MS, diffTimeoutMs: DIFF_TIME_BUDGET_MS, ...limits };
  return { jsonpath: makeJsonPath(), 'regex-extract': makeRegexExtract(l), diff: makeDiff(l), count: makeCount() };
}
