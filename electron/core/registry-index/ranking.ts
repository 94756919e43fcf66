/**
 * The ranking, stated once in plain code: which tier a tool falls in for a query.
 * The SQLite index produces the same answer without scanning (tool-index.ts); the
 * tests compare the two, and the benchmark's linear baseline uses this directly.
 *
 *   prefix  the slug, the display name or a tag starts with the query (folded)
 *   word    every word of the query is a whole word of slug, name, description or tags
 *   fuzzy   the query (its words joined) is within 1 edit (3..6 code points) or 2 edits
 *           (7..20) of a word of the tool (OSA distance: a swap of neighbours is 1 edit)
 *   recent  the empty query: everything
 * A tool is in its best tier only. Within a tier: modifiedAt descending, then id.
 */
import { deletionNeighbourhood, maxEdits, osaDistance } from './fuzzy';
import {
  MAX_QUERY_LEN,
  MAX_QUERY_WORDS,
  addPrefixTokens,
  addWords,
  codePointLength,
  compareCodePoints,
  foldKey,
  takeCodePoints,
} from './text';

export type Tier = 'prefix' | 'word' | 'fuzzy' | 'recent';
export const QUERY_TIERS: readonly Tier[] = ['prefix', 'word', 'fuzzy'];
export const EMPTY_QUERY_TIERS: readonly Tier[] = ['recent'];

/** The fields of a tool that search looks at. */
export interface SearchFields {
  slug: string;
  displayName: string;
  description: string;
  tags: readonly string[];
}

/** What the index stores for one tool, derived from its SearchFields. */
export interface ToolFeatures {
  /** Folded slug, display name and tags, distinct. */
  keys: string[];
  /** Distinct prefix tokens of the keys (see addPrefixTokens). */
  prefixTokens: string[];
  /** Distinct words of all fields. */
  words: string[];
  /** For each word: does some key start with it (then the word tier never holds this tool for it). */
  wordIsPrefix: boolean[];
}

/** Folded slug, display name and tags, distinct and non-empty. */
export function keysOf(f: SearchFields): string[] {
  const keySet = new Set<string>();
  for (const s of [f.slug, f.displayName, ...f.tags]) {
    const k = foldKey(s);
    if (k) keySet.add(k);
  }
  return [...keySet];
}

/** Distinct words of slug, display name, description and tags. */
export function wordsOf(f: SearchFields): Set<string> {
  const wordSet = new Set<string>();
  addWords(f.slug, wordSet);
  addWords(f.displayName, wordSet);
  addWords(f.description, wordSet);
  for (const t of f.tags) addWords(t, wordSet);
  return wordSet;
}

export function toolFeatures(f: SearchFields): ToolFeatures {
  const keys = keysOf(f);
  const tokSet = new Set<string>();
  for (const k of keys) addPrefixTokens(k, tokSet);
  const words = [...wordsOf(f)];
  const wordIsPrefix = words.map((w) => keys.some((k) => k.startsWith(w)));
  return { keys, prefixTokens: [...tokSet], words, wordIsPrefix };
}

export interface PreparedQuery {
  /** The query as the user typed it (after cutting to MAX_QUERY_LEN). */
  raw: string;
  /** Folded query, leading '+' (the invoke prefix) removed; '' = list everything by recency. */
  folded: string;
  foldedLen: number;
  /** Distinct words of the query, longest first. */
  words: string[];
  /** The words joined: what fuzzy compares with a tool's words. */
  fuzzyText: string;
  fuzzyChars: string[];
  /** Edits allowed for fuzzy matches; 0 = no fuzzy tier. */
  fuzzyEdits: number;
}

export function prepareQuery(q: string | undefined | null): PreparedQuery {
  const raw = takeCodePoints(typeof q === 'string' ? q : '', MAX_QUERY_LEN);
  const stripped = raw.replace(/^[\s+]+/u, '');
  const folded = foldKey(stripped);
  const wordSet = new Set<string>();
  addWords(stripped, wordSet, false);
  const words = [...wordSet].slice(0, MAX_QUERY_WORDS).sort((a, b) => b.length - a.length);
  const fuzzyText = [...wordSet].slice(0, MAX_QUERY_WORDS).join('');
  const fuzzyChars = Array.from(fuzzyText);
  return {
    raw,
    folded,
    foldedLen: codePointLength(folded),
    words,
    fuzzyText,
    fuzzyChars,
    fuzzyEdits: maxEdits(fuzzyChars.length),
  };
}

/** The candidate strings to look up in the vocabulary's deletion table for a query. */
export function queryDeletions(q: PreparedQuery): string[] {
  if (q.fuzzyEdits === 0) return [];
  return [...deletionNeighbourhood(q.fuzzyText, q.fuzzyEdits).keys()];
}

/** Does a vocabulary term match the query fuzzily (including exactly)? */
export function fuzzyTermMatches(q: PreparedQuery, term: string): boolean {
  if (q.fuzzyEdits === 0) return false;
  return osaDistance(q.fuzzyChars, Array.from(term), q.fuzzyEdits) <= q.fuzzyEdits;
}

/** Features plus a word set, for repeated classification (the linear baseline, the tests). */
export interface ClassifiableTool {
  keys: readonly string[];
  wordSet: ReadonlySet<string>;
  words: readonly string[];
}

export function classifiable(f: SearchFields): ClassifiableTool {
  const wordSet = wordsOf(f);
  return { keys: keysOf(f), words: [...wordSet], wordSet };
}

export function isPrefixMatch(t: { keys: readonly string[] }, q: PreparedQuery): boolean {
  for (const k of t.keys) if (k.startsWith(q.folded)) return true;
  return false;
}

/** The best tier of a tool for a query, or null when it does not match. */
export function classify(t: ClassifiableTool, q: PreparedQuery): Tier | null {
  if (q.folded === '') return 'recent';
  if (isPrefixMatch(t, q)) return 'prefix';
  if (q.words.length > 0 && q.words.every((w) => t.wordSet.has(w))) return 'word';
  if (q.fuzzyEdits > 0) {
    const k = q.fuzzyEdits;
    const n = q.fuzzyChars.length;
    for (const w of t.words) {
      if (Math.abs(w.length - q.fuzzyText.length) > 2 * k + 2) continue; // cheap pre-filter (code units)
      const cps = Array.from(w);
      if (Math.abs(cps.length - n) > k) continue;
      if (osaDistance(q.fuzzyChars, cps, k) <= k) return 'fuzzy';
    }
  }
  return null;
}

export function tierRank(t: Tier): number {
  return t === 'prefix' ? 0 : t === 'word' ? 1 : t === 'fuzzy' ? 2 : 3;
}

/** Order of rows inside one tier: newest first, then id (code point order, as SQLite). */
export interface RankKey {
  negMod: number;
  id: string;
}

export function compareRankKey(a: RankKey, b: RankKey): number {
  return a.negMod - b.negMod || compareCodePoints(a.id, b.id);
}

/** modifiedAt as the stored sort key: minus epoch milliseconds (unparseable = epoch, the oldest). */
export function negModOf(modifiedAt: string): number {
  const t = Date.parse(modifiedAt);
  return Number.isFinite(t) ? -t : 0;
}
