/**
 * Server-Sent Events for `responseMode: 'sse'`: bytes are decoded as UTF-8 (a character
 * split across chunks is kept whole), parsed with eventsource-parser and each event is given
 * to a callback as it arrives.
 *
 * The final value of an SSE tool is the list of events, in order, each `{ data, event?, id? }`
 * with `data` as the server sent it (a string; multi-line data joined with `\n`). An event
 * still incomplete when the stream ends (no blank line after it) is dropped, as the SSE
 * standard says. Comments and `retry:` fields are ignored.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { AppError } from '../../../../shared/errors';

export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

export interface SseCollectorOptions {
  /** Called for each event as it is parsed; an exception thrown by it is swallowed. */
  onEvent?: (e: SseEvent) => void;
  /** Characters one event (or one unfinished line) may take: larger is PAYLOAD_TOO_LARGE. */
  maxBufferChars: number;
  /** Events kept at most (older events beyond it are still delivered, not kept). Default 100 000. */
  maxEvents?: number;
}

export class SseCollector {
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly events: SseEvent[] = [];
  private readonly maxEvents: number;
  private failure: AppError | undefined;
  private delivered = 0;
  private bytes = 0;
  private done = false;

  constructor(private readonly opts: SseCollectorOptions) {
    this.maxEvents = opts.maxEvents ?? 100_000;
    this.parser = createParser({
      maxBufferSize: opts.maxBufferChars,
      onEvent: (m) => {
        const e: SseEvent = { data: m.data, ...(m.event !== undefined ? { event: m.event } : {}), ...(m.id !== undefined ? { id: m.id } : {}) };
        if (this.events.length < this.maxEvents) this.events.push(e);
        this.delivered++;
        try {
          this.opts.onEvent?.(e);
        } catch {
          // The listener's failure is the listener's; the stream goes on.
        }
      },
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') {
          this.failure ??= new AppError('PAYLOAD_TOO_LARGE', `an event in the stream is larger than ${opts.maxBufferChars} characters`, { limit: opts.maxBufferChars });
        }
        // Unknown fields and bad retry values are ignored, as the standard says.
      },
    });
  }

  /** Events delivered so far. */
  get count(): number {
    return this.delivered;
  }

  /** Bytes fed so far. */
  get sizeBytes(): number {
    return this.bytes;
  }

  /** Feeds one chunk; throws PAYLOAD_TOO_LARGE when an event outgrows the buffer. */
  feed(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    if (this.done) return;
    this.bytes += chunk.byteLength;
    const text = this.decoder.decode(chunk, { stream: true });
    if (text) this.parser.feed(text);
    if (this.failure) throw this.failure;
  }

  /** Ends the stream and returns the events (an unfinished last event is dropped). */
  finish(): SseEvent[] {
    if (!this.done) {
      this.done = true;
      const rest = this.decoder.decode();
      if (rest && !this.failure) this.parser.feed(rest);
    }
    if (this.failure) throw this.failure;
    return this.events;
  }
}
