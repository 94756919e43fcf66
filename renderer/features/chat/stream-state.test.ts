import { describe, expect, it } from 'vitest';
import { applyDelta, applyTurn, EMPTY_STREAM, pendingOf, seed, settle } from './stream-state';

const delta = (messageId: string, text: string, at = 0, turnId = 't1', conversationId = 'c1') => ({ conversationId, turnId, messageId, text, at });

describe('stream state', () => {
  it('accumulates chunks per message in the order the messages began', () => {
    let s = EMPTY_STREAM;
    s = applyDelta(s, delta('a', 'Hel'));
    s = applyDelta(s, delta('b', 'Other', 0, 't9', 'c2'));
    s = applyDelta(s, delta('a', 'lo', 3));
    s = applyDelta(s, delta('a', '', 5));
    s = applyDelta(s, delta('c', ' world'));
    expect(pendingOf(s, 'c1', new Set()).map((p) => [p.messageId, p.text])).toEqual([
      ['a', 'Hello'],
      ['c', ' world'],
    ]);
    expect(s.running).toEqual({ c1: 't1', c2: 't9' });
  });

  it('tracks the running turn of each conversation; an old turn ending does not stop a new one', () => {
    let s = applyTurn(EMPTY_STREAM, { conversationId: 'c1', turnId: 't1', state: 'running' }, 1);
    expect(s.running.c1).toBe('t1');
    s = applyTurn(s, { conversationId: 'c1', turnId: 't2', state: 'running' }, 2);
    s = applyTurn(s, { conversationId: 'c1', turnId: 't1', state: 'done' }, 3);
    expect(s.running.c1).toBe('t2');
    s = applyTurn(s, { conversationId: 'c1', turnId: 't2', state: 'stopped' }, 4);
    expect(s.running.c1).toBeUndefined();
  });

  it('hides pending text once its row is stored, and drops an ended turn’s text once read after the end', () => {
    let s = applyDelta(EMPTY_STREAM, delta('a', 'one'));
    s = applyDelta(s, delta('b', 'two'));
    expect(pendingOf(s, 'c1', new Set(['a'])).map((p) => p.messageId)).toEqual(['b']);
    s = settle(s, 'c1', new Set(['a']), 10);
    expect(s.pending.map((p) => p.messageId)).toEqual(['b']);
    // The turn still runs: a read does not drop what is streaming.
    s = settle(s, 'c1', new Set(), 20);
    expect(s.pending).toHaveLength(1);
    s = applyTurn(s, { conversationId: 'c1', turnId: 't1', state: 'done' }, 30);
    s = settle(s, 'c1', new Set(), 25);
    expect(s.pending).toHaveLength(1);
    s = settle(s, 'c1', new Set(), 31);
    expect(s.pending).toHaveLength(0);
  });

  it('a view opened mid-stream shows the row from its beginning: the text read joined to the chunks heard', () => {
    const text = (s: typeof EMPTY_STREAM) => pendingOf(s, 'c1', new Set()).map((p) => p.text);
    // Chunks heard after the reload, the read answered after them (it holds some of them).
    let s = applyDelta(EMPTY_STREAM, delta('a', 'three ', 8));
    s = applyDelta(s, delta('a', 'four ', 14));
    s = seed(s, 'c1', { turnId: 't1', messageId: 'a', text: 'one two three ' });
    expect(text(s)).toEqual(['one two three four ']);
    // A chunk the read held already adds only what is new; later ones go on from there.
    s = applyDelta(s, delta('a', 'four five ', 14));
    s = applyDelta(s, delta('a', 'six', 24));
    expect(text(s)).toEqual(['one two three four five six']);
    // An older read changes nothing.
    expect(seed(s, 'c1', { turnId: 't1', messageId: 'a', text: 'one two' })).toBe(s);

    // The read answered before any chunk arrived: the chunks follow it.
    let t = seed(EMPTY_STREAM, 'c1', { turnId: 't1', messageId: 'b', text: 'Hel' });
    t = applyDelta(t, delta('b', 'lo', 3));
    expect(pendingOf(t, 'c1', new Set()).map((p) => p.text)).toEqual(['Hello']);
    // Chunks that begin past the text read leave a gap the read cannot fill: they stay as they are.
    const gap = applyDelta(EMPTY_STREAM, delta('c', 'later', 40));
    expect(seed(gap, 'c1', { turnId: 't1', messageId: 'c', text: 'early' })).toBe(gap);
  });
});
