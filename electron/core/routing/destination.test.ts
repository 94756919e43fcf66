import { describe, expect, it } from 'vitest';
import { appError } from '../builtin-functions/test-context';
import { destinationFromText, destinationProblem, resolveFilePath } from './destination';

describe('destinationFromText', () => {
  it('reads the palette output field; blank or absent is inline', () => {
    expect(destinationFromText(undefined)).toEqual({ kind: 'inline' });
    expect(destinationFromText('  ')).toEqual({ kind: 'inline' });
    expect(destinationFromText('variable:results')).toEqual({ kind: 'variable', name: 'results' });
    expect(destinationFromText('file:out/{today}.md')).toEqual({ kind: 'file', path: 'out/{today}.md' });
  });

  it('refuses malformed destinations and unknown placeholders with VALIDATION_FAILED', async () => {
    for (const [text, message] of [
      ['variable:', 'output: variable: needs a buffer name (variable:NAME)'],
      ['file:../x', "output: file destinations must be relative to the workspace: '..' may not leave it (got '../x')"],
      ['file:out/{week}.md', 'output: unknown placeholder {week}: use {today}, {date}, {now}, {time}, {yyyy}, {mm}, {dd}, {yesterday}, {tomorrow}, {this-week}, {last-week}, {this-month}, {last-month}, {day-name}, {month-name}'],
      ['elsewhere', "output: unknown destination 'elsewhere': use inline, discard, variable:NAME or file:PATH"],
    ]) {
      const e = await appError(async () => destinationFromText(text));
      expect(e.code, text).toBe('VALIDATION_FAILED');
      expect(e.message).toBe(message);
      expect(e.details).toEqual({ field: 'output' });
    }
  });
});

describe('resolveFilePath / destinationProblem', () => {
  it('expands placeholders and re-checks the result', async () => {
    expect(resolveFilePath('archive/{today}', new Date(2026, 0, 31))).toBe('archive/2026-01-31');
    expect((await appError(async () => resolveFilePath('/abs/{today}', new Date()))).code).toBe('FORBIDDEN');
    expect((await appError(async () => resolveFilePath('{nope}', new Date()))).code).toBe('VALIDATION_FAILED');
    expect(destinationProblem({ kind: 'file', path: 'a/{x}' })).toMatch(/unknown placeholder \{x\}/);
    expect(destinationProblem({ kind: 'variable', name: 'x' })).toBeNull();
  });
});
