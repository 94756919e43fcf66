import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../shared/model/conversation';
import { loadedBlockNote } from './memory-context';

const card = (slug: string, value: unknown, status = 'ok', bundleId = 'memory-bundle') => ({ slug, status, bundleId, value }) as unknown as ToolCard;
const isMemory = (id: string) => id === 'memory-bundle';

describe('a loaded block in later batches', () => {
  it('is a note, not the content, for `block load` and for `file load`', () => {
    const fromBlock = loadedBlockNote(card('block', { op: 'load', block: { label: 'persona' } }), isMemory);
    const fromFile = loadedBlockNote(card('file', { op: 'load', label: 'file:1a2b3c4d:notes/todo.md', content: 'the whole file' }), isMemory);
    expect(fromBlock).toMatch(/persona/);
    expect(fromFile).toMatch(/file:1a2b3c4d:notes\/todo\.md/);
    expect(fromFile).not.toMatch(/the whole file/);
  });

  it('leaves other results as they are', () => {
    expect(loadedBlockNote(card('file', { op: 'save', label: 'file:1a2b3c4d:a.md' }), isMemory)).toBeUndefined();
    expect(loadedBlockNote(card('file', { op: 'load', label: 'x' }, 'error'), isMemory)).toBeUndefined();
    expect(loadedBlockNote(card('file', { op: 'load', label: 'x' }, 'ok', 'other-bundle'), isMemory)).toBeUndefined();
    expect(loadedBlockNote(card('readfile', { op: 'load', label: 'x' }), isMemory)).toBeUndefined();
  });
});
