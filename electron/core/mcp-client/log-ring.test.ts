import { describe, expect, it } from 'vitest';
import { LOG_MESSAGE_MAX_CHARS, LogRing } from './log-ring';

describe('LogRing', () => {
  it('since(mark) gives the lines added after the mark, also once older lines were dropped', () => {
    const log = new LogRing(() => new Date(0), 3);
    log.add('stderr', 'first process');
    const mark = log.mark();
    log.addChunk('stderr', 'second a\nsecond b\n');
    expect(log.since(mark).map((l) => l.text)).toEqual(['second a', 'second b']);
    log.add('stderr', 'second c');
    log.add('stderr', 'second d');
    // Three lines kept: "second a" was dropped as well as the first process's line.
    expect(log.since(mark).map((l) => l.text)).toEqual(['second b', 'second c', 'second d']);
    expect(log.since(log.mark())).toEqual([]);
  });

  it('keeps a server’s log message with its level and logger, its data as text, cut to a sane length', () => {
    const log = new LogRing(() => new Date(0));
    log.message('warning', 'db', 'connection lost');
    log.message('info', undefined, { rows: 3, ok: true });
    log.message('error', '', 'x'.repeat(LOG_MESSAGE_MAX_CHARS + 50));
    log.message('debug', 'l'.repeat(300), null);
    const lines = log.list();
    expect(lines[0]).toEqual({ at: new Date(0).toISOString(), stream: 'message', level: 'warning', logger: 'db', text: 'connection lost' });
    expect(lines[1]).toEqual({ at: new Date(0).toISOString(), stream: 'message', level: 'info', text: '{"rows":3,"ok":true}' });
    expect(lines[2]!.text).toBe(`${'x'.repeat(LOG_MESSAGE_MAX_CHARS)}… (50 more characters)`);
    expect(lines[2]!.logger).toBeUndefined();
    expect(lines[3]).toMatchObject({ level: 'debug', text: 'null' });
    expect(lines[3]!.logger).toHaveLength(100);
  });
});
