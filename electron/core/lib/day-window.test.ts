import { describe, expect, it } from 'vitest';
import { checkTimeZone, lastDays } from './day-window';

describe('lastDays', () => {
  it('gives UTC days oldest first, today last, each [midnight, next midnight)', () => {
    const days = lastDays(new Date('2026-03-02T12:00:00Z'), 'UTC', 3);
    expect(days).toEqual([
      { date: '2026-02-28', start: '2026-02-28T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' },
      { date: '2026-03-01', start: '2026-03-01T00:00:00.000Z', end: '2026-03-02T00:00:00.000Z' },
      { date: '2026-03-02', start: '2026-03-02T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z' },
    ]);
  });

  it('follows the zone: its date for now, its midnights, a 23-hour day where clocks go forward', () => {
    // 23:30 UTC on the 28th is already the 29th in Berlin; that night clocks go from 02:00 to 03:00.
    const days = lastDays(new Date('2026-03-28T23:30:00Z'), 'Europe/Berlin', 2);
    expect(days).toEqual([
      { date: '2026-03-28', start: '2026-03-27T23:00:00.000Z', end: '2026-03-28T23:00:00.000Z' },
      { date: '2026-03-29', start: '2026-03-28T23:00:00.000Z', end: '2026-03-29T22:00:00.000Z' },
    ]);
    expect(lastDays(new Date('2026-11-24T03:00:00Z'), 'Asia/Kathmandu', 1)).toEqual([
      { date: '2026-11-24', start: '2026-11-23T18:15:00.000Z', end: '2026-11-24T18:15:00.000Z' },
    ]);
  });

  it('refuses a zone it does not know, in words', () => {
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(/'Mars\/Olympus' is not a time zone/);
    expect(checkTimeZone('America/New_York')).toBe('America/New_York');
  });
});
