/**
 * Trials of the registry's writes across processes, too slow for the unit suite:
 *   npx tsx scripts/store-trials.ts paused [trials=60]   a writer frozen (SIGSTOP) mid-PATCH past the stale time
 *   npx tsx scripts/store-trials.ts kills [kills=30]     time from a killed writer's successor being ready to its first write
 *   npx tsx scripts/store-trials.ts race [workers=8] [steps=1000]   concurrency.test.ts at this size
 *   npx tsx scripts/store-trials.ts crash [kills=120]    crash.test.ts with this many SIGKILLs at least
 * Prints a JSON report (race and crash: vitest's output). The unit tests assert the same
 * properties on fewer trials (electron/core/bundles/paused-writer.test.ts, crash.test.ts,
 * concurrency.test.ts, locks.test.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pausedWriterTrials } from '../electron/core/bundles/testing/paused-writer';
import { bundleBody, newId, openStore } from '../electron/core/bundles/testing/fixtures';
import { bundleWorker, startWorker } from '../electron/core/bundles/testing/spawn-worker';

/** Kills a writer mid-stream, starts the next one at once (as an app restarting), and times its first write. */
async function kills(parent: string, n: number, worker: string): Promise<Record<string, unknown>> {
  const dataDir = path.join(parent, 'data');
  const setup = await openStore(dataDir);
  const bundleId = newId();
  await setup.store.putBundle(bundleId, bundleBody({ slug: 'crash' }));
  await setup.store.close();
  const firstWriteMs: number[] = [];
  let lockLeft = 0;
  for (let run = 0; run < n; run++) {
    const w = startWorker({ mode: 'crash', dataDir, bundleId, run, known: [], staleMs: 10_000 }, worker);
    await w.waitFor((l) => l.ready === true, 60_000);
    const ready = performance.now();
    await w.waitFor((l) => 'ack' in l, 60_000);
    firstWriteMs.push(performance.now() - ready);
    await sleep(Math.random() * 60);
    w.child.kill('SIGKILL');
    await w.closed;
    const locks = await fs.readdir(path.join(dataDir, 'locks')).catch(() => [] as string[]);
    if (locks.some((name) => name.endsWith('.lock'))) lockLeft++;
  }
  const sorted = [...firstWriteMs].sort((a, b) => a - b);
  const after = firstWriteMs.slice(1);
  return {
    kills: n,
    killsThatLeftTheLock: lockLeft,
    firstWritesOver1s: after.filter((ms) => ms > 1000).length,
    medianFirstWriteMs: Math.round(sorted[sorted.length >> 1]!),
    maxFirstWriteMs: Math.round(sorted.at(-1)!),
  };
}

/** Runs one unit test file with its sizes raised through the environment; exits with its status. */
function bigger(file: string, env: Record<string, string>): never {
  const r = spawnSync('npx', ['vitest', 'run', file], { stdio: 'inherit', env: { ...process.env, ...env } });
  process.exit(r.status ?? 1);
}

async function main(): Promise<void> {
  const [what = 'paused', count, more] = process.argv.slice(2);
  if (what === 'race') bigger('electron/core/bundles/concurrency.test.ts', { STORE_TRIALS_RACE_WORKERS: count ?? '8', STORE_TRIALS_RACE_STEPS: more ?? '1000' });
  if (what === 'crash') bigger('electron/core/bundles/crash.test.ts', { STORE_TRIALS_CRASH_RUNS: count ?? '120' });
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'store-trials-'));
  try {
    const worker = await bundleWorker(parent);
    const report =
      what === 'kills'
        ? await kills(parent, Number(count ?? 30), worker)
        : await pausedWriterTrials({ parent, trials: Number(count ?? 60), staleMs: 400, worker });
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await fs.rm(parent, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
