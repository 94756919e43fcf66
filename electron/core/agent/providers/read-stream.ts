/**
 * Reads a model's streamed reply the same way for every client library: opens it (a
 * failure there is a connect error), hands each event to `onEvent` under the idle timer,
 * and maps how it ended: Stop -> CANCELLED, silence -> the idle error, a library error ->
 * the provider's error, and a stream with no event at all -> "not valid". Answers how many
 * events arrived; what they mean is the caller's business.
 */
import { cancelled, providerError, streamInvalid } from './errors';
import { IdleTimer } from './idle-timer';

export interface StreamReadOptions {
  baseUrl: string;
  signal: AbortSignal;
  redact: (text: string) => string;
  idleMs: number;
  /** For the "no event arrived" error: which API was expected. */
  api: string;
}

export async function readStream<T>(
  open: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
  onEvent: (event: T) => void,
  opts: StreamReadOptions,
): Promise<number> {
  const { baseUrl, signal } = opts;
  const ctx = { baseUrl, signal, redact: opts.redact };
  // The library's timeout covers the headers only; the idle timer covers the stream.
  const idle = new IdleTimer(opts.idleMs, signal);
  let stream: AsyncIterable<T>;
  try {
    stream = await open(idle.signal);
  } catch (e) {
    idle.stop();
    throw providerError(e, { ...ctx, during: 'connect' });
  }
  let events = 0;
  idle.touch();
  try {
    for await (const event of stream) {
      idle.touch();
      events++;
      onEvent(event);
    }
  } catch (e) {
    if (idle.fired && !signal.aborted) throw idle.error(baseUrl);
    throw providerError(e, { ...ctx, during: 'stream' });
  } finally {
    idle.stop();
  }
  // The libraries end the iteration quietly when the signal aborts.
  if (signal.aborted) throw cancelled();
  if (idle.fired) throw idle.error(baseUrl);
  if (events === 0) throw streamInvalid(baseUrl, `no event of the ${opts.api} API arrived`);
  return events;
}
