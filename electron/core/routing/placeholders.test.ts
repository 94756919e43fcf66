import { describe, expect, it } from 'vitest';
import { appError } from '../builtin-functions/test-context';
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
    expect(PLACEHOLDER_NAMES).toEqual([
      'today', 'date', 'now', 'time', 'yyyy', 'mm', 'dd',
      'yesterday', 'tomorrow', 'this-week', 'last-week', 'this-month', 'last-month', 'day-name', 'month-name',
    ]);
  });

  it('values are safe in file names', () => {
    for (const name of PLACEHOLDER_NAMES) expect(expandPlaceholders(`{${name}}`, at)).toMatch(/^[0-9A-Za-z-]+$/);
  });

  const dates = (d: Date) =>
    expandPlaceholders('{yesterday} {tomorrow} {this-week} {last-week} {this-month} {last-month} {day-name} {month-name}', d).split(' ');

  it('days, weeks, months and names around a given day', () => {
    // Monday 2 November 2026: ISO week 45.
    expect(dates(at)).toEqual(['2026-11-01', '2026-11-03', '2026-W45', '2026-W44', '2026-11', '2026-10', 'Monday', 'November']);
    // Tuesday 24 November 2026, late in the evening.
    expect(dates(new Date(2026, 10, 24, 23, 59, 59))).toEqual(['2026-11-23', '2026-11-25', '2026-W48', '2026-W47', '2026-11', '2026-10', 'Tuesday', 'November']);
    // The last day of February in a leap year, and of a month of 30 days.
    expect(dates(new Date(2028, 1, 29, 0, 0, 0)).slice(0, 2)).toEqual(['2028-02-28', '2028-03-01']);
    expect(dates(new Date(2026, 3, 30, 12)).slice(0, 2)).toEqual(['2026-04-29', '2026-05-01']);
  });

  it('across the turn of the year: ISO weeks belong to the year of their Thursday', () => {
    // Thursday 1 January 2026 is in 2026-W01; Wednesday 31 December 2025 too.
    expect(dates(new Date(2026, 0, 1, 0, 0, 1))).toEqual(['2025-12-31', '2026-01-02', '2026-W01', '2025-W52', '2026-01', '2025-12', 'Thursday', 'January']);
    expect(dates(new Date(2025, 11, 31, 23, 59, 59))).toEqual(['2025-12-30', '2026-01-01', '2026-W01', '2025-W52', '2025-12', '2025-11', 'Wednesday', 'December']);
    // Friday 1 January 2027 is still in 2026-W53; Monday 4 January 2027 starts 2027-W01.
    expect(dates(new Date(2027, 0, 1, 9))).toEqual(['2026-12-31', '2027-01-02', '2026-W53', '2026-W52', '2027-01', '2026-12', 'Friday', 'January']);
    expect(dates(new Date(2027, 0, 4, 9)).slice(2, 4)).toEqual(['2027-W01', '2026-W53']);
    // Sunday 3 January 2027 ends 2026-W53 (weeks start on Monday).
    expect(dates(new Date(2027, 0, 3, 9)).slice(2, 4)).toEqual(['2026-W53', '2026-W52']);
    // 29 December 2025 (a Monday) already belongs to 2026-W01.
    expect(dates(new Date(2025, 11, 29, 9)).slice(2, 4)).toEqual(['2026-W01', '2025-W52']);
  });

  it('the ISO week agrees with a day-by-day count over several years', () => {
    // Walk every day from Monday 30 December 2024 (2025-W01) and count weeks by hand.
    let year = 2025;
    let week = 1;
    for (let i = 0; i < 3 * 366; i++) {
      const d = new Date(2024, 11, 30 + i, 8);
      if (d.getDay() === 1 && i > 0) {
        const thursday = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 3);
        if (thursday.getFullYear() !== year) [year, week] = [thursday.getFullYear(), 1];
        else week++;
      }
      expect(expandPlaceholders('{this-week}', d), d.toDateString()).toBe(`${year}-W${String(week).padStart(2, '0')}`);
    }
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
    expect(e.message).toBe(
      'unknown placeholder {week}: use {today}, {date}, {now}, {time}, {yyyy}, {mm}, {dd}, {yesterday}, {tomorrow}, {this-week}, {last-week}, {this-month}, {last-month}, {day-name}, {month-name}',
    );
    // Names of Object.prototype are not placeholders either.
    expect(unknownPlaceholders('{constructor}{toString}')).toEqual(['constructor', 'toString']);
  });
});
