import { describe, expect, it } from 'vitest';
import type { BlockVersion } from '../../../shared/model/memory';
import { diffCounts, diffLines, textDiff } from '../../components/diff-lines';
import { byText, canRedo, canUndo, compared, defaultCompare, ownersOf } from './memory-view';

const v = (seq: number, text: string, state: 'current' | 'undone' | '' = ''): BlockVersion => ({ seq, op: seq === 1 ? 'create' : 'append', by: 'c1', at: '2026-03-01T10:00:00.000Z', text, current: state === 'current', undone: state === 'undone' });

describe('memory view helpers', () => {
  it('offers the open conversation first, then other conversations, then agents', () => {
    const blocks = [{ owner: 'agent:scribe' }, { owner: 'conversation:b' }, { owner: 'conversation:a' }, { owner: 'conversation:b' }];
    expect(ownersOf(blocks, 'a')).toEqual(['conversation:a', 'conversation:b', 'agent:scribe']);
    expect(ownersOf(blocks, 'new')).toEqual(['conversation:new', 'conversation:a', 'conversation:b', 'agent:scribe']);
    expect(ownersOf([], null)).toEqual([]);
  });

  it('compares the version before the current one with it by default; undo and redo follow the current one', () => {
    const h = [v(1, 'a'), v(2, 'a\nb', 'current'), v(3, 'a\nb\nc', 'undone')];
    expect(defaultCompare(h)).toEqual({ from: 1, to: 2 });
    expect(canUndo(h)).toBe(true);
    expect(canRedo(h)).toBe(true);
    const first = [v(1, 'a', 'current'), v(2, 'a\nb', 'undone')];
    expect(defaultCompare(first)).toEqual({ from: 1, to: 2 });
    expect(canUndo(first)).toBe(false);
    expect(defaultCompare([v(1, 'a', 'current')])).toBeUndefined();
    expect(canRedo([v(1, 'a', 'current')])).toBe(false);
    expect(compared(h, { from: 1, to: 3 })?.to.text).toBe('a\nb\nc');
    expect(compared(h, { from: 1, to: 9 })).toBeUndefined();
  });

  it('splits a unified diff into lines that say what they are', () => {
    const lines = textDiff('likes tea\n', 'likes tea\nand cake\n', { before: 'version 1', after: 'version 2' });
    expect(lines.map((l) => l.kind)).toEqual(['header', 'header', 'hunk', 'same', 'add']);
    expect(lines.find((l) => l.kind === 'add')?.text).toBe('+and cake');
    expect(diffCounts(lines)).toEqual({ added: 1, removed: 0 });
    expect(textDiff('same', 'same', { before: 'a', after: 'b' })).toEqual([]);
    const core = diffLines("Index: p\n===================================================================\n--- p\tbefore\n+++ p\tafter\n@@ -1,1 +1,1 @@\n-Ada\n\\ No newline at end of file\n+Ada Lovelace\n\\ No newline at end of file\n");
    expect(core.map((l) => l.kind)).toEqual(['header', 'header', 'hunk', 'remove', 'add']);
    expect(diffCounts(core)).toEqual({ added: 1, removed: 1 });
  });
});

describe('the new block form', () => {
  it('reads Text as typed, a List one item per line, a Map as one JSON object', async () => {
    const { blockContent } = await import('./new-block');
    expect(blockContent('Text', 'a\nb')).toEqual({ ok: true, content: 'a\nb' });
    expect(blockContent('List', 'milk\n\n eggs\n')).toEqual({ ok: true, content: ['milk', ' eggs'] });
    expect(blockContent('Map', '{"name": "Ada"}')).toEqual({ ok: true, content: { name: 'Ada' } });
    expect(blockContent('Map', '')).toEqual({ ok: true, content: {} });
    expect(blockContent('Map', '[1]')).toEqual({ ok: false });
    expect(blockContent('Map', '{')).toEqual({ ok: false });
  });
});

describe('who made a version', () => {
  it('is you, this conversation, or the end of a long id', () => {
    expect(byText('user', 'c1')).toBe('you');
    expect(byText('01a20d77-cb60-7599-8df2-b84e8892c13e', '01a20d77-cb60-7599-8df2-b84e8892c13e')).toBe('this conversation');
    expect(byText('01a20d77-cb60-7599-8df2-b84e8892c13e', 'other')).toBe('…8892c13e');
    expect(byText('t1', null)).toBe('t1');
  });
});
