import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Destination, WriteMode } from '../model/routing';
import { formatDestinationValue, formatToolToken, parseDestination, parseDirectives, quoteValue, trimBlankLines, workspacePathProblem } from './parser';
import type { ParsedText, Span } from './types';

/** Fragments that reach deep into the grammar when strung together at random. */
const directiveish = fc
  .array(
    fc.constantFrom(
      '@tools', '@input', '@model', ' ', '  ', '\t', '\n', '\r\n', '(', ')', ',', '=', '"', '\\', '#', '```', 'output', 'write-mode',
      'variable:', 'file:', 'url:', 'inline', 'discard', 'none', 'append', 'replace', 'new', 'a', 'b/c', '..', '/', '{today}', 'é', '😀', '\0',
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

const anyText = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 200 }), directiveish, directiveish.map((s) => `@tools ${s}`), directiveish.map((s) => `@input ${s}`));

function checkSpan(text: string, s: Span): void {
  expect(s.start).toBeGreaterThanOrEqual(0);
  expect(s.end).toBeGreaterThanOrEqual(s.start);
  expect(s.end).toBeLessThanOrEqual(text.length);
  const before = text.slice(0, s.start);
  const lineStart = before.lastIndexOf('\n') + 1;
  expect(s.line).toBe(before.split('\n').length);
  expect(s.column).toBe(s.start - lineStart + 1);
}

function allSpans(r: ParsedText): Span[] {
  const spans: Span[] = [...r.errors];
  for (const d of r.directives) {
    spans.push(d.span);
    if (d.kind === 'tools') spans.push(...d.tools.map((t) => t.span));
  }
  return spans;
}

// ---- generators of valid directives --------------------------------------------------------

const nameChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABC0123456789_-'.split(''));
const slug = fc.string({ unit: nameChar, minLength: 1, maxLength: 12 });
const toolName = fc.oneof(slug, fc.tuple(slug, slug).map(([b, s]) => `${b}/${s}`));
const bufferName = fc.tuple(fc.constantFrom('a', 'Z', '_', '7'), fc.string({ unit: fc.constantFrom(...'abc_.-019'.split('')), maxLength: 20 })).map(([h, t]) => h + t);
const pathSegment = fc.string({ unit: fc.constantFrom(...'abcxyz019_-.{}#,()" \\é'.split('')), minLength: 1, maxLength: 10 });
const relPath = fc
  .array(pathSegment, { minLength: 1, maxLength: 4 })
  .map((segs) => segs.join('/'))
  .filter((p) => workspacePathProblem(p) === null);
const destination: fc.Arbitrary<Destination> = fc.oneof(
  fc.constant({ kind: 'inline' } as const),
  fc.constant({ kind: 'discard' } as const),
  bufferName.map((name) => ({ kind: 'variable', name }) as const),
  relPath.map((path) => ({ kind: 'file', path }) as const),
);
const writeMode: fc.Arbitrary<WriteMode> = fc.constantFrom('append', 'replace', 'new');
const toolToken = fc.record({ name: toolName, output: fc.option(destination, { nil: undefined }), writeMode: fc.option(writeMode, { nil: undefined }) });

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

describe('parser properties', () => {
  it('never throws, and every span lies within the text with its line and column', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const r = parseDirectives(text);
        for (const s of allSpans(r)) checkSpan(text, s);
        for (const h of r.highlights) {
          expect(h.start).toBeGreaterThanOrEqual(0);
          expect(h.end).toBeGreaterThan(h.start);
          expect(h.end).toBeLessThanOrEqual(text.length);
        }
        for (const e of r.errors) expect(e.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('parseDestination never throws and its destinations are well formed', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), directiveish), (text) => {
        const r = parseDestination(text);
        if (r.ok && r.destination.kind === 'file') expect(r.destination.path.split('/')).not.toContain('..');
        if (!r.ok) expect(r.message).not.toBe('');
      }),
      { numRuns: 1000 },
    );
  });

  it('a formatted @tools directive parses back to the same tools and parameters', () => {
    fc.assert(
      fc.property(fc.array(toolToken, { minLength: 1, maxLength: 6 }), fc.array(fc.constantFrom(', ', ',', ' , ', ',\n    ', ', # note\n  '), { minLength: 6, maxLength: 6 }), fc.boolean(), (tokens, seps, spaceBeforeParen) => {
        const formatted = tokens.map((t) => {
          const s = formatToolToken(t);
          return spaceBeforeParen ? s.replace('(', ' (') : s;
        });
        let text = `@tools ${formatted[0]}`;
        for (let i = 1; i < formatted.length; i++) text += seps[i - 1] + formatted[i];
        const r = parseDirectives(`${text}\nThe prompt.`);
        expect(r.errors).toEqual([]);
        expect(r.prompt).toBe('The prompt.');
        expect(r.directives).toHaveLength(1);
        const d = r.directives[0]!;
        if (d.kind !== 'tools') throw new Error('expected a tools directive');
        expect(d.tools.map((t) => withoutUndefined({ name: t.name, output: t.output, writeMode: t.writeMode }))).toEqual(tokens.map(withoutUndefined));
      }),
      { numRuns: 500 },
    );
  });

  it('aggregation: the last output= and write-mode= given for a tool win', () => {
    fc.assert(
      fc.property(fc.array(fc.array(toolToken, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (lines) => {
        const r = parseDirectives(lines.map((ts) => `@tools ${ts.map(formatToolToken).join(', ')}`).join('\n'));
        expect(r.errors).toEqual([]);
        const expected = new Map<string, Record<string, unknown>>();
        for (const t of lines.flat()) {
          const e = expected.get(t.name) ?? { name: t.name };
          if (t.output) e.output = t.output;
          if (t.writeMode) e.writeMode = t.writeMode;
          expected.set(t.name, e);
        }
        expect(r.tools).toEqual([...expected.values()]);
      }),
      { numRuns: 300 },
    );
  });

  it('a formatted @input directive parses back', () => {
    const source = fc.oneof(relPath.map((v) => ({ scheme: 'file', value: v })), bufferName.map((v) => ({ scheme: 'variable', value: v })), fc.constantFrom({ scheme: 'url', value: 'https://example.com/a?b=c#d' }));
    fc.assert(
      fc.property(source, fc.option(destination, { nil: undefined }), fc.option(writeMode, { nil: undefined }), fc.boolean(), (src, output, mode, comment) => {
        const params = [output && `output=${formatDestinationValue(output)}`, mode && `write-mode=${mode}`].filter(Boolean);
        const text = `@input ${src.scheme}:${quoteValue(src.value)}${params.length ? ` (${params.join(', ')})` : ''}${comment ? '  # note' : ''}`;
        const r = parseDirectives(text);
        expect(r.errors).toEqual([]);
        // A value that needed quotes was quoted whole: all of it is literal.
        const expected = quoteValue(src.value) === src.value ? src : { ...src, quoted: [[0, src.value.length]] };
        expect(r.directives).toEqual([expect.objectContaining({ kind: 'input', source: expected, params: withoutUndefined({ output, writeMode: mode }) })]);
      }),
      { numRuns: 500 },
    );
  });

  it('a text without directive lines has no directives and its prompt is the text without outer blank lines', () => {
    const noDirective = fc.string({ maxLength: 300 }).filter((t) => !t.split('\n').some((l) => /^\s*@/.test(l)));
    const prose = fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '  ', 'tools @tools x', 'a @input file:b', '\t')), { maxLength: 10 }).map((ls) => ls.join('\n'));
    fc.assert(
      fc.property(fc.oneof(noDirective, prose.filter((t) => !t.split('\n').some((l) => /^\s*@/.test(l)))), (text) => {
        const r = parseDirectives(text);
        expect(r.directives).toEqual([]);
        expect(r.errors).toEqual([]);
        expect(r.tools).toEqual([]);
        expect(r.modelNone).toBe(false);
        expect(r.prompt).toBe(trimBlankLines(text));
      }),
      { numRuns: 1000 },
    );
  });
});
