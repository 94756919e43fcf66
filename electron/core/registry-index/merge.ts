/**
 * Lazy k-way merge of row sources that are each sorted by (negMod, id), fetched in
 * small batches (keyset: "rows after the last one I saw"). Nothing is read beyond what
 * the consumer pulls, which is what keeps a top-20 query at O(20) index entries.
 * Equal keys are the same tool (the key holds the id), so duplicates are dropped.
 */
import { compareRankKey, type RankKey } from './ranking';

/** Returns up to `limit` rows strictly after `after`, in (negMod, id) order. */
export type RowFetch = (after: RankKey, limit: number) => RankKey[];

/** A cursor before every row: negMod is minus epoch ms, far above -1e16; ids are non-empty. */
export const START: RankKey = { negMod: -1e16, id: '' };

const MAX_BATCH = 512;

interface SourceState<T extends RankKey> {
  fetch: (after: RankKey, limit: number) => T[];
  buf: T[];
  pos: number;
  last: RankKey;
  batch: number;
  exhausted: boolean;
}

export function* mergeSorted<T extends RankKey = RankKey>(
  fetches: ReadonlyArray<(after: RankKey, limit: number) => T[]>,
  after: RankKey,
  firstBatch: number,
): Generator<T> {
  const sources: SourceState<T>[] = fetches.map((fetch) => ({
    fetch,
    buf: [],
    pos: 0,
    last: after,
    batch: Math.max(1, Math.min(firstBatch, MAX_BATCH)),
    exhausted: false,
  }));
  let prev: RankKey | undefined;
  for (;;) {
    let best: SourceState<T> | undefined;
    for (const s of sources) {
      if (s.pos >= s.buf.length) {
        if (s.exhausted) continue;
        const rows = s.fetch(s.last, s.batch);
        if (rows.length < s.batch) s.exhausted = true;
        s.batch = Math.min(s.batch * 4, MAX_BATCH);
        s.buf = rows;
        s.pos = 0;
        if (rows.length === 0) continue;
        s.last = rows[rows.length - 1];
      }
      if (!best || compareRankKey(s.buf[s.pos], best.buf[best.pos]) < 0) best = s;
    }
    if (!best) return;
    const row = best.buf[best.pos++];
    if (prev && compareRankKey(prev, row) === 0) continue;
    prev = row;
    yield row;
  }
}

/** Sorted, de-duplicated rows of an in-memory list strictly after `after`, as a generator. */
export function* sortedAfter(rows: RankKey[], after: RankKey): Generator<RankKey> {
  rows.sort(compareRankKey);
  let prev: RankKey | undefined;
  for (const r of rows) {
    if (compareRankKey(r, after) <= 0) continue;
    if (prev && compareRankKey(prev, r) === 0) continue;
    prev = r;
    yield r;
  }
}
