import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GUARD_LIMITS, GuardedTransport, clampAppHeight, measureJson, type GuardLimits } from './guarded-transport';

const MiB = 1024 * 1024;
const INIT_FIRST = 'initialize first: send ui/initialize and ui/notifications/initialized before other requests';
const TOO_LARGE = 'message too large: at most 1.0 MiB';
const TOO_FAST = 'too many messages: at most 100 a second';
const TOO_MANY_WAITING = 'too many requests at once: at most 8 wait for an answer';
const STOPPED = 'The app sent more than 100 messages a second and was stopped. Show it again from its card.';

const request = (id: string | number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });
const notification = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', method, ...(params && { params }) });
const refusal = (id: string | number, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });

/**
 * A transport on a fake host window and a fake frame, with a clock and animation frames the
 * test moves by hand. Messages are plain Events carrying `data` and `source`, as a MessageEvent
 * would: Node's MessageEvent takes only a MessagePort as its source.
 */
async function harness(limits?: Partial<GuardLimits>) {
  const host = new EventTarget();
  const posted: unknown[] = [];
  const origins = new Set<string>();
  const frame = {
    postMessage(message: unknown, targetOrigin: string) {
      origins.add(targetOrigin);
      posted.push(message);
    },
  };
  let time = 1_000;
  const frames: Array<() => void> = [];
  const stops: string[] = [];
  let closes = 0;
  const transport = new GuardedTransport({
    target: frame,
    source: frame as unknown as MessageEventSource,
    listenOn: host,
    limits,
    now: () => time,
    requestFrame: (run) => frames.push(run),
    onStopped: (reason) => stops.push(reason),
  });
  const delivered: JSONRPCMessage[] = [];
  transport.onmessage = (message) => delivered.push(message);
  transport.onclose = () => (closes += 1);
  await transport.start();

  const fromApp = (data: unknown, source: unknown = frame) => host.dispatchEvent(Object.assign(new Event('message'), { data, source }));
  const h = {
    host,
    frame,
    origins,
    transport,
    posted,
    delivered,
    frames,
    stops,
    closes: () => closes,
    fromApp,
    advance: (ms: number) => (time += ms),
    now: () => time,
    runFrames: () => frames.splice(0).forEach((run) => run()),
    /** The handshake as the SDK's App does it, the host answering ui/initialize. */
    async initialize() {
      fromApp(request('init', 'ui/initialize'));
      await transport.send({ jsonrpc: '2.0', id: 'init', result: {} });
      fromApp(notification('ui/notifications/initialized'));
      delivered.length = 0;
      posted.length = 0;
    },
  };
  return h;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('GuardedTransport: the handshake first', () => {
  it('refuses other requests before ui/notifications/initialized with a JSON-RPC error, and drops other notifications', async () => {
    const h = await harness();
    h.fromApp(request(1, 'tools/call', { name: 'get-time' }));
    h.fromApp(notification('notifications/message', { level: 'info', data: 'hi' }));
    h.fromApp(notification('ui/notifications/size-changed', { height: 400 }));
    h.runFrames();
    expect(h.delivered).toEqual([]);
    expect(h.posted).toEqual([refusal(1, -32600, INIT_FIRST)]);
  });

  it('lets ui/initialize, ping and answers to the host through before the handshake, and everything after it', async () => {
    const h = await harness();
    const init = request('a', 'ui/initialize', { protocolVersion: '2026-01-26' });
    const ping = request('b', 'ping');
    const answer = { jsonrpc: '2.0', id: 7, result: {} };
    h.fromApp(init);
    h.fromApp(ping);
    h.fromApp(answer);
    h.fromApp(notification('ui/notifications/initialized'));
    h.fromApp(request(2, 'tools/call', { name: 'get-time' }));
    expect(h.delivered).toEqual([init, ping, answer, notification('ui/notifications/initialized'), request(2, 'tools/call', { name: 'get-time' })]);
    expect(h.posted).toEqual([]);
  });
});

describe('GuardedTransport: what it listens to', () => {
  it('ignores messages from any other source', async () => {
    const h = await harness();
    h.fromApp(request(1, 'ui/initialize'), { postMessage() {} });
    h.fromApp(request(2, 'ui/initialize'), null);
    expect(h.delivered).toEqual([]);
    expect(h.posted).toEqual([]);
  });

  it('ignores what is not a JSON-RPC 2.0 message, without answering', async () => {
    const h = await harness();
    await h.initialize();
    for (const data of [
      'ui/initialize',
      null,
      [request(1, 'ping')],
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [1, 2] },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      { jsonrpc: '2.0', id: 1, error: { code: 'bad', message: 'x' } },
      // An id too long to echo back in a refusal.
      request('x'.repeat(GUARD_LIMITS.maxIdChars + 1), 'tools/call'),
      // Structured clone carries more than JSON: none of it reaches the SDK.
      request(3, 'tools/call', { blob: new ArrayBuffer(8) }),
      request(4, 'tools/call', { when: new Date() }),
    ]) {
      h.fromApp(data);
    }
    expect(h.delivered).toEqual([]);
    expect(h.posted).toEqual([]);
  });

  it('posts what the host sends, and its own refusals, to the frame with targetOrigin "*"', async () => {
    const h = await harness();
    const message = notification('ui/notifications/tool-input', { arguments: {} }) as JSONRPCMessage;
    await h.transport.send(message);
    h.fromApp(request(1, 'tools/call'));
    expect(h.posted).toEqual([message, refusal(1, -32600, INIT_FIRST)]);
    expect([...h.origins]).toEqual(['*']);
  });
});

describe('GuardedTransport: size of a message', () => {
  it('refuses a request over 1 MiB and lets one just under it through', async () => {
    const h = await harness();
    await h.initialize();
    h.fromApp(request(1, 'ui/message', { content: [{ type: 'text', text: 'x'.repeat(MiB) }] }));
    const under = request(2, 'ui/message', { content: [{ type: 'text', text: 'x'.repeat(MiB - 1000) }] });
    h.fromApp(under);
    expect(h.posted).toEqual([refusal(1, -32600, TOO_LARGE)]);
    expect(h.delivered).toEqual([under]);
  });

  it('drops an oversized notification, a huge string or a deep nesting, without serializing it', async () => {
    const h = await harness();
    await h.initialize();
    const stringify = vi.spyOn(JSON, 'stringify');
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300_000; i += 1) deep = { a: deep };
    h.fromApp(notification('notifications/message', { level: 'info', data: 'x'.repeat(20 * MiB) }));
    h.fromApp(notification('notifications/message', { level: 'info', data: deep }));
    h.fromApp(request(1, 'tools/call', { name: 'x', arguments: deep }));
    expect(h.delivered).toEqual([]);
    expect(h.posted).toEqual([refusal(1, -32600, TOO_LARGE)]);
    expect(stringify).not.toHaveBeenCalled();
  });
});

describe('measureJson', () => {
  it('measures about the length of the JSON text', () => {
    const value = { a: [1, 'two', true, null, { b: 'c' }], d: 'é' };
    const length = JSON.stringify(value).length;
    expect(measureJson(value, length + 8)).toBe('within');
    expect(measureJson(value, length - 1)).toBe('over');
  });

  it('stops as soon as the count passes the limit, before walking the rest', () => {
    const tripwire = {
      get a(): never {
        throw new Error('walked past the limit');
      },
    };
    expect(measureJson(['x'.repeat(2000), tripwire], 1000)).toBe('over');
    expect(measureJson(Object.defineProperties({ ['k'.repeat(2000)]: 1 }, Object.getOwnPropertyDescriptors(tripwire)), 1000)).toBe('over');
    // A sparse array with a huge length is over at once, without reading an element.
    expect(measureJson(new Array(1e9), MiB)).toBe('over');
  });

  it('ends on a cycle, which structured clone can carry', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(measureJson(cyclic, MiB)).toBe('over');
  });

  it('says not-json for values JSON does not have', () => {
    for (const value of [new ArrayBuffer(4), new Uint8Array(4), new Map(), new Set(), new Date(), /x/, 1n, () => 1]) {
      expect(measureJson({ v: value }, MiB)).toBe('not-json');
    }
  });
});

describe('GuardedTransport: rate', () => {
  it('takes a burst of 200, then drops and answers requests until the bucket refills at 100 a second', async () => {
    const h = await harness();
    await h.initialize(); // 2 messages of the burst
    for (let i = 0; i < 198; i += 1) h.fromApp(notification('notifications/message', { level: 'info', data: i }));
    expect(h.delivered).toHaveLength(198);

    h.fromApp(notification('notifications/message', { level: 'info', data: 'dropped' }));
    h.fromApp(request(1, 'tools/call', { name: 'x' }));
    expect(h.delivered).toHaveLength(198);
    expect(h.posted).toEqual([refusal(1, -32000, TOO_FAST)]);

    h.advance(10); // one token
    h.fromApp(request(2, 'tools/call', { name: 'x' }));
    h.fromApp(request(3, 'tools/call', { name: 'x' }));
    expect(h.delivered.at(-1)).toEqual(request(2, 'tools/call', { name: 'x' }));
    expect(h.posted.at(-1)).toEqual(refusal(3, -32000, TOO_FAST));
    expect(h.stops).toEqual([]);
  });

  it('stops an app that stays over the rate for 5 s, though some of its messages still get through', async () => {
    const h = await harness();
    await h.initialize();
    const removed = vi.spyOn(h.host, 'removeEventListener');
    let firstDrop: number | undefined;
    let stoppedAt: number | undefined;
    // 1,000 messages a second, in steps of 10 ms.
    while (stoppedAt === undefined && h.now() < 20_000) {
      for (let i = 0; i < 10 && stoppedAt === undefined; i += 1) {
        const before = h.delivered.length;
        h.fromApp(notification('notifications/message', { level: 'info', data: i }));
        if (h.delivered.length === before) firstDrop ??= h.now();
        if (h.stops.length > 0) stoppedAt = h.now();
      }
      h.advance(10);
    }
    expect(firstDrop).toBeDefined();
    expect(stoppedAt! - firstDrop!).toBe(5_000);
    // About 100 a second went through during those 5 s: a message let through does not end the run.
    expect(h.delivered.length).toBeGreaterThan(198 + 400);
    expect(h.stops).toEqual([STOPPED]);
    expect(h.closes()).toBe(1);
    expect(removed).toHaveBeenCalledWith('message', expect.any(Function));

    // Stopped: nothing more goes either way.
    const count = h.delivered.length;
    h.posted.length = 0;
    h.advance(60_000);
    h.fromApp(request(9, 'tools/call', { name: 'x' }));
    await h.transport.send(notification('ui/notifications/tool-result', { content: [] }) as JSONRPCMessage);
    expect(h.delivered).toHaveLength(count);
    expect(h.posted).toEqual([]);
  });

  it('does not stop an app whose bursts over the rate are separated by pauses', async () => {
    const h = await harness();
    await h.initialize();
    let dropped = 0;
    const burst = (ms: number) => {
      for (let t = 0; t < ms; t += 10) {
        for (let i = 0; i < 10; i += 1) {
          const before = h.delivered.length;
          h.fromApp(notification('notifications/message', { level: 'info', data: i }));
          if (h.delivered.length === before) dropped += 1;
        }
        h.advance(10);
      }
    };
    burst(4_000);
    h.advance(1_500);
    burst(4_000);
    expect(dropped).toBeGreaterThan(1_000);
    expect(h.stops).toEqual([]);
    expect(h.closes()).toBe(0);
  });
});

describe('GuardedTransport: requests waiting', () => {
  it('lets 8 requests wait, refuses the 9th, and frees a place on each answer or cancellation', async () => {
    const h = await harness();
    await h.initialize();
    for (let id = 1; id <= 8; id += 1) h.fromApp(request(id, 'tools/call', { name: 'x' }));
    h.fromApp(request(9, 'tools/call', { name: 'x' }));
    expect(h.delivered).toHaveLength(8);
    expect(h.posted).toEqual([refusal(9, -32000, TOO_MANY_WAITING)]);

    // An answer to no waiting request frees nothing.
    await h.transport.send({ jsonrpc: '2.0', id: 99, result: {} });
    h.fromApp(request(10, 'tools/call', { name: 'x' }));
    expect(h.posted.at(-1)).toEqual(refusal(10, -32000, TOO_MANY_WAITING));

    await h.transport.send({ jsonrpc: '2.0', id: 3, result: { content: [] } });
    h.fromApp(request(11, 'tools/call', { name: 'x' }));
    await h.transport.send({ jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'failed' } });
    h.fromApp(request(12, 'tools/call', { name: 'x' }));
    // The SDK never answers a request the app cancelled.
    h.fromApp(notification('notifications/cancelled', { requestId: 5 }));
    h.fromApp(request(13, 'tools/call', { name: 'x' }));
    h.fromApp(request(14, 'tools/call', { name: 'x' }));
    expect(h.delivered.map((m) => ('method' in m && !('id' in m) ? m.method : (m as { id: unknown }).id))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 'notifications/cancelled', 13]);
    expect(h.posted.at(-1)).toEqual(refusal(14, -32000, TOO_MANY_WAITING));
  });

  it('counts each request of a reused id', async () => {
    const h = await harness();
    await h.initialize();
    for (let i = 0; i < 9; i += 1) h.fromApp(request('same', 'ping'));
    expect(h.delivered).toHaveLength(8);
    expect(h.posted).toEqual([refusal('same', -32000, TOO_MANY_WAITING)]);
  });
});

describe('GuardedTransport: size changes', () => {
  it('delivers one size change per animation frame, the last one', async () => {
    const h = await harness();
    await h.initialize();
    for (const height of [100, 200, 300]) h.fromApp(notification('ui/notifications/size-changed', { width: 800, height }));
    expect(h.delivered).toEqual([]);
    expect(h.frames).toHaveLength(1);
    h.runFrames();
    expect(h.delivered).toEqual([notification('ui/notifications/size-changed', { width: 800, height: 300 })]);

    h.fromApp(notification('ui/notifications/size-changed', { height: 50 }));
    expect(h.frames).toHaveLength(1);
    h.runFrames();
    expect(h.delivered.at(-1)).toEqual(notification('ui/notifications/size-changed', { height: 50 }));
  });

  it('delivers nothing once closed', async () => {
    const h = await harness();
    await h.initialize();
    h.fromApp(notification('ui/notifications/size-changed', { height: 100 }));
    await h.transport.close();
    h.runFrames();
    expect(h.delivered).toEqual([]);
    expect(h.closes()).toBe(1);
  });

  it('waits for a 16 ms timer where there is no requestAnimationFrame', async () => {
    vi.useFakeTimers();
    try {
      const host = new EventTarget();
      const source = { postMessage() {} };
      const transport = new GuardedTransport({ target: source, source: source as unknown as MessageEventSource, listenOn: host, now: () => 0 });
      const delivered: unknown[] = [];
      transport.onmessage = (m) => delivered.push(m);
      await transport.start();
      const send = (data: unknown) => host.dispatchEvent(Object.assign(new Event('message'), { data, source }));
      send(notification('ui/notifications/initialized'));
      send(notification('ui/notifications/size-changed', { height: 10 }));
      send(notification('ui/notifications/size-changed', { height: 20 }));
      vi.advanceTimersByTime(15);
      expect(delivered).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(delivered.at(-1)).toEqual(notification('ui/notifications/size-changed', { height: 20 }));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('clampAppHeight', () => {
  it('keeps a height between 32 and 720 px', () => {
    expect(clampAppHeight(427)).toBe(427);
    expect(clampAppHeight(10)).toBe(32);
    expect(clampAppHeight(-5)).toBe(32);
    expect(clampAppHeight(32)).toBe(32);
    expect(clampAppHeight(720)).toBe(720);
    expect(clampAppHeight(5_000)).toBe(720);
  });

  it('gives undefined for what is not a finite number', () => {
    for (const h of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '400', undefined, null, {}]) {
      expect(clampAppHeight(h)).toBeUndefined();
    }
  });
});

describe('GuardedTransport under the AppBridge of ext-apps', () => {
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 1));
  };

  it('carries the handshake and a tool call, and keeps calls made before the handshake from the bridge', async () => {
    const h = await harness();
    const bridge = new AppBridge(null, { name: 'Toolsmith', version: '0.1.0' }, { serverTools: {} }, { hostContext: { displayMode: 'inline' } });
    const calls: unknown[] = [];
    const sizes: unknown[] = [];
    let initialized = 0;
    bridge.oncalltool = async (params) => {
      calls.push(params.name);
      return { content: [{ type: 'text', text: '12:00' }] };
    };
    bridge.onsizechange = (params) => sizes.push(params);
    bridge.oninitialized = () => (initialized += 1);
    await bridge.connect(h.transport);

    const answer = (id: number) => h.posted.find((m) => (m as { id?: unknown }).id === id) as { result?: Record<string, unknown>; error?: unknown } | undefined;
    h.fromApp(request(1, 'ui/initialize', { appInfo: { name: 'time-app', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26' }));
    await until(() => answer(1) !== undefined);
    expect(answer(1)?.result).toMatchObject({ protocolVersion: '2026-01-26', hostInfo: { name: 'Toolsmith' }, hostCapabilities: { serverTools: {} } });

    h.fromApp(request(2, 'tools/call', { name: 'get-time', arguments: {} }));
    expect(answer(2)).toEqual(refusal(2, -32600, INIT_FIRST));

    h.fromApp(notification('ui/notifications/initialized'));
    await until(() => initialized === 1);
    h.fromApp(request(3, 'tools/call', { name: 'get-time', arguments: {} }));
    await until(() => answer(3) !== undefined);
    expect(answer(3)?.result).toMatchObject({ content: [{ type: 'text', text: '12:00' }] });
    expect(calls).toEqual(['get-time']);

    h.fromApp(notification('ui/notifications/size-changed', { width: 1264, height: 427 }));
    h.fromApp(notification('ui/notifications/size-changed', { width: 1264, height: 500 }));
    h.runFrames();
    await until(() => sizes.length > 0);
    expect(sizes).toEqual([{ width: 1264, height: 500 }]);
    await bridge.close();
    expect(h.closes()).toBe(1);
  });
});
