/**
 * Buffer search over a 100 MB buffer (BUFFER_SEARCH_BENCH_MB to change it) vs `grep -c` on
 * the same bytes, each started from this process (our search through the store: a worker
 * reads the file; grep through child_process). The query is rare (about a hundred matching
 * lines spread over the file), so both read everything; ours is asked for up to 10,000
 * matches, so it never stops early. Medians of 7 runs, after one warm-up (the file is in the
 * page cache for both).
 *
 *   (a) substring, case-sensitive: 'NEEDLE' vs grep -c -F                    — target 3
 *   (b) substring, ignoring case: 'needle' vs grep -c -i -F                  — target 3
 *   (c) regex '(NEEDLE|NEEDLF) [a-z]+' (only ASCII can match: latin1 windows) — target 3
 *   (d) regex 'NEEDLE.[a-z]+' (required literal: only lines holding it run)   — target 3
 *   (e) regex '(NEEDLE|NEEDLF).[a-z]+' (neither: windows decoded to UTF-16)   — no target
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileBufferStore } from '../electron/core/routing/buffer-store';
import type { BufferSearchOptions } from '../electron/core/routing/types';
import { grepCount, result, timed, type BenchResult } from './harness';
import { payloadOf } from './route.bench';

const MB = 1024 * 1024;

export async function run(opts: { mb?: number; reps?: number } = {}): Promise<BenchResult[]> {
  const mb = opts.mb ?? Number(process.env.BUFFER_SEARCH_BENCH_MB ?? 100);
  const reps = opts.reps ?? Number(process.env.BUFFER_SEARCH_BENCH_REPS ?? 7);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-buffer-search-bench-'));
  const store = new FileBufferStore({ dataDir: path.join(dir, 'data'), workspaceDir: dir, now: () => new Date() });
  try {
    const payload = payloadOf(mb * MB);
    await store.write('bench', 'big', payload, 'replace', 'bench');
    // The same bytes for grep.
    const file = path.join(dir, 'same-bytes.txt');
    await fs.writeFile(file, payload);
    const size = (Buffer.byteLength(payload) / MB).toFixed(0);

    const cases: { label: string; opts: Omit<BufferSearchOptions, 'signal'>; grep: string[]; target?: number; note?: string }[] = [
      { label: 'substring', opts: { query: 'NEEDLE' }, grep: ['-c', '-F', 'NEEDLE', file] },
      { label: 'substring, ignoring case', opts: { query: 'needle', caseSensitive: false }, grep: ['-c', '-i', '-F', 'needle', file] },
      { label: 'regex, ASCII-only, no required literal', opts: { query: '(NEEDLE|NEEDLF) [a-z]+', regex: true }, grep: ['-c', '-E', '(NEEDLE|NEEDLF) [a-z]+', file] },
      { label: 'regex with a required literal', opts: { query: 'NEEDLE.[a-z]+', regex: true }, grep: ['-c', '-E', 'NEEDLE.[a-z]+', file] },
      {
        label: 'regex, no required literal, may match non-ASCII',
        opts: { query: '(NEEDLE|NEEDLF).[a-z]+', regex: true },
        grep: ['-c', '-E', '(NEEDLE|NEEDLF).[a-z]+', file],
        note: "no target: with '|' there is no required literal, and '.' can match a non-ASCII character, so every window (each holds one here) is decoded to UTF-16 and searched whole",
      },
    ];
    const results: BenchResult[] = [];
    for (const c of cases) {
      const ours = await store.search('bench', 'big', { ...c.opts, maxMatches: 10_000 });
      const lines = new Set(ours.matches.map((m) => m.line)).size;
      let grepped: number;
      try {
        grepped = await grepCount(c.grep);
      } catch (e) {
        results.push(result(`buffer search ${size} MB (${c.label}) vs grep -c`, 'ms', NaN, NaN, 3, `grep is not available here: ${(e as Error).message}`));
        continue;
      }
      if (lines !== grepped) throw new Error(`${c.label}: our search found ${lines} lines, grep -c ${grepped}`);
      const oursMs = await timed(reps, () => store.search('bench', 'big', { ...c.opts, maxMatches: 10_000 }));
      const grepMs = await timed(reps, () => grepCount(c.grep));
      const about = `${grepped} matching lines; ours returns each match with its line, column and text`;
      results.push(result(`buffer search ${size} MB (${c.label}) vs grep -c`, 'ms', oursMs, grepMs, c.note ? undefined : 3, c.note ? `${about}; ${c.note}` : about));
    }
    return results;
  } finally {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
