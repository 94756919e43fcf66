/**
 * Paused-writer trials, shared by paused-writer.test.ts (a few) and scripts/store-trials.ts
 * (sixty). Host A, a real child process, PATCHes one tool over and over. Each trial freezes
 * it with SIGSTOP at a random moment; host B (this process) then deletes the tool and
 * creates it again (waiting, if A was frozen holding the lock, until the lock is stale and
 * taking it over); then A is resumed. A violation: once A's write in flight at the pause has
 * ended, the tool on disk is not B's (A wrote its old record back over B's delete and PUT).
 * A's write that lost its lock is either refused or run again under a fresh lock, on B's tool.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toolFileName } from '../layout';
import { bundleBody, localToolBody, newId, openStore } from './fixtures';
import { startWorker } from './spawn-worker';

export interface PausedWriterReport {
  trials: number;
  /** Trials in which A was frozen between the start and the end of a PATCH. */
  pausedMidWrite: number;
  /** B had to take A's lock over as stale (A held it when frozen). */
  staleTakeovers: number;
  /** A's write in flight at the pause failed on resuming (lost its lock, and its retries too). */
  resumedWritesRefused: number;
  /**
   * A's write in flight at the pause lost its lock and was run again under a fresh one: it
   * read B's tool and changed that (never A's old record written back).
   */
  resumedWritesRetried: number;
  violations: number;
  details: string[];
}

export async function pausedWriterTrials(opts: { parent: string; trials: number; staleMs: number; worker?: string }): Promise<PausedWriterReport> {
  const dataDir = path.join(opts.parent, 'data');
  const b = await openStore(dataDir, { lock: { staleMs: opts.staleMs, waitMs: 10 * opts.staleMs + 10_000 } });
  const bundleId = newId();
  await b.store.putBundle(bundleId, bundleBody());
  // A big file widens the window a pause can fall into.
  const big = localToolBody({ argSchema: { type: 'object', properties: { text: { type: 'string', description: 'x'.repeat(100_000) } } } });
  await b.store.putTool(bundleId, 'shared', '1', big);
  const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('shared', '1'));
  const report: PausedWriterReport = { trials: 0, pausedMidWrite: 0, staleTakeovers: 0, resumedWritesRefused: 0, resumedWritesRetried: 0, violations: 0, details: [] };

  const a = startWorker({ mode: 'patch', dataDir, bundleId, slug: 'shared', version: '1', staleMs: opts.staleMs }, opts.worker);
  try {
    await a.waitFor((l) => l.ready === true);
    for (let trial = 0; trial < opts.trials; trial++) {
      // Let A get going again, then freeze it at a random moment.
      const seen = a.lines.length;
      await a.waitFor((l) => a.lines.indexOf(l) >= seen && 'start' in l);
      await sleep(Math.random() * 40);
      a.child.kill('SIGSTOP');
      // Let the pipe deliver what A printed before it stopped.
      await sleep(20);
      const last = a.lines.at(-1)!;
      const midWrite = 'start' in last;
      const stale = b.store.lockActivity().takeovers.stale;
      await b.store.deleteTool(bundleId, 'shared', '1');
      const bId = (await b.store.putTool(bundleId, 'shared', '1', big)).id;
      report.staleTakeovers += b.store.lockActivity().takeovers.stale - stale;
      const mark = a.lines.length;
      const retriesBefore = Math.max(0, ...a.lines.map((l) => (typeof l.lostRetries === 'number' ? l.lostRetries : 0)));
      a.child.kill('SIGCONT');
      // A's write in flight at the pause ends (acknowledged or refused) ...
      const ended = midWrite ? await a.waitFor((l) => a.lines.indexOf(l) >= mark && l.seq === last.seq && !('start' in l)) : undefined;
      // ... and one more of A's writes runs on top of B's tool.
      const seq = ((ended ?? last).seq as number) + 1;
      await a.waitFor((l) => l.seq === seq && !('start' in l));
      const onDisk = JSON.parse(await fs.readFile(file, 'utf8')) as { id: string };
      report.trials++;
      if (midWrite) report.pausedMidWrite++;
      if (ended && 'error' in ended) report.resumedWritesRefused++;
      else if (ended && typeof ended.lostRetries === 'number' && ended.lostRetries > retriesBefore) report.resumedWritesRetried++;
      if (onDisk.id !== bId) {
        report.violations++;
        report.details.push(`trial ${trial}: the file holds ${onDisk.id}, B's tool is ${bId}; A's write at the pause: ${JSON.stringify(ended ?? last)}`);
      }
    }
  } finally {
    a.child.kill('SIGKILL');
    await a.closed;
    await b.store.close();
  }
  return report;
}
