/**
 * The size limit on what an HTTP MCP server sends, applied as its bytes arrive: a POST answer
 * is cut off past the limit, and so is one event of the GET event stream (the stream itself may
 * run for hours; each event in it is bounded, counted from one blank line to the next). Past
 * the limit the body errors with a message saying "larger than the limit", nothing more is
 * read and the connection is closed, so a server cannot make the app hold an answer of any size.
 * A POST answer past the limit whose requests no call waits for any more (they timed out or were
 * cancelled) is cut off the same way, but with its own words: that answer alone is dropped and
 * the connection, which other calls may be using, stays up.
 */

const ANSWER_TOO_LARGE = 'the answer is larger than the limit';
const EVENT_TOO_LARGE = 'an event of the event stream is larger than the limit';
const LATE_ANSWER_DROPPED = 'a late answer larger than the limit was dropped';

/** The error of a body cut off here, as it comes back through the SDK (which may wrap it: "SSE stream disconnected: Error: …"). */
export function isHttpTooLarge(e: Error): boolean {
  const m = e.message.replace(/^SSE stream disconnected: (Error: )?/, '');
  return m.startsWith(ANSWER_TOO_LARGE) || m.startsWith(EVENT_TOO_LARGE);
}

/** The error of a POST answer past the limit that no call waited for (it was dropped, the connection stays). */
export function isHttpDropped(e: Error): boolean {
  return e.message.replace(/^SSE stream disconnected: (Error: )?/, '').startsWith(LATE_ANSWER_DROPPED);
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface LimitHooks {
  /** A POST answer, a GET body or one event of the GET event stream passed the limit. */
  onTooLarge: (what: 'answer' | 'event') => void;
  /**
   * A POST answer's body ended or broke (its request body is passed). `resume`: the answer was an
   * event stream whose events carried ids, so the SDK resumes it (GET with Last-Event-ID) after
   * the server's `retry` (ms) when it set one.
   */
  onPostEnd: (body: unknown, resume?: { retryMs?: number }) => void;
  /**
   * Whether a call still waits for an answer to one of the requests of a POST (its body is
   * passed). Without it, every answer past the limit counts as onTooLarge.
   */
  waited?: (body: unknown) => boolean;
  /** A POST answer past the limit that no call waited for was cut off and dropped (not onTooLarge). */
  onDropped?: () => void;
  /** A stream resumed with Last-Event-ID is open (true) or has ended (false). */
  onResumed?: (open: boolean) => void;
}

/** fetch with each answer's body cut off past `maxBytes`, and each event of an event stream too. */
export function limitedFetch(maxBytes: number, hooks: LimitHooks, base: FetchLike = fetch): FetchLike {
  return async (url, outerInit) => {
    const { init, release } = ownSignal(outerInit);
    let res: Response;
    try {
      res = await base(url, init);
    } catch (e) {
      release();
      throw e;
    }
    if (!res.body) {
      release();
      return res;
    }
    const method = (init?.method ?? 'GET').toUpperCase();
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (method === 'GET' && wantsEventStream(init) && new Headers(init?.headers).has('last-event-id')) {
      // A resumed answer stream: the calls it answers are waited for while it is open.
      hooks.onResumed?.(true);
      const done = () => {
        release();
        hooks.onResumed?.(false);
      };
      return bounded(res, new EventCounter(maxBytes), () => (hooks.onTooLarge('event'), EVENT_TOO_LARGE), done);
    }
    if (method === 'GET' && wantsEventStream(init)) {
      // The standalone event stream: long-lived, so each event is bounded, not the whole body.
      return bounded(
        res,
        new EventCounter(maxBytes),
        () => {
          hooks.onTooLarge('event');
          return EVENT_TOO_LARGE;
        },
        release,
      );
    }
    const sniff = method === 'POST' && /text\/event-stream/i.test(res.headers.get('content-type') ?? '') ? new ResumeSniffer() : undefined;
    const ended = method === 'POST' ? () => (release(), hooks.onPostEnd(init?.body, sniff?.resume())) : release;
    // Judged when the limit is passed: a call may have timed out since the request was sent.
    const tooLarge = (): string => {
      if (method === 'POST' && hooks.waited && !hooks.waited(init?.body)) {
        hooks.onDropped?.();
        return LATE_ANSWER_DROPPED;
      }
      hooks.onTooLarge('answer');
      return ANSWER_TOO_LARGE;
    };
    if (declared > maxBytes) {
      const words = tooLarge();
      release();
      await res.body.cancel().catch(() => undefined);
      throw new Error(`${words} (${declared} bytes declared)`);
    }
    return bounded(res, sniff ? new Both(new TotalCounter(maxBytes), sniff) : new TotalCounter(maxBytes), tooLarge, ended);
  };
}

/**
 * A signal of the request's own, following the caller's. The SDK passes one long-lived signal
 * (its transport's) to every request, and fetch hangs an abort listener on the signal it is
 * given until the request object is collected: thousands of calls left thousands of listeners
 * on that one signal (Node's MaxListenersExceededWarning). Each request's listener on the
 * caller's signal is removed here as soon as its answer has been read (or failed).
 */
export function ownSignal(init: RequestInit | undefined): { init: RequestInit | undefined; release: () => void } {
  const outer = init?.signal;
  if (!outer) return { init, release: () => undefined };
  const ctl = new AbortController();
  if (outer.aborted) ctl.abort(outer.reason);
  const follow = () => ctl.abort(outer.reason);
  outer.addEventListener('abort', follow, { once: true });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    outer.removeEventListener('abort', follow);
  };
  return { init: { ...init, signal: ctl.signal }, release };
}

function wantsEventStream(init: RequestInit | undefined): boolean {
  const accept = new Headers(init?.headers).get('accept') ?? '';
  return /text\/event-stream/i.test(accept);
}

interface Counter {
  /** Counts a chunk; false when it takes the count past the limit. */
  add(chunk: Uint8Array): boolean;
}

class TotalCounter implements Counter {
  private n = 0;
  constructor(private readonly max: number) {}
  add(chunk: Uint8Array): boolean {
    this.n += chunk.byteLength;
    return this.n <= this.max;
  }
}

/** Reads an event stream's `id:` and `retry:` fields as it passes: whether it can be resumed, and after how long. */
export class ResumeSniffer implements Counter {
  private carry = '';
  private sawId = false;
  private retryMs: number | undefined;
  private readonly decoder = new TextDecoder();

  add(chunk: Uint8Array): boolean {
    const lines = (this.carry + this.decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
    // The last piece is a line not ended yet (kept short: only a field name and a number matter).
    this.carry = lines.pop()!.slice(0, 256);
    for (const line of lines) {
      if (/^id: ?\S/.test(line)) this.sawId = true;
      const retry = /^retry: ?(\d{1,9})$/.exec(line);
      if (retry) this.retryMs = Number(retry[1]);
    }
    return true;
  }

  resume(): { retryMs?: number } | undefined {
    return this.sawId ? (this.retryMs !== undefined ? { retryMs: this.retryMs } : {}) : undefined;
  }
}

/** Two counters over the same chunks. */
class Both implements Counter {
  constructor(
    private readonly a: Counter,
    private readonly b: Counter,
  ) {}
  add(chunk: Uint8Array): boolean {
    return this.b.add(chunk) && this.a.add(chunk);
  }
}

const LF = 10;
const CR = 13;

/**
 * The bytes of the current event of an event stream: an event ends at a blank line (two line
 * ends in a row, each CRLF, LF or CR), wherever the chunks are cut.
 */
export class EventCounter implements Counter {
  private n = 0;
  private atLineStart = true;
  private afterCR = false;
  constructor(private readonly max: number) {}

  add(chunk: Uint8Array): boolean {
    let n = this.n;
    let atLineStart = this.atLineStart;
    let afterCR = this.afterCR;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === LF && afterCR) {
        // The LF of a CRLF: that line end was counted at its CR.
        afterCR = false;
        continue;
      }
      afterCR = b === CR;
      if (b === LF || b === CR) {
        if (atLineStart) n = 0;
        else {
          atLineStart = true;
          n++;
        }
        continue;
      }
      atLineStart = false;
      if (++n > this.max) {
        this.n = n;
        return false;
      }
    }
    this.n = n;
    this.atLineStart = atLineStart;
    this.afterCR = afterCR;
    return true;
  }
}

/** The response with its body read through `counter`: past the limit it errors (with the words `tooLarge` gives) and the rest is not read. */
function bounded(res: Response, counter: Counter, tooLarge: () => string, ended: () => void = () => undefined): Response {
  const reader = res.body!.getReader();
  const limited = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        ended();
        ctl.error(e);
        return;
      }
      if (chunk.done) {
        ended();
        ctl.close();
        return;
      }
      if (!counter.add(chunk.value)) {
        const words = tooLarge();
        ended();
        ctl.error(new Error(words));
        void reader.cancel().catch(() => undefined);
        return;
      }
      ctl.enqueue(chunk.value);
    },
    cancel: (reason) => {
      // The reader let go of the body (the SDK drops bodies it does not need): this request is over.
      ended();
      return reader.cancel(reason);
    },
  });
  return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The ids of the JSON-RPC requests in a POST body. */
export function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m: { id?: unknown; method?: unknown }) => (typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : []));
  } catch {
    return [];
  }
}
