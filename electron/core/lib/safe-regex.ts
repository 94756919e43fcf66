/**
 * Regular expressions from a model or a user, run so that a pattern that backtracks forever
 * cannot hang the process.
 *
 * JavaScript's RegExp engine backtracks: `(a+)+$` against 'aaaa…ab' takes exponential time,
 * and a running match cannot be interrupted from the same thread. So every search with a
 * caller's pattern runs in a worker thread (./safe-regex-worker.ts, started through
 * ./worker-entry.ts: the build emits it beside the bundle) under a time budget: when the budget runs out the
 * worker is terminated, which stops the match wherever it is, and the call fails with
 * TIMEOUT naming the likely cause. The worker also has a heap limit, so a pattern that
 * makes huge results cannot exhaust the main process's memory.
 *
 * The pattern is compiled on the calling thread first (compiling is not backtracking), so a
 * syntax error is a VALIDATION_FAILED with the engine's message, before any worker starts.
 */
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import { REGEX_TIME_LIMIT_DEFAULT_MS } from '../../../shared/model/settings';
import { q } from './args';
import type { RegexReply } from './safe-regex-worker';
import { startWorker } from './worker-entry';
import { postForReply } from './worker-reply';

/** Default time budget of one call's regex work (all batches together); the app passes Settings' regexTimeLimitMs through the tool context. */
export const REGEX_TIME_BUDGET_MS = REGEX_TIME_LIMIT_DEFAULT_MS;
export const PATTERN_MAX_LENGTH = 1000;

export interface GrepFile {
  path: string;
  text: string;
}
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export type RegexJob =
  | { kind: 'grep'; pattern: string; flags: string; files: GrepFile[]; maxMatches: number; maxLineChars: number }
  | { kind: 'extract'; pattern: string; flags: string; text: string; group: number | string; maxMatches: number; maxChars: number };

export interface GrepResult {
  matches: GrepMatch[];
  /** A further match exists beyond maxMatches. */
  more: boolean;
}
export interface ExtractResult {
  matches: string[];
  truncated: boolean;
}

/** Escapes a literal so it matches itself: a literal search runs the same (linear) way. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Compiles on this thread to report syntax errors; throws VALIDATION_FAILED. */
export function compileRegex(pattern: string, flags: string): RegExp {
  if (pattern.length > PATTERN_MAX_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `the pattern may be at most ${PATTERN_MAX_LENGTH} characters`, { field: 'pattern' });
  }
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', `invalid regular expression ${q(pattern)}: ${(e as Error).message}`, { field: 'pattern' });
  }
}

const WORKER_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64, stackSizeMb: 4 };

export interface RegexRunOptions {
  /** The budget for all jobs run through one session. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * One worker for the jobs of one call, with one deadline for all of them. Always close it
 * (session() does).
 */
export class RegexSession {
  private worker: Worker | undefined;
  private readonly deadline: number;
  private readonly budgetMs: number;

  constructor(private readonly opts: RegexRunOptions = {}) {
    this.budgetMs = Math.max(1, opts.timeoutMs ?? REGEX_TIME_BUDGET_MS);
    this.deadline = Date.now() + this.budgetMs;
  }

  run(job: Extract<RegexJob, { kind: 'grep' }>): Promise<GrepResult>;
  run(job: Extract<RegexJob, { kind: 'extract' }>): Promise<ExtractResult>;
  run(job: RegexJob): Promise<unknown> {
    if (this.opts.signal?.aborted) return Promise.reject(new AppError('CANCELLED', 'the call was cancelled'));
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(this.timeoutError(job.pattern));
    let worker: Worker;
    try {
      worker = this.worker ??= startWorker(import.meta.url, 'safe-regex-worker', WORKER_LIMITS);
    } catch (e) {
      return Promise.reject(new AppError('INTERNAL', `the regular expression search could not start: ${(e as Error).message}`));
    }
    return postForReply<RegexReply>(worker, job, { timeoutMs: remaining, ...(this.opts.signal ? { signal: this.opts.signal } : {}) }).then((end) => {
      if (end.kind === 'reply') {
        if (end.reply.ok) return end.reply.value;
        throw new AppError('VALIDATION_FAILED', `the regular expression failed: ${end.reply.message}`, { field: 'pattern' });
      }
      // Whatever else ended the job, this worker is not used again.
      this.worker = undefined;
      void worker.terminate();
      if (end.kind === 'abort') throw new AppError('CANCELLED', 'the call was cancelled');
      if (end.kind === 'timeout') throw this.timeoutError(job.pattern);
      if (end.kind === 'exit') throw new AppError('INTERNAL', 'the regular expression search stopped unexpectedly');
      throw end.outOfMemory
        ? new AppError('PAYLOAD_TOO_LARGE', 'the regular expression search ran out of memory: search less text or ask for fewer matches')
        : new AppError('INTERNAL', `the regular expression search failed: ${end.error.message}`);
    });
  }

  private timeoutError(pattern: string): AppError {
    return new AppError(
      'TIMEOUT',
      `the regular expression ${q(pattern)} ran longer than ${this.budgetMs} ms and was stopped: it probably backtracks catastrophically ` +
        '(nested quantifiers such as (a+)+ or (\\w*)* are the usual cause); simplify the pattern or search less text',
      { field: 'pattern', timeoutMs: this.budgetMs },
    );
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

/** Runs `body` with a session and always terminates its worker. */
export async function withRegexSession<T>(opts: RegexRunOptions, body: (s: RegexSession) => Promise<T>): Promise<T> {
  const s = new RegexSession(opts);
  try {
    return await body(s);
  } finally {
    await s.close();
  }
}
