/**
 * Text folding and tokenising shared by the index (what is stored) and the ranking
 * (what a query is compared with). Both sides MUST use these functions, or a tool
 * would be indexed under a different string than the one a query looks for.
 */

/** Tier-1 prefixes up to this many code points are stored as exact tokens (index walk, no sort). */
export const PREFIX_TOKEN_LEN = 3;
/** Words longer than this (code units) are not indexed (base64 blobs, URLs, ...). */
export const MAX_WORD_LEN = 64;
/** A query is cut to this many code points; it never makes a search fail. */
export const MAX_QUERY_LEN = 256;
/** At most this many words of a query take part in the whole-word tier. */
export const MAX_QUERY_WORDS = 16;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SEPARATORS = /[\s\p{Cc}\-_\u2010-\u2015\u2212]+/gu;
const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
const CAMEL_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/** Replaces unpaired surrogates (which SQLite would store as U+FFFD anyway). */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** NFKC, lower case (final sigma folded to sigma), NFKC again. */
export function norm(s: string): string {
  return wellFormed(s).normalize('NFKC').toLowerCase().replace(/ς/g, 'σ').normalize('NFKC');
}

/** A prefix key: normalised, with runs of spaces, dashes, underscores and controls made one space. */
export function foldKey(s: string): string {
  return norm(s).replace(SEPARATORS, ' ').trim();
}

export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first n code points of s. */
export function takeCodePoints(s: string, n: number): string {
  let out = '';
  let k = 0;
  for (const ch of s) {
    if (k++ >= n) break;
    out += ch;
  }
  return out;
}

/**
 * The words of a text: runs of letters, marks and digits, folded. With `camel`, a run
 * like `readFile` or `HTTPRequest` also gives its parts (`read`, `file`; `http`, `request`).
 */
export function addWords(text: string, out: Set<string>, camel = true): void {
  const t = wellFormed(text).normalize('NFKC');
  for (const m of t.matchAll(WORD_RUN)) {
    const run = m[0];
    addWord(norm(run), out);
    if (camel && run.length > 1) {
      const parts = run.split(CAMEL_BOUNDARY);
      if (parts.length > 1) for (const p of parts) addWord(norm(p), out);
    }
  }
}

function addWord(w: string, out: Set<string>): void {
  if (w.length > 0 && w.length <= MAX_WORD_LEN) out.add(w);
}

/** Distinct prefix tokens of a key: its prefixes of 1..PREFIX_TOKEN_LEN code points, and the key itself. */
export function addPrefixTokens(key: string, out: Set<string>): void {
  let prefix = '';
  let n = 0;
  for (const ch of key) {
    if (n >= PREFIX_TOKEN_LEN) break;
    prefix += ch;
    n++;
    if (ch !== ' ') out.add(prefix); // a query is trimmed, so it never ends with a space
  }
  if (key.length > 0) out.add(key);
}

/**
 * Compares two strings in Unicode code point order, which is the order SQLite's BINARY
 * collation gives for UTF-8 text (JS `<` compares UTF-16 code units, which differs for
 * characters above U+FFFF versus U+E000..U+FFFF).
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/**
 * The smallest string greater than every string that starts with `prefix`, in code point
 * (= UTF-8 byte) order, or undefined if there is none. For `tok >= prefix AND tok < upper`.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const cps = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    let last = cps.pop()! + 1;
    if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
    if (last <= 0x10ffff) {
      cps.push(last);
      return String.fromCodePoint(...cps);
    }
  }
  return undefined;
}
