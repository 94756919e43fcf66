/**
 * Typo tolerance: optimal-string-alignment distance (Damerau-Levenshtein where a
 * transposition counts 1) and the deletion neighbourhoods that let SQLite find the
 * candidate words of a query by exact B-tree lookups (symmetric-delete, as in SymSpell):
 * if osa(a, b) <= k then some string is reachable from both a and b by <= k deletions.
 */

/** Fuzzy matching needs a query of at least this many code points. */
export const FUZZY_MIN_LEN = 3;
/** And at most this many (the deletion neighbourhood grows with the square of the length). */
export const FUZZY_MAX_LEN = 20;
/** Vocabulary terms longer than this can never be within 2 of a query; they get no deletions. */
export const FUZZY_MAX_TERM_LEN = FUZZY_MAX_LEN + 2;

/** Edits allowed for a query of `len` code points: none below 3, 1 up to 6, 2 from 7. */
export function maxEdits(len: number): number {
  if (len < FUZZY_MIN_LEN || len > FUZZY_MAX_LEN) return 0;
  return len <= 6 ? 1 : 2;
}

/**
 * How many deletions of a stored term must be indexed so that every query within its
 * allowed edits is found: a term of length L can meet a query of length >= L only with
 * deletions on its side; L >= 7 may meet 2-edit queries.
 */
export function termDeletionDepth(len: number): number {
  if (len < 2 || len > FUZZY_MAX_TERM_LEN) return -1; // not indexed at all
  if (len < 3) return 0;
  if (len < 7) return 1;
  return 2;
}

/**
 * Every string obtained from `cps` by deleting 0..depth code points, with the smallest
 * number of deletions that reaches it.
 */
export function deletionNeighbourhood(word: string, depth: number): Map<string, number> {
  const out = new Map<string, number>();
  const start = Array.from(word);
  out.set(word, 0);
  let frontier: string[][] = [start];
  for (let d = 1; d <= depth; d++) {
    const next: string[][] = [];
    for (const cps of frontier) {
      for (let i = 0; i < cps.length; i++) {
        if (i > 0 && cps[i] === cps[i - 1]) continue; // same result as deleting i-1
        const del = cps.slice(0, i).concat(cps.slice(i + 1));
        const key = del.join('');
        if (!out.has(key)) {
          out.set(key, d);
          next.push(del);
        }
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * Optimal string alignment distance between two code point arrays, or max + 1 as soon
 * as it is certain to exceed `max`.
 */
export function osaDistance(a: readonly string[], b: readonly string[], max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0) return m;
  if (m === 0) return n;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = new Array<number>(m + 1);
  let cur = new Array<number>(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    const ai = a[i - 1];
    for (let j = 1; j <= m; j++) {
      const bj = b[j - 1];
      const cost = ai === bj ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && ai === b[j - 2] && a[i - 2] === bj) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] > max ? max + 1 : prev[m];
}
