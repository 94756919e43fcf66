/**
 * Searching a buffer's file: substring or regular expression, line by line, with context.
 *
 * The search runs in a worker thread (./buffer-search-worker.ts, started through
 * ../lib/worker-entry.ts: the build emits it beside the bundle) that reads the file itself
 * in 4 MiB windows: the main thread never holds the buffer, and a pattern that
 * backtracks forever (`(a+)+$` on a long 'aaaa…b' line) is stopped by terminating the
 * worker when the time budget runs out (TIMEOUT) or the caller's signal fires (CANCELLED).
 * The worker reads through a descriptor the store opened with the metadata (worker threads
 * share the process's descriptors), never by path, so a buffer replaced meanwhile cannot
 * pair new bytes with the old index. A search settles only once its worker is done with the
 * descriptor (answered, or terminated and exited): the caller may close it then.
 *
 * - A case-sensitive substring is searched as bytes (Buffer.indexOf on the UTF-8 of the
 *   query): nothing is decoded except around matches. Other searches decode windows cut at
 *   line ends and run one global, multiline RegExp over each (a case-insensitive substring
 *   is an escaped one); a window is read as latin1 (a copy, no decoding) when it is ASCII or
 *   the pattern can only match ASCII (isAsciiPattern). The worker: ./buffer-search-worker.ts.
 * - Line numbers come from the store's sparse index (checkpoints of [char, byte, line]
 *   every 64 KiB or so): the newlines between the nearest checkpoint and a match are counted,
 *   never all the newlines of the file.
 * - Lines end at "\n" (a "\r" before it is dropped from the text shown); a trailing
 *   newline does not make an extra line. Each line shown is cut to maxLineChars with '…'.
 *
 * One idle worker is kept (unreferenced, so it never keeps the process alive) for the next
 * search and ended after a short idle time.
 */
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import type { BufferSearchResult } from '../../../shared/model/routing';
import { q } from '../lib/args';
import { startWorker } from '../lib/worker-entry';
import { postForReply } from '../lib/worker-reply';
import type { BufferSearchReply } from './buffer-search-worker';
import { BUFFER_SEARCH_TIME_BUDGET_MS } from './limits';

export interface FileSearchJob {
  /** A descriptor on the buffer's content file (open until the search settles), and how many of its bytes to search (the indexed size). */
  fd: number;
  bytes: number;
  totalChars: number;
  totalLines: number;
  /** Flat [char, byte, line, ...] checkpoints, ascending, the first being [0, 0, 1]. */
  checkpoints: number[];
  /** The query as given (searched as bytes when literal and case-sensitive; named in messages). */
  query: string;
  /** The RegExp source to run otherwise: the query, or the query escaped when it is literal. */
  pattern: string;
  /** isAsciiPattern(pattern): it may run over the bytes as latin1 text, with the same matches. */
  asciiPattern: boolean;
  /** For a case-sensitive regex, requiredLiteral(pattern): only lines holding it are searched. */
  literal?: string;
  regex: boolean;
  caseSensitive: boolean;
  contextLines: number;
  maxMatches: number;
  maxLineChars: number;
  /** Bytes read at a time (default 4 MiB; tests make it small to cross window edges often). */
  windowBytes?: number;
}

/**
 * Whether every part of a pattern can only match ASCII characters (no '.', no negated class,
 * no \D \W \S \s, no \u \x \c \p \k escapes, only ASCII text). Such a pattern finds the
 * same matches in UTF-8 bytes read as latin1 (one character per byte, so decoding is a copy
 * and indexes are byte offsets) as in the decoded text: a multi-byte character becomes bytes
 * >= 0x80, which fail every ASCII part just as the character does, also ignoring case (a
 * non-ASCII character never folds to an ASCII one without the u flag). Only empty matches
 * could land inside a character; the worker skips those.
 */
export function isAsciiPattern(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c.charCodeAt(0) > 0x7f) return false;
    if (c === '\\') {
      const n = pattern[++i];
      if (n === undefined || /[DWSsuxcpPk0]/.test(n)) return false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      if (pattern[i + 1] === '^') return false;
      inClass = true;
    } else if (c === '.') return false;
  }
  return true;
}

/** Escapes that may match a line break, or that this reader does not look into. */
const OPAQUE_ESCAPE = /[sSWDnrxuc0pPk]/;

const isHighSurrogate = (u: number): boolean => u >= 0xd800 && u <= 0xdbff;
const isLowSurrogate = (u: number): boolean => u >= 0xdc00 && u <= 0xdfff;

/**
 * A literal every match of `pattern` contains (3 characters at least), when the pattern can
 * never match a line break and has no alternation; null otherwise. The search then looks for
 * the literal as bytes and runs the pattern only on the lines that hold it: for such a
 * pattern, matching line by line finds exactly what matching the whole text finds.
 *
 * Conservative by design: any '|', a negated class, \s \S \W \D \n \r \x \u \c \p \k
 * or an octal-looking escape, or a control character in a class gives null. Only literal
 * text outside groups counts; a character followed by a quantifier is not required.
 */
export function requiredLiteral(pattern: string): string | null {
  if (pattern.includes('|')) return null;
  let depth = 0;
  let run = '';
  let best = '';
  const end = () => {
    // Never a lone surrogate at either end: as UTF-8 bytes it would match nothing.
    if (isHighSurrogate(run.charCodeAt(run.length - 1))) run = run.slice(0, -1);
    if (isLowSurrogate(run.charCodeAt(0))) run = run.slice(1);
    if (run.length > best.length) best = run;
    run = '';
  };
  // A quantifier applies to the character before it: that whole character leaves the literal
  // (both halves of a surrogate pair, whether the pattern reads it as one code point or two).
  const dropLast = () => {
    run = run.slice(0, -1);
    if (isHighSurrogate(run.charCodeAt(run.length - 1))) run = run.slice(0, -1);
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[++i];
      if (n === undefined || OPAQUE_ESCAPE.test(n)) return null;
      if (/[1-9]/.test(n)) {
        if (/[0-9]/.test(pattern[i + 1] ?? '')) return null;
        end();
      } else if (/[A-Za-z0-9]/.test(n)) end();
      else if (depth === 0) run += n;
      continue;
    }
    if (c === '[') {
      if (pattern[i + 1] === '^') return null;
      let j = i + 1;
      for (; j < pattern.length && pattern[j] !== ']'; j++) {
        if (pattern[j] === '\\') {
          const n = pattern[++j] ?? '';
          if (n !== 'd' && n !== 'w' && /[A-Za-z0-9]/.test(n)) return null;
        } else if (pattern.charCodeAt(j) < 0x20) return null;
      }
      i = j;
      end();
      continue;
    }
    if (c === '{') {
      const q = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i));
      if (q) {
        dropLast();
        i += q[0].length - 1;
      }
      end();
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      dropLast();
      end();
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if ('()^$.}]'.includes(c) || depth > 0) {
      end();
      continue;
    }
    run += c;
  }
  end();
  return best.length >= 3 ? best : null;
}

const WORKER_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 64, stackSizeMb: 4 };

export interface BufferSearcherOptions {
  /** Time budget of one search, or where to read it when each search starts (Settings' regexTimeLimitMs); default BUFFER_SEARCH_TIME_BUDGET_MS. */
  timeoutMs?: number | (() => number);
  /** How long an idle worker is kept for the next search. */
  idleMs?: number;
}

/** Runs file searches in workers; see the file comment. Close it when the store closes. */
export class BufferSearcher {
  private idle: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Worker>();
  private closed = false;

  constructor(private readonly opts: BufferSearcherOptions = {}) {}

  search(job: FileSearchJob, signal?: AbortSignal): Promise<BufferSearchResult> {
    if (signal?.aborted) return Promise.reject(new AppError('CANCELLED', 'the search was cancelled'));
    if (this.closed) return Promise.reject(new AppError('UNAVAILABLE', 'the buffer store is closed'));
    const t = this.opts.timeoutMs;
    const budget = Math.max(1, (typeof t === 'function' ? t() : t) ?? BUFFER_SEARCH_TIME_BUDGET_MS);
    let worker: Worker;
    try {
      worker = this.take();
    } catch (e) {
      return Promise.reject(new AppError('INTERNAL', `the search could not start: ${(e as Error).message}`));
    }
    this.running.add(worker);
    return postForReply<BufferSearchReply>(worker, job, { timeoutMs: budget, ...(signal ? { signal } : {}) }).then(async (end) => {
      this.running.delete(worker);
      if (end.kind === 'reply') {
        this.release(worker);
        if (end.reply.ok) return end.reply.value;
        if (end.reply.code === 'ECHANGED') throw new AppError('CONFLICT', 'the buffer changed during the search, search again');
        throw new AppError('VALIDATION_FAILED', `the search failed: ${end.reply.message}`, { field: 'query' });
      }
      // Settled once the worker has stopped: it never reads the descriptor after the caller closes it.
      await worker.terminate().catch(() => undefined);
      if (end.kind === 'abort') throw new AppError('CANCELLED', 'the search was cancelled');
      if (end.kind === 'exit') throw new AppError('INTERNAL', 'the search stopped unexpectedly');
      if (end.kind === 'timeout') {
        throw new AppError(
          'TIMEOUT',
          job.regex
            ? `the regular expression ${q(job.query)} ran longer than ${budget} ms and was stopped: it probably backtracks catastrophically ` +
                '(nested quantifiers such as (a+)+ or (\\w*)* are the usual cause); simplify the pattern'
            : `the search for ${q(job.query)} ran longer than ${budget} ms and was stopped`,
          { field: 'query', timeoutMs: budget },
        );
      }
      throw end.outOfMemory
        ? new AppError('PAYLOAD_TOO_LARGE', 'the search ran out of memory: the buffer holds a line too long to search with a regular expression')
        : new AppError('INTERNAL', `the search failed: ${end.error.message}`);
    });
  }

  private take(): Worker {
    const w = this.idle;
    if (w) {
      this.idle = undefined;
      clearTimeout(this.idleTimer);
      w.off('exit', this.onIdleExit);
      w.ref();
      return w;
    }
    return startWorker(import.meta.url, 'buffer-search-worker', WORKER_LIMITS);
  }

  private readonly onIdleExit = () => {
    this.idle = undefined;
    clearTimeout(this.idleTimer);
  };

  private release(w: Worker): void {
    if (this.closed || this.idle) {
      void w.terminate();
      return;
    }
    this.idle = w;
    w.unref();
    w.once('exit', this.onIdleExit);
    this.idleTimer = setTimeout(() => {
      if (this.idle === w) this.idle = undefined;
      void w.terminate();
    }, this.opts.idleMs ?? 30_000);
    this.idleTimer.unref();
  }

  /** Ends every worker (running searches fail with INTERNAL). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const all = [...this.running, ...(this.idle ? [this.idle] : [])];
    this.idle = undefined;
    await Promise.all(all.map((w) => w.terminate()));
  }
}
