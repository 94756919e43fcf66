/**
 * Ranking by meaning beside ranking by words: the tools nearest the query's vector (cosine),
 * fused with the word ranking by reciprocal rank fusion — each list gives a tool 1/(k + rank),
 * and the sums are sorted. Ranks, not scores, are fused, so BM25's scale and a model's cosine
 * scale need no calibration. The word ranking is the floor: every tool it found is in the
 * fused list, and when there are no vectors the fused list is the word ranking itself.
 */

/** RRF's constant: 60, as in Cormack et al.; large enough that the first few ranks of either list do not swamp the other. */
export const RRF_K = 60;
/** Tools of the nearest list that take part: the rest of the registry is not "near". */
export const SEMANTIC_CANDIDATES = 30;

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** The `n` keys whose vectors are nearest the query's, nearest first; a vector pointing away (cosine ≤ 0) is not near. */
export function nearest(query: Float32Array, vectors: readonly { key: string; v: Float32Array }[], n: number): { key: string; similarity: number }[] {
  const scored = vectors.map((x) => ({ key: x.key, similarity: cosine(query, x.v) })).filter((x) => x.similarity > 0);
  scored.sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return scored.slice(0, n);
}

/**
 * The fused ranking's first `limit` keys: `lexical` (every tool the words found, best first)
 * and `semantic` (the nearest, best first) by reciprocal rank; ties go to the better word rank.
 */
export function fuse(lexical: readonly string[], semantic: readonly string[], limit: number, k = RRF_K): string[] {
  const score = new Map<string, number>();
  const wordRank = new Map<string, number>();
  lexical.forEach((key, i) => {
    wordRank.set(key, i);
    score.set(key, 1 / (k + i + 1));
  });
  semantic.forEach((key, i) => score.set(key, (score.get(key) ?? 0) + 1 / (k + i + 1)));
  const rankOf = (key: string) => wordRank.get(key) ?? Number.MAX_SAFE_INTEGER;
  return [...score.keys()]
    .sort((a, b) => score.get(b)! - score.get(a)! || rankOf(a) - rankOf(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit);
}
