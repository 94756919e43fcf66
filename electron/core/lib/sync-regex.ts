/**
 * A regular expression test that a synchronous caller can afford: JavaScript's own RegExp,
 * run in a worker thread (./sync-regex-worker.ts) while the calling thread waits on shared
 * memory (Atomics.wait) for at most a time budget. ajv calls a pattern's `test` inside its
 * synchronous validate function, so a promise-based worker (./safe-regex.ts) cannot serve it.
 *
 * When the budget runs out the worker is terminated, which stops the match wherever it is,
 * and the answer is `timedOut`; the next test starts a fresh worker. The budget counts from
 * the moment the worker picks the job up, so starting a worker (tens of milliseconds, more on
 * a busy machine) is not charged to the pattern.
 *
 * The calling thread is blocked for the whole wait: this is for the patterns only JavaScript's
 * engine can run (lookaround, backreferences); everything else runs on re2js (./schema-regexp.ts).
 */
import fs from 'node:fs';
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { DONE, STARTED, type SyncRegexInit, type SyncRegexJob, type SyncRegexReply } from './sync-regex-protocol';
import { bundledWorkerPath, isSourceUrl, startWorker } from './worker-entry';

/** How long a new worker may take to pick up its first job before the test fails. */
const START_LIMIT_MS = 15_000;
const WORKER_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

export type SyncTestResult =
  | { kind: 'done'; matched: boolean; ranMs: number }
  | { kind: 'timedOut'; ranMs: number }
  | { kind: 'failed'; message: string };

interface Live {
  worker: Worker;
  replies: MessagePort;
  state: Int32Array;
}

/** Waits until slot `index` holds `seq`, at most `ms`; whether it did. */
function waitFor(state: Int32Array, index: number, seq: number, ms: number): boolean {
  const end = performance.now() + ms;
  for (;;) {
    const seen = Atomics.load(state, index);
    if (seen === seq) return true;
    const left = end - performance.now();
    if (left <= 0) return false;
    Atomics.wait(state, index, seen, left);
  }
}

export class SyncRegexRunner {
  private live: Live | undefined;
  private seq = 0;
  /** Workers started so far (a timeout replaces one): for tests and diagnostics. */
  started = 0;

  /** Tests `input` against `pattern` (already known to compile), waiting at most budgetMs for the match itself. */
  test(pattern: string, flags: string, input: string, budgetMs: number, re2?: { whole: boolean }): SyncTestResult {
    let live: Live;
    try {
      live = this.live ??= this.start();
    } catch (e) {
      return { kind: 'failed', message: `the pattern check could not start: ${(e as Error).message}` };
    }
    this.seq = this.seq >= 0x7ffffffe ? 1 : this.seq + 1;
    const seq = this.seq;
    const job: SyncRegexJob = { seq, pattern, flags, input, ...(re2 ? { engine: 're2' as const, whole: re2.whole } : {}) };
    live.worker.postMessage(job);
    if (!waitFor(live.state, STARTED, seq, START_LIMIT_MS)) {
      this.stop(live);
      return { kind: 'failed', message: `the pattern check did not start within ${START_LIMIT_MS / 1000} s` };
    }
    const t0 = performance.now();
    const finished = waitFor(live.state, DONE, seq, Math.max(1, budgetMs));
    const ranMs = performance.now() - t0;
    if (!finished) {
      this.stop(live);
      return { kind: 'timedOut', ranMs };
    }
    for (;;) {
      const got = receiveMessageOnPort(live.replies) as { message: SyncRegexReply } | undefined;
      if (!got) {
        this.stop(live);
        return { kind: 'failed', message: 'the pattern check answered nothing' };
      }
      const reply = got.message;
      if (reply.seq !== seq) continue;
      return reply.ok ? { kind: 'done', matched: reply.matched, ranMs } : { kind: 'failed', message: reply.message };
    }
  }

  /** Ends the worker, if one runs. */
  close(): Promise<void> {
    const live = this.live;
    return live ? this.stop(live) : Promise.resolve();
  }

  private start(): Live {
    const url = import.meta.url;
    // A missing bundled worker would only show as a start timeout: name the file instead.
    if (!isSourceUrl(url)) {
      const file = bundledWorkerPath(url, 'sync-regex-worker');
      if (!fs.existsSync(file)) throw new Error(`${file} is missing`);
    }
    const worker = startWorker(url, 'sync-regex-worker', WORKER_LIMITS);
    const shared = new SharedArrayBuffer(8);
    const { port1, port2 } = new MessageChannel();
    const init: SyncRegexInit = { init: { shared, port: port2 } };
    worker.postMessage(init, [port2]);
    // Neither keeps the process alive; a worker that dies between tests is forgotten.
    worker.unref();
    port1.unref();
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.live?.worker === worker) this.live = undefined;
    });
    this.started++;
    return { worker, replies: port1, state: new Int32Array(shared) };
  }

  private stop(live: Live): Promise<void> {
    if (this.live === live) this.live = undefined;
    live.replies.close();
    return live.worker.terminate().then(() => undefined);
  }
}
