/**
 * What went wrong talking to a provider, as an AppError a user can act on. Both client
 * libraries (openai, @anthropic-ai/sdk) throw the same family of errors (APIError with a
 * status and headers, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError);
 * a stream that breaks after the response started throws whatever fetch or JSON.parse threw.
 *
 * A key never appears in a message or in details: messages are built from the status and
 * the base URL, and any text the provider sent back is passed through `redact` (every
 * stored secret value) and cut to a sentence.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AppError } from '../../../../shared/errors';

export interface ErrorContext {
  baseUrl: string;
  /** Aborted: the error is a cancellation, whatever it looks like. */
  signal?: AbortSignal;
  /** Removes secret values from text the provider sent back. */
  redact: (text: string) => string;
  /** What was being done, for the rare message that needs it. */
  during?: 'connect' | 'stream';
}

const PROVIDER_TEXT_MAX = 300;

export function cancelled(): AppError {
  return new AppError('CANCELLED', 'stopped: the model call was cancelled');
}

export function streamEndedEarly(baseUrl: string, detail = 'the connection closed before the reply was complete'): AppError {
  return new AppError('UNAVAILABLE', `the provider's stream ended early (${detail}); try again`, { baseUrl, reason: 'stream-ended' });
}

export function streamInvalid(baseUrl: string, detail: string): AppError {
  return new AppError('VALIDATION_FAILED', `the provider's stream was not valid (${detail}); is ${baseUrl} an OpenAI-compatible or Anthropic endpoint?`, {
    baseUrl,
    reason: 'stream-invalid',
  });
}

function isInstance(e: unknown, name: 'APIUserAbortError' | 'APIConnectionTimeoutError' | 'APIConnectionError' | 'APIError'): boolean {
  return e instanceof OpenAI[name] || e instanceof Anthropic[name];
}

/** The text the provider sent back (its error message), redacted and short. */
function providerText(e: unknown, redact: (t: string) => string): string | undefined {
  const err = (e as { error?: unknown }).error;
  let text: unknown;
  if (err && typeof err === 'object') {
    const o = err as { message?: unknown; error?: { message?: unknown } };
    text = typeof o.message === 'string' ? o.message : typeof o.error?.message === 'string' ? o.error.message : undefined;
  }
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const one = redact(text.replace(/\s+/g, ' ').trim());
  return one.length > PROVIDER_TEXT_MAX ? `${one.slice(0, PROVIDER_TEXT_MAX)}…` : one;
}

function causeCode(e: unknown): string | undefined {
  let c: unknown = e;
  for (let i = 0; i < 5 && c && typeof c === 'object'; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

function retryAfter(headers: unknown): string | undefined {
  if (!headers || typeof (headers as Headers).get !== 'function') return undefined;
  const v = (headers as Headers).get('retry-after') ?? (headers as Headers).get('retry-after-ms');
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return `${Math.ceil(secs)} s`;
  return v.length <= 64 ? v : undefined;
}

/** Any failure of a provider call, as an AppError (an AppError passes through). */
export function providerError(e: unknown, ctx: ErrorContext): AppError {
  if (ctx.signal?.aborted || isInstance(e, 'APIUserAbortError')) return cancelled();
  if (e instanceof AppError) return e;
  const { baseUrl } = ctx;

  if (isInstance(e, 'APIConnectionTimeoutError')) {
    return new AppError('TIMEOUT', `${baseUrl} did not answer in time: is the server overloaded or the model still loading?`, { baseUrl });
  }
  if (isInstance(e, 'APIConnectionError')) {
    const code = causeCode(e);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new AppError('UNAVAILABLE', `cannot reach ${baseUrl}: the host name does not resolve (${code}); check the base URL`, { baseUrl, errno: code });
    }
    return new AppError('UNAVAILABLE', `cannot reach ${baseUrl}: is the server running?${code ? ` (${code})` : ''}`, { baseUrl, errno: code });
  }
  if (isInstance(e, 'APIError')) {
    const { status, headers } = e as { status?: number; headers?: unknown };
    const said = providerText(e, ctx.redact);
    if (status === undefined) {
      // An error event inside the stream.
      return new AppError('UNAVAILABLE', `the provider reported an error mid-stream${said ? `: ${said}` : ''}`, { baseUrl, reason: 'stream-error' });
    }
    if (status === 401 || status === 403) {
      // The provider's own text is left out: some echo part of the key back.
      return new AppError('UNAUTHORIZED', `the provider refused the key (${status}): check it in Settings`, { baseUrl, status });
    }
    if (status === 429) {
      const wait = retryAfter(headers);
      return new AppError('RATE_LIMITED', `the provider is rate limiting requests (429)${wait ? `: retry after ${wait}` : ': wait a moment and try again'}`, {
        baseUrl,
        status,
        ...(wait ? { retryAfter: wait } : {}),
      });
    }
    if (status === 404) {
      return new AppError('NOT_FOUND', `the provider answered 404${said ? ` (${said})` : ''}: check the base URL (it usually ends in /v1) and the model name`, { baseUrl, status });
    }
    if (status === 408 || status === 504) {
      return new AppError('TIMEOUT', `the provider timed out (${status})${said ? `: ${said}` : ''}; try again`, { baseUrl, status });
    }
    if (status >= 500) {
      return new AppError('UNAVAILABLE', `the provider failed (${status})${said ? `: ${said}` : ''}; try again later`, { baseUrl, status });
    }
    return new AppError('VALIDATION_FAILED', `the provider refused the request (${status})${said ? `: ${said}` : ''}`, { baseUrl, status });
  }
  if (e instanceof SyntaxError) return streamInvalid(baseUrl, 'a line of it is not JSON');
  const msg = e instanceof Error ? ctx.redact(e.message) : 'unknown error';
  if (ctx.during === 'stream') return streamEndedEarly(baseUrl, `${msg}${causeCode(e) ? `, ${causeCode(e)}` : ''}`);
  return new AppError('UNAVAILABLE', `talking to ${baseUrl} failed: ${msg}`, { baseUrl });
}
