import { describe, expect, it } from 'vitest';
import { MANIFEST_MAX_PATHS } from './limits';
import { buildManifest, formatCount, inputNoun, manifestText } from './manifest';

describe('manifest text', () => {
  it('the documented example, exactly', () => {
    expect(
      manifestText({ kind: 'input', name: 'file:notes/*', destination: 'variable:foo', count: 3, totalChars: 12340, paths: ['notes/2026-01-01', 'notes/2026-01-02', 'notes/2026-01-03'] }),
    ).toBe('[input routed] 3 files -> variable:foo (total 12,340 chars)\npaths: notes/2026-01-01, notes/2026-01-02, notes/2026-01-03');
  });

  it('tool results', () => {
    expect(manifestText({ kind: 'tool', name: 'readfile', destination: 'file:out/2026-01-01.md', count: 1, totalChars: 1234567, paths: [] })).toBe(
      '[tool routed] readfile -> file:out/2026-01-01.md (total 1,234,567 chars)',
    );
  });

  it('nouns per source, singular for one', () => {
    expect(manifestText({ kind: 'input', name: 'file:a.md', destination: 'discard', count: 1, totalChars: 0, paths: ['a.md'] })).toBe(
      '[input routed] 1 file -> discard (total 0 chars)\npaths: a.md',
    );
    expect(manifestText({ kind: 'input', name: 'variable:x', destination: 'file:x.md', count: 1, totalChars: 5, paths: [] })).toBe('[input routed] 1 buffer -> file:x.md (total 5 chars)');
    expect(manifestText({ kind: 'input', name: 'url:https://e.com', destination: 'variable:p', count: 1, totalChars: 5, paths: ['https://e.com/'] })).toBe(
      '[input routed] 1 url -> variable:p (total 5 chars)\npaths: https://e.com/',
    );
    expect(inputNoun('query:select')).toBe('item');
    expect(inputNoun('FILE:x')).toBe('file');
  });

  it('names at most MANIFEST_MAX_PATHS paths and counts the rest', () => {
    const paths = Array.from({ length: MANIFEST_MAX_PATHS + 1234 }, (_, i) => `n/${i}.md`);
    const text = manifestText({ kind: 'input', name: 'file:n/*.md', destination: 'variable:n', count: paths.length, totalChars: 1, paths });
    const line = text.split('\n')[1]!;
    expect(line.split(', ')).toHaveLength(MANIFEST_MAX_PATHS + 1);
    expect(line.endsWith(`n/${MANIFEST_MAX_PATHS - 1}.md, and 1,234 more`)).toBe(true);
  });

  it('buildManifest carries the parts and the text', () => {
    const m = buildManifest({ kind: 'tool', name: 't', destination: 'discard', target: { kind: 'discard' }, writeMode: 'append', count: 1, totalChars: 3, paths: [] });
    expect(m).toEqual({ kind: 'tool', name: 't', destination: 'discard', target: { kind: 'discard' }, writeMode: 'append', count: 1, totalChars: 3, paths: [], text: '[tool routed] t -> discard (total 3 chars)' });
    expect(formatCount(12340)).toBe('12,340');
  });
});
