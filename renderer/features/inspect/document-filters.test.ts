import { describe, expect, it } from 'vitest';
import type { DocumentInfo } from '../../../shared/model/document';
import { creatorLabel, describeDraftOf, describePatch, DOCUMENT_LIST_LIMIT, emptyFilters, filterChoices, hasFilters, parseTags, queryOf, shortHash, tagsProblem, withTag } from './document-filters';

const doc = (path: string, extra: Partial<DocumentInfo> = {}): DocumentInfo => ({
  path,
  createdBy: 'user',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedBy: 'user',
  updatedAt: '2026-01-01T00:00:00.000Z',
  mimeType: 'text/plain',
  sizeBytes: 10,
  autoSummary: '',
  description: '',
  tags: [],
  ...extra,
});

describe('document filters', () => {
  it('reads the tags box: trimmed, no empties, each once, in order', () => {
    expect(parseTags(' report, draft,,report , q3 ')).toEqual(['report', 'draft', 'q3']);
    expect(parseTags(' , ')).toEqual([]);
    expect(withTag('a, b', 'c')).toBe('a, b, c');
    expect(withTag('a, b', 'a')).toBe('a, b');
    expect(withTag('', 'a')).toBe('a');
  });

  it('makes a query of what is set only', () => {
    expect(queryOf(emptyFilters())).toEqual({ limit: DOCUMENT_LIST_LIMIT });
    expect(hasFilters(emptyFilters())).toBe(false);
    const f = { tags: 'report, ', mimeType: 'text/', createdBy: 'task-1', words: '  sales q3 ' };
    expect(queryOf(f)).toEqual({ tags: ['report'], mimeType: 'text/', createdBy: 'task-1', text: 'sales q3', limit: DOCUMENT_LIST_LIMIT });
    expect(hasFilters({ ...emptyFilters(), tags: ' , ' })).toBe(false);
    expect(hasFilters({ ...emptyFilters(), words: 'x' })).toBe(true);
  });

  it('offers the types, families with more than one type, creators and tags there are', () => {
    const docs = [
      doc('a.csv', { mimeType: 'text/csv', createdBy: 'task-2', tags: ['data'] }),
      doc('b.md', { mimeType: 'text/markdown', tags: ['report', 'data'] }),
      doc('c.png', { mimeType: 'image/png' }),
    ];
    const c = filterChoices(docs);
    expect(c.mimeTypes).toEqual([
      { value: 'text/', count: 2, family: true },
      { value: 'image/png', count: 1, family: false },
      { value: 'text/csv', count: 1, family: false },
      { value: 'text/markdown', count: 1, family: false },
    ]);
    expect(c.creators).toEqual([
      { value: 'task-2', count: 1 },
      { value: 'user', count: 2 },
    ]);
    expect(c.tags).toEqual([
      { value: 'data', count: 2 },
      { value: 'report', count: 1 },
    ]);
    // A choice no document has any more stays offered, so the select shows it.
    const kept = filterChoices([], { ...emptyFilters(), mimeType: 'text/csv', createdBy: 'task-9' });
    expect(kept.mimeTypes).toEqual([{ value: 'text/csv', family: false, count: 0 }]);
    expect(kept.creators).toEqual([{ value: 'task-9', count: 0 }]);
  });
});

describe('describing a document', () => {
  it('sends only what changed', () => {
    const d = doc('a.md', { description: 'Sales', tags: ['report'] });
    expect(describePatch(d, describeDraftOf(d))).toEqual({});
    expect(describePatch(d, { description: ' Sales ', tags: 'report,' })).toEqual({});
    expect(describePatch(d, { description: 'Sales Q3', tags: 'report' })).toEqual({ description: 'Sales Q3' });
    expect(describePatch(d, { description: 'Sales', tags: 'report, q3' })).toEqual({ tags: ['report', 'q3'] });
    expect(describePatch(d, { description: 'Sales', tags: '' })).toEqual({ tags: [] });
  });

  it('names what the core would refuse in the tags box', () => {
    const many = (k: number) => Array.from({ length: k }, (_, i) => `t${i}`).join(',');
    expect(tagsProblem(many(50), (k) => `many ${k}`, (t) => `long ${t}`)).toBeUndefined();
    expect(tagsProblem(many(51), (k) => `many ${k}`, (t) => `long ${t}`)).toBe('many 51');
    expect(tagsProblem('ok, ' + 'x'.repeat(101), (k) => `many ${k}`, () => 'long')).toBe('long');
  });

  it('names a creator as a person reads it', () => {
    const titles = new Map([['c-1', 'Sales chat']]);
    const words = { user: 'you', conversation: (t: string) => `chat “${t}”` };
    expect(creatorLabel('user', titles, words)).toBe('you');
    expect(creatorLabel('c-1', titles, words)).toBe('chat “Sales chat”');
    expect(creatorLabel('task-7', titles, words)).toBe('task-7');
  });

  it('shortens a hash', () => {
    expect(shortHash('0123456789abcdef')).toBe('0123456789');
    expect(shortHash('sha256:abcdef0123456789')).toBe('abcdef0123');
  });
});
