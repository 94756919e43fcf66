/**
 * A host frozen mid-write (SIGSTOP: a laptop asleep, a debugger) past the lock's stale time
 * must not, once resumed, write over what another host did meanwhile. A few trials with a
 * real child process here; scripts/store-trials.ts runs sixty. See test-helpers/paused-writer.ts.
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { pausedWriterTrials } from './test-helpers/paused-writer';
import { bundleWorker } from './test-helpers/spawn-worker';

const tempDir = useTempDirs();

const TRIALS = 8;

describe('a writer paused past the stale time', () => {
  it(`${TRIALS} SIGSTOP trials: the resumed writer never undoes another host's delete and PUT`, { timeout: 120_000 }, async () => {
    const worker = await bundleWorker(await tempDir());
    const report = await pausedWriterTrials({ parent: await tempDir(), trials: TRIALS, staleMs: 400, worker });
    console.log('paused writer:', JSON.stringify(report));
    expect(report.details).toEqual([]);
    expect(report.violations).toBe(0);
    expect(report.trials).toBe(TRIALS);
    // The pauses did fall inside writes, and those writes lost their lock on resuming: each was
    // run again under a fresh lock (on B's tool) or, its retries used up, refused.
    expect(report.pausedMidWrite).toBeGreaterThan(0);
    expect(report.resumedWritesRetried + report.resumedWritesRefused).toBeGreaterThan(0);
  });
});
