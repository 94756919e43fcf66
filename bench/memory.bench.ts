/**
 * Memory (docs/design/memory.md).
 *
 *   (a) `recall search` over 100,000 entries through the memory service (both permission
 *       layers, the query escaped, rows joined and decoded) vs a bare FTS5 MATCH of the same
 *       escaped query on the same table (rowid and bm25, ORDER BY bm25 LIMIT 10), on a second
 *       connection to the same file. 60 queries of one to three words, from common to rare,
 *       each timed 20 times, the two interleaved. p50 and p99 of each; target 1.5 for both.
 *   (b) `block_edit append` on a Text block with 10,000 edits in its history (through the
 *       service: layers, plan, Loro insert and commit, the update and the version stored in
 *       one SQLite transaction) vs a plain SQLite append of the same text (one INSERT in its
 *       own transaction). p50 of 300 appends; the goal is under a millisecond.
 *   (c) The same block's stored bytes (the Loro snapshot and updates, and the versions' rows)
 *       vs its plain text in UTF-8. Target 3.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemoryService } from '../electron/core/memory/memory-service';
import { toFts5Query } from '../electron/core/registry-index/query-escape';
import { never, userActor } from '../electron/core/memory/testing/memory-kit';
import { median, result, type BenchResult } from './harness';

const ENTRIES = Number(process.env.MEMORY_BENCH_ENTRIES ?? 100_000);
const EDITS = Number(process.env.MEMORY_BENCH_EDITS ?? 10_000);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** A deterministic generator and a Zipf-like vocabulary: a few words are everywhere, most are rare. */
function words(seed: number) {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const vocab = Array.from({ length: 8000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}`);
  const pick = () => vocab[Math.floor(vocab.length * rnd() ** 3)]!;
  return { rnd, vocab, pick, sentence: (n: number) => Array.from({ length: n }, pick).join(' ') };
}

export async function run(): Promise<BenchResult[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-memory-bench-'));
  const file = path.join(dir, 'memory.sqlite');
  const memory = MemoryService.open({ file, now: () => new Date() });
  const actor = userActor('bench');
  const results: BenchResult[] = [];
  try {
    // (a) recall search
    const g = words(42);
    for (let i = 0; i < ENTRIES; i += 5000) {
      memory.recall.insertMany(actor.owner, Array.from({ length: Math.min(5000, ENTRIES - i) }, (_, k) => ({ content: `${g.sentence(12 + ((i + k) % 17))}.`, metadata: (i + k) % 10 === 0 ? { tags: ['tagged'] } : {} })));
    }
    const bare = new Database(file, { readonly: true });
    const stmt = bare.prepare('SELECT rowid, bm25(recall_fts) AS s FROM recall_fts WHERE recall_fts MATCH ? ORDER BY s LIMIT 10');
    const queries = Array.from({ length: 60 }, (_, i) => {
      const n = 1 + (i % 3);
      const idx = Math.floor((i / 60) ** 2 * 2000);
      return Array.from({ length: n }, (_, k) => g.vocab[idx + k * 7]!).join(i % 4 === 0 ? ' "-' : ' ');
    });
    const ours: number[] = [];
    const base: number[] = [];
    let found = 0;
    for (let rep = 0; rep < 21; rep++) {
      for (const q of queries) {
        let t0 = performance.now();
        const r = await memory.recallOp(actor, { op: 'search', query: q, limit: 10 });
        const a = performance.now() - t0;
        t0 = performance.now();
        const b = stmt.all(toFts5Query(q)!);
        const bt = performance.now() - t0;
        if (rep === 0) {
          found += r.results!.length;
          if (r.results!.length !== b.length) throw new Error(`the two searches disagree on ${q}: ${r.results!.length} vs ${b.length}`);
          continue;
        }
        ours.push(a);
        base.push(bt);
      }
    }
    bare.close();
    const note = `${ENTRIES} entries, ${queries.length} queries × 20, ${found} results in the first round`;
    results.push(result(`recall search p50 (${ENTRIES} entries) vs a bare FTS5 MATCH`, 'ms', median(ours), median(base), 1.5, note));
    results.push(result(`recall search p99 (${ENTRIES} entries) vs a bare FTS5 MATCH`, 'ms', percentile(ours, 99), percentile(base, 99), 1.5, note));

    // (b) and (c) block_edit append with 10k edits in the history
    memory.blocks.create({ owner: actor.owner, label: 'journal', charLimit: 1_000_000 }, 'bench');
    const line = (i: number) => `${i}: ${g.sentence(5)}`;
    for (let i = 0; i < EDITS; i++) await memory.blockEdit(actor, { op: 'append', label: 'journal', content: line(i) }, never);
    const plainDb = new Database(path.join(dir, 'plain.sqlite'));
    plainDb.pragma('journal_mode = WAL');
    plainDb.pragma('synchronous = NORMAL');
    plainDb.exec('CREATE TABLE log (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    const ins = plainDb.prepare('INSERT INTO log (text) VALUES (?)');
    const appendOurs: number[] = [];
    const appendBase: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = line(EDITS + i);
      let t0 = performance.now();
      await memory.blockEdit(actor, { op: 'append', label: 'journal', content: t }, never);
      appendOurs.push(performance.now() - t0);
      t0 = performance.now();
      plainDb.transaction(() => ins.run(t))();
      appendBase.push(performance.now() - t0);
    }
    plainDb.close();
    const p50 = median(appendOurs);
    results.push(
      result(`block_edit append p50 (${EDITS} edits in the history) vs a plain SQLite INSERT`, 'ms', p50, median(appendBase), undefined, `goal: under 1 ms — ${p50 < 1 ? 'met' : 'MISSED'} (${p50.toFixed(3)} ms); p99 ${percentile(appendOurs, 99).toFixed(3)} ms`),
    );
    const text = memory.blocks.view(actor.owner, 'journal').text;
    const stored = memory.blocks.storedBytes(actor.owner, 'journal');
    const plain = Buffer.byteLength(text);
    results.push(
      result(`block stored bytes (${EDITS + 300} edits) vs its plain text`, 'bytes', stored.document + stored.versions, plain, 3, `Loro document ${stored.document} bytes, versions ${stored.versions} bytes, text ${plain} bytes`),
    );
  } finally {
    memory.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  return results;
}
