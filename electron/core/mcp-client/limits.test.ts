/**
 * The size limits as bytes arrive in chunks cut anywhere: a stdio line (LineReader) and one event
 * of an HTTP event stream (EventCounter).
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EventCounter, ResumeSniffer, limitedFetch } from './http-limits';
import { LineReader, MessageTooLargeError, oversizePolicy } from './line-reader';

/** Feeds `text` to `feed` cut into pieces of `size` bytes. */
function inPieces<T>(text: string, size: number, feed: (b: Buffer) => T): T[] {
  const all = Buffer.from(text);
  const out: T[] = [];
  for (let i = 0; i < all.length; i += size) out.push(feed(all.subarray(i, i + size)));
  return out;
}

describe('LineReader (stdio)', () => {
  it('gives whole lines whatever the chunks, and keeps a line up to the limit', () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const r = new LineReader(10);
      const lines = inPieces('abc\n0123456789\n\nxy\nz', size, (b) => r.push(b)).flat();
      expect(lines.map(String)).toEqual(['abc', '0123456789', '', 'xy']);
    }
  });

  it('throws as soon as a line passes the limit, before its end arrives, whatever the chunks', () => {
    for (const size of [1, 4, 11, 100]) {
      const r = new LineReader(10);
      let read = 0;
      let error: unknown;
      try {
        inPieces('ok\n' + 'x'.repeat(50) + '\n', size, (b) => {
          read += b.length;
          return r.push(b);
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MessageTooLargeError);
      expect((error as Error).message).toBe('the server sent a message larger than the limit (10 bytes)');
      // Stopped within a chunk of the limit.
      expect(read).toBeLessThanOrEqual(3 + 11 + size);
    }
  });
});

describe('LineReader with the rule for a line over the limit (stdio)', () => {
  const big = 'x'.repeat(500);
  const idLast = (id: number) => `{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":${id}}`;
  const idFirst = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${big}"}]}}`;

  /** Reads `lines` cut into pieces of `size` bytes with `pending` waiting; the lines given, what was dropped, or the error. */
  function read(lines: string[], pending: (string | number)[], size: number, maxSkip = Infinity): { lines: string[]; dropped: string[]; error?: unknown; read: number } {
    const dropped: string[] = [];
    const r = new LineReader(100, oversizePolicy(new Set(pending), 100, (w) => dropped.push(w)), maxSkip);
    const out: string[] = [];
    let n = 0;
    try {
      inPieces(lines.map((l) => `${l}\n`).join(''), size, (b) => {
        n += b.length;
        out.push(...r.push(b).map(String));
      });
    } catch (e) {
      return { lines: out, dropped, error: e, read: n };
    }
    return { lines: out, dropped, read: n };
  }

  it('drops a late answer (its id, last or first, waited for by no call) and reads on; keeps nothing of it but its edges', () => {
    for (const size of [1, 7, 64, 10_000]) {
      for (const line of [idLast(3), idFirst(3)]) {
        const got = read(['{"a":1}', line, '{"b":2}'], [4], size);
        expect(got.error).toBeUndefined();
        expect(got.lines).toEqual(['{"a":1}', '{"b":2}']);
        expect(got.dropped).toHaveLength(1);
        expect(got.dropped[0]).toMatch(/over the 100 bytes limit, was dropped \(the answer to request 3, which no call waits for any more/);
      }
    }
  });

  it('fails on the answer to a call that waits: at once when its id comes first, at its end when last', () => {
    for (const size of [1, 7, 64]) {
      const first = read([idFirst(4) + ' '.repeat(5000), '{"b":2}'], [4], size);
      expect(first.error).toBeInstanceOf(MessageTooLargeError);
      // Stopped near the limit, not at the end of the line.
      expect(first.read).toBeLessThanOrEqual(100 + 2 * size);
      const last = read([idLast(4), '{"b":2}'], [4], size);
      expect(last.error).toBeInstanceOf(MessageTooLargeError);
      expect(last.dropped).toEqual([]);
    }
  });

  it('drops a request or notification of the server, and anything when no call waits; fails when calls wait and no id can be read', () => {
    const notification = `{"method":"notifications/message","params":{"data":"${big}"},"jsonrpc":"2.0"}`;
    expect(read([notification, '{"b":2}'], [1], 16)).toMatchObject({ lines: ['{"b":2}'], dropped: [expect.stringMatching(/a request or notification of the server/)] });
    const noId = `{"junk":"${big}"}`;
    expect(read([noId, '{"b":2}'], [], 16)).toMatchObject({ lines: ['{"b":2}'], dropped: [expect.stringMatching(/while no call waited/)] });
    expect(read([noId, '{"b":2}'], [1], 16).error).toBeInstanceOf(MessageTooLargeError);
    // An id nested in the result at the end is not the message's.
    const nested = `{"result":{"text":"${big}","inner":{"id":9}},"jsonrpc":"2.0","id":1}`;
    expect(read([nested], [1], 16).error).toBeInstanceOf(MessageTooLargeError);
    const nestedOnly = `{"result":{"text":"${big}","inner":{"id":9}}}`;
    expect(read([nestedOnly], [1], 16).error).toBeInstanceOf(MessageTooLargeError);
  });

  it('a dropped line that goes on past the skip limit fails', () => {
    const got = read([idFirst(3) + ' '.repeat(5000)], [], 64, 1000);
    expect(got.error).toBeInstanceOf(MessageTooLargeError);
    expect(got.read).toBeLessThanOrEqual(1000 + 64);
  });
});

describe('EventCounter (an HTTP event stream)', () => {
  const event = (data: string, eol: string) => `event: message${eol}data: ${data}${eol}${eol}`;

  it('counts each event on its own: many events, each under the limit, pass (LF, CRLF, CR; any chunks)', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      for (const size of [1, 2, 5, 1000]) {
        const c = new EventCounter(40);
        const stream = Array.from({ length: 20 }, (_, i) => event(`{"n":${i}}`, eol)).join('');
        expect(inPieces(stream, size, (b) => c.add(b)).every(Boolean)).toBe(true);
      }
    }
  });

  it('stops at one event past the limit, whatever the chunks and line ends', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      for (const size of [1, 3, 1000]) {
        const c = new EventCounter(40);
        const stream = event('small', eol) + event('y'.repeat(100), eol);
        expect(inPieces(stream, size, (b) => c.add(b)).includes(false)).toBe(true);
      }
    }
  });

  it('one long event made of many data lines is one event', () => {
    const c = new EventCounter(40);
    const lines = Array.from({ length: 10 }, () => 'data: 12345\n').join('');
    expect(c.add(Buffer.from(lines))).toBe(false);
  });
});

describe('limitedFetch and the caller’s signal', () => {
  it('leaves no listener per request on the one signal the SDK passes to every request, and still passes its abort on', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 30_000).unref();
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const outer = new AbortController();
      const f = limitedFetch(1 << 20, { onTooLarge: () => undefined, onPostEnd: () => undefined });
      for (let i = 0; i < 40; i++) {
        const r = await f(`${base}/`, { method: 'POST', body: '{}', signal: outer.signal });
        expect(await r.text()).toBe('{"ok":true}');
      }
      // fetch keeps its listener on the signal it was given until the request is collected: not on this one.
      expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
      const slow = f(`${base}/slow`, { method: 'GET', signal: outer.signal });
      await new Promise((r) => setTimeout(r, 50));
      outer.abort(new Error('closed'));
      await expect(slow).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('ResumeSniffer: whether an answer stream can be resumed', () => {
  const feed = (...chunks: string[]) => {
    const s = new ResumeSniffer();
    for (const c of chunks) expect(s.add(new TextEncoder().encode(c))).toBe(true);
    return s.resume();
  };

  it('an event with an id makes it resumable, with the retry the server set; fields cut across chunks count', () => {
    expect(feed('id: 1\nretry: 250\ndata: \n\n')).toEqual({ retryMs: 250 });
    expect(feed('i', 'd:abc', '\r\n', 'ret', 'ry: 90\r\n\r\n')).toEqual({ retryMs: 90 });
    expect(feed('id: 7\ndata: {}\n\n')).toEqual({});
  });

  it('without an id it is not: the request fails at once when the stream ends', () => {
    expect(feed('retry: 100\ndata: {"jsonrpc":"2.0"}\n\n')).toBeUndefined();
    expect(feed('id:\ndata: x\n\n')).toBeUndefined();
    expect(feed('data: id: 3\n\n')).toBeUndefined();
  });
});
