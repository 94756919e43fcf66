import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { SseCollector, type SseEvent } from './sse';

const enc = (s: string) => new TextEncoder().encode(s);

describe('SseCollector', () => {
  it('delivers events as they complete and returns them all', () => {
    const seen: SseEvent[] = [];
    const c = new SseCollector({ onEvent: (e) => seen.push(e), maxBufferChars: 1024 });
    c.feed(enc('data: one\n\n: comment\nevent: delta\nid: 7\ndata: two\ndata: lines\n'));
    expect(seen).toEqual([{ data: 'one' }]);
    c.feed(enc('\nretry: 100\ndata: [DONE]\n\n'));
    expect(c.finish()).toEqual([{ data: 'one' }, { event: 'delta', id: '7', data: 'two\nlines' }, { data: '[DONE]' }]);
    expect(seen).toHaveLength(3);
    expect(c.count).toBe(3);
  });

  it('keeps a UTF-8 character split across chunks whole, and CRLF line ends', () => {
    const bytes = enc('data: é✓\r\n\r\n');
    const c = new SseCollector({ maxBufferChars: 1024 });
    for (const b of bytes) c.feed(new Uint8Array([b]));
    expect(c.finish()).toEqual([{ data: 'é✓' }]);
  });

  it('drops an event left unfinished at the end of the stream', () => {
    const c = new SseCollector({ maxBufferChars: 1024 });
    c.feed(enc('data: a\n\ndata: partial'));
    expect(c.finish()).toEqual([{ data: 'a' }]);
  });

  it('refuses an event larger than the buffer with PAYLOAD_TOO_LARGE', () => {
    const c = new SseCollector({ maxBufferChars: 100 });
    expect(() => c.feed(enc(`data: ${'x'.repeat(500)}`))).toThrowError(AppError);
    try {
      c.finish();
    } catch (e) {
      expect((e as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('a listener that throws does not stop the stream', () => {
    const c = new SseCollector({
      onEvent: () => {
        throw new Error('listener bug');
      },
      maxBufferChars: 1024,
    });
    c.feed(enc('data: a\n\ndata: b\n\n'));
    expect(c.finish()).toHaveLength(2);
  });

  it('keeps at most maxEvents but delivers all', () => {
    let delivered = 0;
    const c = new SseCollector({ onEvent: () => delivered++, maxBufferChars: 1024, maxEvents: 2 });
    c.feed(enc('data: 1\n\ndata: 2\n\ndata: 3\n\n'));
    expect(c.finish()).toHaveLength(2);
    expect(delivered).toBe(3);
  });
});
