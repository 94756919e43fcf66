import { describe, expect, it } from 'vitest';
import { applyDelta, applyTurn, EMPTY_STREAM, pendingOf, settle } from './stream-state';

const delta = (messageId: string, text: string, turnId = 't1', conversationId = 'c1') => ({ conversationId, turnId, messageId, text });

describe('stream state', () => {
  it('accumulates chunks per message in the order the messages began', () => {
    let s = EMPTY_STREAM;
    s = applyDelta(s, delta('a', 'Hel'));
    s = applyDelta(s, delta('b', 'Other', 't9', 'c2'));
    s = applyDelta(s, delta('a', 'lo'));
    s = applyDelta(s, delta('a', ''));
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
});
