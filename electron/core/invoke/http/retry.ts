/**
 * The attempt loop of an HTTP tool, independent of HTTP itself so it can be tested with an
 * injected attempt function, clock, sleep and random source.
 *
 * - Back-off: full jitter, `random() * min(maxDelayMs, baseDelayMs * 2^n)` before retry n+1.
 * - Retries happen only when `retryable` (an idempotent method, or an idempotency key is
 *   sent), only for results `judge` calls retryable (5xx/408/429) and for network errors
 *   (AppError UNAVAILABLE or a per-attempt TIMEOUT), at most `maxRetries` times.
 * - Retry-After (seconds or an HTTP date) is honoured when it is at most `retryAfterCapMs`
 *   and fits in the time left; otherwise the loop stops at once and says why, rather than
 *   waiting an hour.
 * - `totalTimeoutMs` caps everything: each attempt gets the time left, and no back-off is
 *   started that would end past the deadline.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AppError, isAppError } from '../../../../shared/errors';

export const DEFAULT_BASE_DELAY_MS = 250;
export const DEFAULT_MAX_DELAY_MS = 10_000;
/** The longest Retry-After we wait for. */
export const DEFAULT_RETRY_AFTER_CAP_MS = 30_000;
/** No attempt is started with less time than this left. */
export const MIN_ATTEMPT_MS = 50;

/** Why the loop stopped with a result that was not a success. */
export type StopReason =
  | { kind: 'not-retryable' }
  | { kind: 'method-not-idempotent' }
  | { kind: 'retries-exhausted' }
  | { kind: 'retry-after-too-long'; retryAfterMs: number; limitMs: number }
  | { kind: 'out-of-time' };

export interface Verdict {
  retry: boolean;
  /** The Retry-After header of the response, if any. */
  retryAfter?: string | null;
}

export interface RetryOptions<T> {
  /** Whether repeating the request is safe (idempotent method or idempotency key). */
  retryable: boolean;
  maxRetries: number;
  totalTimeoutMs: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  retryAfterCapMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  signal: AbortSignal;
  /** One attempt; `n` counts from 1, `remainingMs` is the time left in total. */
  attempt: (n: number, remainingMs: number) => Promise<T>;
  /** For a completed attempt: success or final (retry false), or worth another try. */
  judge: (result: T) => Verdict;
  /** Told before each wait (for a log line). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export interface RetryResult<T> {
  value: T;
  attempts: number;
  /** Set when the last result was judged retryable but no further attempt was made. */
  stopped?: StopReason;
  /** The Retry-After of the last result, in ms, if it had one. */
  retryAfterMs?: number;
}

/** Full-jitter back-off before retry number `n` (0-based). */
export function backoffDelay(n: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(n, 30));
  return Math.floor(Math.max(0, Math.min(1, random())) * ceiling);
}

/** Retry-After as milliseconds from `nowMs`: delta-seconds or an HTTP date; undefined if absent or malformed. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 1e9) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The statuses worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Errors worth another attempt: network failures and per-attempt time-outs, except those whose
 * answer cannot change (details.permanent: a body encoded three times, one that does not
 * decompress): asking again only costs the server and the CPU again.
 */
export function isRetryableError(e: unknown): boolean {
  if (!isAppError(e) || (e.code !== 'UNAVAILABLE' && e.code !== 'TIMEOUT')) return false;
  const d = e.details;
  return !(d && typeof d === 'object' && (d as { permanent?: unknown }).permanent === true);
}

export async function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}

/** Runs attempts until one is final, the retries or the time run out, or the signal aborts. */
export async function runWithRetries<T>(o: RetryOptions<T>): Promise<RetryResult<T>> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const random = o.random ?? Math.random;
  const base = o.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelay = o.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const cap = o.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS;
  const deadline = now() + o.totalTimeoutMs;

  for (let n = 1; ; n++) {
    throwIfAborted(o.signal);
    const remaining = deadline - now();
    let value: T;
    try {
      value = await o.attempt(n, remaining);
    } catch (e) {
      throwIfAborted(o.signal);
      if (!isRetryableError(e) || !o.retryable || n > o.maxRetries) throw withAttempts(e, n);
      const wait = backoffDelay(n - 1, base, maxDelay, random);
      if (deadline - now() < wait + MIN_ATTEMPT_MS) throw withAttempts(e, n);
      o.onRetry?.({ attempt: n, delayMs: wait, reason: (e as AppError).code });
      await pause(sleep, wait, o.signal);
      continue;
    }
    const verdict = o.judge(value);
    const retryAfterMs = parseRetryAfter(verdict.retryAfter, now());
    const result = (stopped?: StopReason): RetryResult<T> => ({
      value,
      attempts: n,
      ...(stopped ? { stopped } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
    if (!verdict.retry) return result();
    if (!o.retryable) return result({ kind: 'method-not-idempotent' });
    if (n > o.maxRetries) return result({ kind: 'retries-exhausted' });
    const left = deadline - now();
    if (retryAfterMs !== undefined && (retryAfterMs > cap || retryAfterMs + MIN_ATTEMPT_MS > left)) {
      return result({ kind: 'retry-after-too-long', retryAfterMs, limitMs: Math.max(0, Math.min(cap, left - MIN_ATTEMPT_MS)) });
    }
    const wait = retryAfterMs ?? backoffDelay(n - 1, base, maxDelay, random);
    if (wait + MIN_ATTEMPT_MS > left) return result({ kind: 'out-of-time' });
    o.onRetry?.({ attempt: n, delayMs: wait, reason: retryAfterMs !== undefined ? 'Retry-After' : 'back-off' });
    await pause(sleep, wait, o.signal);
  }
}

async function pause(sleep: (ms: number, signal: AbortSignal) => Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (e) {
    throwIfAborted(signal);
    throw e;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new AppError('CANCELLED', 'the call was cancelled');
}

/** The same error with `attempts` in its details (AppErrors keep their code). */
function withAttempts(e: unknown, attempts: number): unknown {
  if (!isAppError(e)) return e;
  const details = e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details : e.details === undefined ? {} : { cause: e.details };
  const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return new AppError(e.code, `${e.message}${suffix}`, { ...details, attempts });
}
