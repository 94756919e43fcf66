/**
 * The size limits as bytes arrive in chunks cut anywhere: a stdio line (LineReader) and one event
 * of an HTTP event stream (EventCounter).
 */
import { describe, expect, it } from 'vitest';
import { EventCounter } from './http-limits';
import { LineReader, MessageTooLargeError } from './stdio-transport';

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
