/**
 * A host frozen mid-write (SIGSTOP: a laptop asleep, a debugger) past the lock's stale time
 * must not, once resumed, write over what another host did meanwhile. A few trials with a
 * real child process here; scripts/store-trials.ts runs sixty. See testing/paused-writer.ts.
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { pausedWriterTrials } from './testing/paused-writer';
import { bundleWorker } from './testing/spawn-worker';

const tempDir = useTempDirs();

const TRIALS = 8;

describe('a writer paused past the stale time', () => {
  it(`${TRIALS} SIGSTOP trials (more while no pause caught the writer holding its lock): the resumed writer never undoes another host's delete and PUT`, { timeout: 300_000 }, async () => {
    const worker = await bundleWorker(await tempDir());
    // Where a pause falls is chance: on a busy machine a batch may never catch the writer holding
    // its lock. Another batch runs then (three at most), so the check below is about the code.
    const reports = [];
    for (let batch = 0; batch < 3; batch++) {
      const report = await pausedWriterTrials({ parent: await tempDir(), trials: TRIALS, staleMs: 400, worker });
      console.log('paused writer:', JSON.stringify(report));
      reports.push(report);
      expect(report.details).toEqual([]);
      expect(report.violations).toBe(0);
      expect(report.trials).toBe(TRIALS);
      if (report.staleTakeovers > 0 && report.resumedWritesRetried + report.resumedWritesRefused > 0) break;
    }
    // The pauses did fall inside writes holding the lock, and those writes lost it on resuming:
    // each was run again under a fresh lock (on B's tool) or refused (B had written its file).
    const last = reports.at(-1)!;
    expect(last.pausedMidWrite).toBeGreaterThan(0);
    expect(last.staleTakeovers).toBeGreaterThan(0);
    expect(last.resumedWritesRetried + last.resumedWritesRefused).toBeGreaterThan(0);
  });
});
