import { describe, expect, it } from 'vitest';
import { appError } from '../tools/test-context';
import { expandPlaceholders, PLACEHOLDER_NAMES, unknownPlaceholders } from './placeholders';

// Local time, so the expected values do not depend on the machine's time zone.
const at = new Date(2026, 10, 2, 7, 5, 9);

describe('expandPlaceholders', () => {
  it('expands every placeholder with the local date and time', () => {
    expect(expandPlaceholders('archive/{today}', at)).toBe('archive/2026-11-02');
    expect(expandPlaceholders('{date}', at)).toBe('2026-11-02');
    expect(expandPlaceholders('run-{now}.md', at)).toBe('run-2026-11-02T07-05-09.md');
    expect(expandPlaceholders('{time}', at)).toBe('07-05-09');
    expect(expandPlaceholders('{yyyy}/{mm}/{dd}/{today}-{today}', at)).toBe('2026/11/02/2026-11-02-2026-11-02');
    expect(PLACEHOLDER_NAMES).toEqual(['today', 'date', 'now', 'time', 'yyyy', 'mm', 'dd']);
  });

  it('values are safe in file names', () => {
    for (const name of PLACEHOLDER_NAMES) expect(expandPlaceholders(`{${name}}`, at)).toMatch(/^[0-9T-]+$/);
  });

  it('leaves text without placeholders and glob braces alone', () => {
    expect(expandPlaceholders('notes/{a,b}/*.md', at)).toBe('notes/{a,b}/*.md');
    expect(expandPlaceholders('plain.txt', at)).toBe('plain.txt');
    expect(expandPlaceholders('{}', at)).toBe('{}');
  });

  it('an unknown placeholder is a clear error', async () => {
    expect(unknownPlaceholders('{today}/{week}/{Today}/{week}')).toEqual(['week', 'Today']);
    const e = await appError(async () => expandPlaceholders('out/{week}.md', at));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toBe('unknown placeholder {week}: use {today}, {date}, {now}, {time}, {yyyy}, {mm}, {dd}');
    // Names of Object.prototype are not placeholders either.
    expect(unknownPlaceholders('{constructor}{toString}')).toEqual(['constructor', 'toString']);
  });
});
