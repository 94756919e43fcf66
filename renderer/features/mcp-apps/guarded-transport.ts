// The transport between an MCP App's sandboxed frame and the host's AppBridge, with bounds.
//
// It does what ext-apps' PostMessageTransport does (listen to `message` events, keep only those
// from the app's frame, post back with targetOrigin '*'), and before the bridge sees a message it
// enforces what ext-apps does not: the handshake first, a size per message, a rate, a number of
// requests waiting, and one size change per animation frame. A message it refuses never reaches
// the bridge; a refused request is answered here with a JSON-RPC error so the app is not left
// waiting.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { formatBytes } from '../../../shared/bytes';

/** The bounds on what one app may send to the host. */
export const GUARD_LIMITS = {
  /** One message, counted as the length of its JSON text (strings in UTF-16 code units). */
  maxMessageBytes: 1024 * 1024,
  /** Messages a second, on average (a token bucket refilled at this rate)… */
  messagesPerSecond: 100,
  /** …and in one burst (the bucket's size). */
  burst: 200,
  /** Dropping messages for this long without a pause stops the app. */
  floodStopMs: 5_000,
  /** A pause this long without a dropped message ends a run of dropping. */
  floodPauseMs: 1_000,
  /** Requests from the app waiting for the host's answer at once. */
  maxWaitingRequests: 8,
  /**
   * The longest string id a request may have. A refusal echoes the id back, so a huge one would
   * be copied once per refused message; real ids are short numbers or strings.
   */
  maxIdChars: 256,
} as const;

export type GuardLimits = { readonly [K in keyof typeof GUARD_LIMITS]: number };

/** The heights the host gives an app's frame; past the maximum the frame scrolls inside. */
export const APP_HEIGHT = { min: 32, max: 720 } as const;

/** The height to give an app's frame for the height it reported; undefined when it is not a finite number. */
export function clampAppHeight(h: unknown): number | undefined {
  if (typeof h !== 'number' || !Number.isFinite(h)) return undefined;
  return Math.min(APP_HEIGHT.max, Math.max(APP_HEIGHT.min, h));
}

export type GuardedTransportOptions = {
  /** Where the host's messages go: the frame's window (`iframe.contentWindow`). */
  target: { postMessage(message: unknown, targetOrigin: string): void };
  /** The only `event.source` whose messages are taken: the frame's window as well. */
  source: MessageEventSource;
  /** Where `message` events arrive; the host window by default. */
  listenOn?: EventTarget;
  limits?: Partial<GuardLimits>;
  /** A monotonic clock in milliseconds; `performance.now` by default. */
  now?: () => number;
  /** Runs a callback at the next animation frame; `requestAnimationFrame` by default (16 ms timer without one). */
  requestFrame?: (run: () => void) => void;
  /** Called once when the app is stopped for flooding, with a sentence to show in its card. */
  onStopped?: (reason: string) => void;
};

const INVALID_REQUEST = -32600;
/** JSON-RPC's range for implementation-defined server errors. */
const SERVER_ERROR = -32000;

const INITIALIZED = 'ui/notifications/initialized';
const SIZE_CHANGED = 'ui/notifications/size-changed';
const CANCELLED = 'notifications/cancelled';
/** The requests an app may send before its handshake is complete. */
const BEFORE_INITIALIZED = new Set(['ui/initialize', 'ping']);

type RequestId = string | number;

/** What a message is, by the shape of a JSON-RPC 2.0 message (the SDK checks the rest). */
type Classified =
  | { kind: 'request'; id: RequestId; method: string }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'response'; id: RequestId | undefined };

export class GuardedTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  private readonly limits: GuardLimits;
  private readonly now: () => number;
  private readonly requestFrame: (run: () => void) => void;
  private listenOn: EventTarget | undefined;
  private closed = false;
  private initialized = false;

  private tokens: number;
  private refilledAt: number;
  /** When the current run of dropped messages began, and when its last drop was. */
  private droppingSince: number | undefined;
  private lastDropAt: number | undefined;

  /** Requests waiting for the host's answer, by id (an app may reuse an id), and their total. */
  private readonly waiting = new Map<RequestId, number>();
  private waitingCount = 0;

  /** The last size change not yet delivered, and whether a frame is already asked for. */
  private pendingSize: JSONRPCMessage | undefined;
  private frameRequested = false;

  constructor(private readonly options: GuardedTransportOptions) {
    this.limits = { ...GUARD_LIMITS, ...options.limits };
    this.now = options.now ?? (() => performance.now());
    this.requestFrame = options.requestFrame ?? defaultRequestFrame;
    this.tokens = this.limits.burst;
    this.refilledAt = this.now();
  }

  async start(): Promise<void> {
    if (this.closed || this.listenOn) return;
    this.listenOn = this.options.listenOn ?? window;
    this.refilledAt = this.now();
    this.listenOn.addEventListener('message', this.listener);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // After a stop nothing more goes to the app: it has been told nothing will be answered.
    if (this.closed) return;
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.release(message.id);
    this.post(message);
  }

  async close(): Promise<void> {
    this.shutDown();
  }

  private readonly listener = (event: Event): void => {
    const { source, data } = event as MessageEvent;
    if (this.closed || source !== this.options.source) return;
    this.receive(data);
  };

  private receive(data: unknown): void {
    const message = classify(data, this.limits.maxIdChars);
    const request = message?.kind === 'request' ? message : undefined;

    // The rate is checked first and counts every message from the frame, JSON-RPC or not, so
    // that nothing costs more than a few property reads until it is within the rate.
    const now = this.now();
    if (!this.takeToken(now)) {
      this.noteDrop(now);
      if (request && !this.closed) this.refuse(request.id, SERVER_ERROR, `too many messages: at most ${this.limits.messagesPerSecond} a second`);
      return;
    }
    if (!message) return;

    const size = measureJson(data, this.limits.maxMessageBytes);
    if (size === 'not-json') return;
    if (size === 'over') {
      if (request) this.refuse(request.id, INVALID_REQUEST, `message too large: at most ${formatBytes(this.limits.maxMessageBytes)}`);
      return;
    }

    if (!this.initialized) {
      // Answers to the host's own requests pass: the host may ask the app to tear down before the
      // handshake is over, and must hear back.
      if (request && !BEFORE_INITIALIZED.has(request.method)) {
        this.refuse(request.id, INVALID_REQUEST, 'initialize first: send ui/initialize and ui/notifications/initialized before other requests');
        return;
      }
      if (message.kind === 'notification' && message.method !== INITIALIZED) return;
    }

    if (request) {
      if (this.waitingCount >= this.limits.maxWaitingRequests) {
        this.refuse(request.id, SERVER_ERROR, `too many requests at once: at most ${this.limits.maxWaitingRequests} wait for an answer`);
        return;
      }
      this.waiting.set(request.id, (this.waiting.get(request.id) ?? 0) + 1);
      this.waitingCount += 1;
    } else if (message.kind === 'notification') {
      if (message.method === INITIALIZED) this.initialized = true;
      // The SDK sends no answer to a request the app cancelled, so it stops waiting here. (A
      // handler that ignores the cancellation goes on: the work itself is bounded where it runs.)
      if (message.method === CANCELLED) {
        const id = message.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.release(id);
      }
      if (message.method === SIZE_CHANGED) {
        this.deliverSizeAtNextFrame(data as JSONRPCMessage);
        return;
      }
    }
    this.onmessage?.(data as JSONRPCMessage);
  }

  /** Takes one token from the bucket, refilled for the time since the last message. */
  private takeToken(now: number): boolean {
    const elapsed = Math.max(0, now - this.refilledAt);
    this.refilledAt = now;
    this.tokens = Math.min(this.limits.burst, this.tokens + (elapsed * this.limits.messagesPerSecond) / 1000);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Stops the app once it has been over the rate for floodStopMs. A flood still gets a message
   * through now and then (each token refilled), so a run of dropping ends only after a pause of
   * floodPauseMs with nothing dropped, not at the first message let through.
   */
  private noteDrop(now: number): void {
    if (this.lastDropAt === undefined || now - this.lastDropAt > this.limits.floodPauseMs) this.droppingSince = now;
    this.lastDropAt = now;
    if (now - (this.droppingSince ?? now) >= this.limits.floodStopMs) {
      this.options.onStopped?.(`The app sent more than ${this.limits.messagesPerSecond} messages a second and was stopped. Show it again from its card.`);
      this.shutDown();
    }
  }

  private release(id: RequestId): void {
    const count = this.waiting.get(id);
    if (count === undefined) return;
    if (count > 1) this.waiting.set(id, count - 1);
    else this.waiting.delete(id);
    this.waitingCount -= 1;
  }

  /** An app resizing as it animates reports many sizes a frame: only the last one is applied. */
  private deliverSizeAtNextFrame(message: JSONRPCMessage): void {
    this.pendingSize = message;
    if (this.frameRequested) return;
    this.frameRequested = true;
    this.requestFrame(() => {
      this.frameRequested = false;
      const last = this.pendingSize;
      this.pendingSize = undefined;
      if (last && !this.closed) this.onmessage?.(last);
    });
  }

  private refuse(id: RequestId, code: number, message: string): void {
    this.post({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private post(message: JSONRPCMessage): void {
    // The frame's origin is opaque ('null': sandboxed without allow-same-origin), and no origin
    // but '*' can address it. The message goes to that one window, never broadcast.
    this.options.target.postMessage(message, '*');
  }

  private shutDown(): void {
    if (this.closed) return;
    this.closed = true;
    this.listenOn?.removeEventListener('message', this.listener);
    this.waiting.clear();
    this.waitingCount = 0;
    this.pendingSize = undefined;
    this.onclose?.();
  }
}

function defaultRequestFrame(run: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => run());
  else setTimeout(run, 16);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // Structured clone builds objects in the receiving window's realm, so a plain object from the
  // frame has this window's Object.prototype.
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isRequestId(id: unknown, maxIdChars: number): id is RequestId {
  return (typeof id === 'string' && id.length <= maxIdChars) || (typeof id === 'number' && Number.isInteger(id));
}

function classify(data: unknown, maxIdChars: number): Classified | undefined {
  if (!isPlainObject(data) || data.jsonrpc !== '2.0') return undefined;
  const { id, method, params } = data;
  if (typeof method === 'string') {
    if (params !== undefined && !isPlainObject(params)) return undefined;
    if (id === undefined) return { kind: 'notification', method, params };
    return isRequestId(id, maxIdChars) ? { kind: 'request', id, method } : undefined;
  }
  if ('result' in data) return isPlainObject(data.result) && isRequestId(id, maxIdChars) ? { kind: 'response', id } : undefined;
  if ('error' in data) {
    const { error } = data;
    const ok = isPlainObject(error) && Number.isInteger(error.code) && typeof error.message === 'string';
    return ok && (id === undefined || isRequestId(id, maxIdChars)) ? { kind: 'response', id } : undefined;
  }
  return undefined;
}

/**
 * Whether `value` is JSON data whose JSON text is at most `limit` characters, found by walking
 * it and stopping as soon as the count passes the limit, so a 20 MB message costs no more than
 * a 1 MB one. Strings count their UTF-16 length (escapes are not counted). Every value counts at
 * least one, so a structure with cycles (which structured clone can carry) also ends as 'over'.
 * Anything JSON does not have (an ArrayBuffer, a Map, a Date, a bigint…) is 'not-json'.
 */
export function measureJson(value: unknown, limit: number): 'within' | 'over' | 'not-json' {
  const stack: unknown[] = [value];
  let size = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') size += String(v).length;
    else if (typeof v === 'boolean') size += 5;
    // null, and undefined (a property JSON would leave out, or a hole JSON writes as null)
    else if (v === null || v === undefined) size += 4;
    else if (Array.isArray(v)) {
      // Brackets and commas are counted before the elements are stacked, so a long array stops
      // here without stacking anything.
      size += 2 + v.length;
      if (size > limit) return 'over';
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push(v[i]);
    } else if (isPlainObject(v)) {
      size += 2;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        size += key.length + 4; // quotes, colon, comma
        if (size > limit) return 'over';
        stack.push(v[key]);
      }
    } else return 'not-json';
    if (size > limit) return 'over';
  }
  return 'within';
}
