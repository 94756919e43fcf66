/**
 * Building a whole index from scratch, in steps.
 *
 * Random-order inserts into the token B-trees dirty pages all over the file, so every
 * transaction rewrites megabytes (a 100k-tool build took 28 s in 1000-tool transactions
 * and blocked the event loop for 0.4 s at a time). Instead:
 *   1. tools are given rids in (neg_mod, id) order, and their records are appended;
 *   2. the token rows are collected in memory per key, as lists of rids (already in
 *      (neg_mod, rid) order because the tools were visited in that order);
 *   3. the rows are appended to each table in primary-key order, so every transaction
 *      only touches the right edge of the B-tree.
 * Each `yield` marks a point where the caller may commit and let the event loop run.
 */
import type Database from 'better-sqlite3';
import { BulkInserter } from './bulk';
import { deletionNeighbourhood, termDeletionDepth } from './fuzzy';
import { compareRankKey, negModOf, toolFeatures } from './ranking';
import type { IndexedTool } from './types';

type DB = Database.Database;

export const TOOLS_PER_STEP = 1000;
export const ROWS_PER_STEP = 25_000;

export interface StepSizes {
  /** Tools whose records are written per step. Default 1000. */
  toolsPerStep?: number;
  /** Index rows written per step. Default 25000. */
  rowsPerStep?: number;
}

export interface BuildRecordColumns {
  /** tool_data columns after rid, for one tool. */
  dataParams(t: IndexedTool): unknown[];
  dataColumns: string;
}

/** Codes are enabled * 2 + in_prefix for words, enabled for prefixes. */
type Buckets = Map<string, number[][]>;

function addTo(buckets: Buckets, key: string, code: number, rid: number, codes: number): void {
  let b = buckets.get(key);
  if (!b) {
    b = Array.from({ length: codes }, () => []);
    buckets.set(key, b);
  }
  b[code].push(rid);
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The keys of a map in sorted order, sorted one first-character slice at a time (a single
 * sort of 300k keys would block for a few hundred ms).
 */
function* sortedKeys(map: Map<string, unknown>): Generator<string> {
  const slices = new Map<string, string[]>();
  for (const k of map.keys()) {
    const first = k.charAt(0);
    let slice = slices.get(first);
    if (!slice) slices.set(first, (slice = []));
    slice.push(k);
  }
  for (const first of [...slices.keys()].sort(byString)) {
    const slice = slices.get(first)!.sort(byString);
    slices.delete(first);
    yield* slice;
  }
}

/** Fills empty tables with `tools` (validated, distinct ids). */
export function* buildSteps(
  db: DB,
  tools: readonly IndexedTool[],
  cols: BuildRecordColumns,
  sizes: StepSizes = {},
): Generator<void> {
  const toolsPerStep = Math.max(1, sizes.toolsPerStep ?? TOOLS_PER_STEP);
  const rowsPerStep = Math.max(1, sizes.rowsPerStep ?? ROWS_PER_STEP);
  const ordered = tools
    .map((t) => ({ t, negMod: negModOf(t.modifiedAt), id: t.id }))
    .sort(compareRankKey);
  const negModByRid: number[] = [0];
  const prefixes: Buckets = new Map();
  const words: Buckets = new Map();

  const toolIns = new BulkInserter(db, `INSERT INTO tools (rid, id, enabled, neg_mod)`, 4, 200);
  const dataIns = new BulkInserter(db, `INSERT INTO tool_data (${cols.dataColumns})`, 11, 50);
  const docIns = new BulkInserter(db, `INSERT INTO tool_docs (rid, doc)`, 2, 50);
  for (let i = 0; i < ordered.length; i++) {
    const { t, negMod } = ordered[i];
    const rid = i + 1;
    const enabled = t.enabled ? 1 : 0;
    negModByRid.push(negMod);
    toolIns.add(rid, t.id, enabled, negMod);
    dataIns.add(rid, ...cols.dataParams(t));
    if (t.doc !== undefined) docIns.add(rid, t.doc);
    const f = toolFeatures(t);
    for (const tok of f.prefixTokens) addTo(prefixes, tok, enabled, rid, 2);
    for (let k = 0; k < f.words.length; k++) addTo(words, f.words[k], enabled * 2 + (f.wordIsPrefix[k] ? 1 : 0), rid, 4);
    if (rid % toolsPerStep === 0) {
      toolIns.flush();
      dataIns.flush();
      docIns.flush();
      yield;
    }
  }
  toolIns.flush();
  dataIns.flush();
  docIns.flush();
  yield;

  // prefixes (tok, enabled, neg_mod, rid)
  let rows = 0;
  const prefIns = new BulkInserter(db, `INSERT INTO prefixes (tok, enabled, neg_mod, rid)`, 4, 200);
  for (const tok of sortedKeys(prefixes)) {
    const b = prefixes.get(tok)!;
    for (let code = 0; code < b.length; code++) {
      for (const rid of b[code]) {
        prefIns.add(tok, code, negModByRid[rid], rid);
        if (++rows >= rowsPerStep) {
          prefIns.flush();
          rows = 0;
          yield;
        }
      }
    }
    prefixes.delete(tok);
  }
  prefIns.flush();
  yield;

  // words (word, enabled, in_prefix, neg_mod, rid) and the vocabulary with its counts
  const vocab: [string, number][] = [];
  const wordIns = new BulkInserter(db, `INSERT INTO words (word, enabled, in_prefix, neg_mod, rid)`, 5, 200);
  for (const w of sortedKeys(words)) {
    const b = words.get(w)!;
    let refs = 0;
    for (let code = 0; code < b.length; code++) {
      const enabled = code >> 1;
      const inPrefix = code & 1;
      refs += b[code].length;
      for (const rid of b[code]) {
        wordIns.add(w, enabled, inPrefix, negModByRid[rid], rid);
        if (++rows >= rowsPerStep) {
          wordIns.flush();
          rows = 0;
          yield;
        }
      }
    }
    vocab.push([w, refs]);
    words.delete(w);
  }
  wordIns.flush();
  yield;

  // vocab (term, refs), already in term order
  const vocabIns = new BulkInserter(db, `INSERT INTO vocab (term, refs)`, 2, 200);
  for (const [term, refs] of vocab) vocabIns.add(term, refs);
  vocabIns.flush();
  yield;

  // vocab_del (del, term, d): generated a slice of terms per step, grouped by the first
  // character of del so that sorting, too, is done a slice at a time.
  const groups = new Map<string, Map<string, [string, number][]>>();
  let work = 0;
  for (const [term] of vocab) {
    const depth = termDeletionDepth(Array.from(term).length);
    if (depth < 0) continue;
    for (const [del, d] of deletionNeighbourhood(term, depth)) {
      const first = del.charAt(0);
      let group = groups.get(first);
      if (!group) groups.set(first, (group = new Map()));
      let list = group.get(del);
      if (!list) group.set(del, (list = []));
      list.push([term, d]); // terms arrive in order
      work++;
    }
    if (work >= rowsPerStep) {
      work = 0;
      yield;
    }
  }
  const delIns = new BulkInserter(db, `INSERT INTO vocab_del (del, term, d)`, 3, 200);
  for (const first of [...groups.keys()].sort(byString)) {
    const group = groups.get(first)!;
    for (const del of [...group.keys()].sort(byString)) {
      for (const [term, d] of group.get(del)!) {
        delIns.add(del, term, d);
        if (++rows >= rowsPerStep) {
          delIns.flush();
          rows = 0;
          yield;
        }
      }
    }
    groups.delete(first);
  }
  delIns.flush();
}
