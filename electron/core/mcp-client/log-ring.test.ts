import { describe, expect, it } from 'vitest';
import { LogRing } from './log-ring';

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
});
