/**
 * Escaping of user text for SQLite FTS5 MATCH expressions.
 *
 * The tool index itself never hands user text to FTS5 (its tiers are B-tree lookups with
 * bound parameters), but anything that does (the benchmark baseline, a `recall search`)
 * must go through here: the text is cut into tokens the way FTS5's unicode61 tokenizer
 * would (letters, digits, marks, private use), and each token becomes a double-quoted
 * string, so `"`, `*`, `-`, `:`, `^`, `(`, `NEAR(`, `AND`/`OR`/`NOT`, NUL and friends are
 * plain text or separators, never syntax.
 */

const FTS_TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A single FTS5 string literal for `s` (quotes doubled). Only safe for text without NUL. */
export function quoteFts5(s: string): string {
  return '"' + s.replace(/"/g, '""') + '"';
}

/** The tokens FTS5 would see in `text`. */
export function fts5Tokens(text: string): string[] {
  const t = text.replace(LONE_SURROGATE, ' ');
  return Array.from(t.matchAll(FTS_TOKEN), (m) => m[0]);
}

export interface Fts5QueryOptions {
  /** Make the last token a prefix (`"rea"*`), as for search-as-you-type. Default false. */
  prefix?: boolean;
  /** Make every token a prefix. Default false. */
  prefixAll?: boolean;
  /** How tokens are combined. Default AND (FTS5's implicit operator). */
  op?: 'AND' | 'OR';
  /** At most this many tokens are used. Default 32. */
  maxTokens?: number;
}

/**
 * A MATCH expression that finds `text`, or null when the text has no tokens at all
 * (the caller then has nothing to search for: return no rows, do not run MATCH).
 */
export function toFts5Query(text: string, opts: Fts5QueryOptions = {}): string | null {
  const tokens = fts5Tokens(text).slice(0, opts.maxTokens ?? 32);
  if (tokens.length === 0) return null;
  const parts = tokens.map((tok, i) => {
    const star = opts.prefixAll || (opts.prefix && i === tokens.length - 1);
    return quoteFts5(tok) + (star ? '*' : '');
  });
  return parts.join(opts.op === 'OR' ? ' OR ' : ' ');
}
