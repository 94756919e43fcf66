/**
 * An MCP client transport as a connection uses it: the requests sent and still waited for, closed
 * at once on a message over the size limit, and closed once idle when its session is over.
 */
import type { Transport } from '@modelcontextprotocol/client';
import { isHttpTooLarge } from './http-limits';
import { MessageTooLargeError } from './line-reader';

/** A message over the size limit, as the transports and our fetch say it (not a junk line that quotes such words). */
export function isTooLarge(e: Error): boolean {
  return e instanceof MessageTooLargeError || /^ReadBuffer exceeded/.test(e.message) || isHttpTooLarge(e);
}

/** A transport as `observed` makes it. */
export interface ObservedTransport extends Transport {
  /** Closes it once no request sent on it is waited for (at once if none is); `done` after. */
  closeWhenIdle(done: () => void): void;
}

/**
 * The transport, with the ids of requests sent and not yet answered kept in `pending`, and each
 * request's id told. It closes at once (its onclose called once, so waiting calls fail now) when
 * closed or when it reports a message over the size limit: the SDK's stdio transport only says it
 * closed once the process's pipes close, which a child of the server may hold open for ever.
 */
export function observed(inner: Transport, pending: Set<string | number>, onRequest: (id: string | number) => void, onTransportError?: (e: Error) => void): ObservedTransport {
  let onclose: (() => void) | undefined;
  let onerror: ((e: Error) => void) | undefined;
  let closed = false;
  /** Set by closeWhenIdle: closes it once no request is waited for. */
  let onIdle: (() => void) | undefined;
  const fireClose = () => {
    if (closed) return;
    closed = true;
    onclose?.();
  };
  inner.onclose = fireClose;
  const settled = (id: unknown) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    pending.delete(id);
    // Closed after the request is told how it ended (a close now would tell it "connection closed").
    if (onIdle && pending.size === 0) setImmediate(() => pending.size === 0 && onIdle?.());
  };
  const t: ObservedTransport = {
    closeWhenIdle(done) {
      onIdle = () => {
        onIdle = undefined;
        void t.close().catch(() => undefined).finally(done);
      };
      if (pending.size === 0) onIdle();
    },
    start: () => inner.start(),
    close: () => {
      const closing = inner.close();
      fireClose();
      return closing;
    },
    send: (message, options) => {
      const m = message as { id?: string | number; method?: string; params?: { requestId?: unknown } };
      // A call that timed out or was cancelled waits no more: a late answer to it is nobody's.
      if (m.method === 'notifications/cancelled') settled(m.params?.requestId);
      if (m.method === undefined || m.id === undefined) return inner.send(message, options);
      const id = m.id;
      pending.add(id);
      onRequest(id);
      return inner.send(message, options).catch((e: unknown) => {
        // Not sent (or refused, as an HTTP 404 for a session the server forgot): no answer will come.
        settled(id);
        throw e;
      });
    },
    get sessionId() {
      return inner.sessionId;
    },
    // Streamable HTTP: a 2026 request's cancel ends its own stream (the SDK asks the transport).
    get hasPerRequestStream() {
      return (inner as { hasPerRequestStream?: boolean }).hasPerRequestStream;
    },
    setProtocolVersion: inner.setProtocolVersion ? (v: string) => inner.setProtocolVersion!(v) : undefined,
    setSupportedProtocolVersions: inner.setSupportedProtocolVersions ? (v: string[]) => inner.setSupportedProtocolVersions!(v) : undefined,
    set onclose(fn) {
      onclose = fn;
    },
    get onclose() {
      return onclose;
    },
    set onerror(fn) {
      onerror = fn;
      inner.onerror = (e) => {
        // Told whoever listens now (the SDK's own, during the 2026 probe), and always the connection.
        onTransportError?.(e);
        fn?.(e);
        if (isTooLarge(e)) void t.close().catch(() => undefined);
      };
    },
    get onerror() {
      return onerror;
    },
    set onmessage(fn) {
      inner.onmessage = fn
        ? (message, extra) => {
            const m = message as { id?: string | number; method?: string };
            if (m.method === undefined && m.id !== undefined) settled(m.id);
            fn(message, extra);
          }
        : undefined;
    },
    get onmessage() {
      return inner.onmessage;
    },
  };
  // The SDK knows a stdio transport by its shape (`stderr` and `pid`): a 2026 probe that a stdio
  // server does not answer means a 2025 server there, where over HTTP it means an outage.
  if ('pid' in inner) {
    Object.defineProperty(t, 'pid', { get: () => (inner as { pid?: unknown }).pid, enumerable: true });
    Object.defineProperty(t, 'stderr', { get: () => (inner as { stderr?: unknown }).stderr ?? null, enumerable: true });
  }
  return t;
}
