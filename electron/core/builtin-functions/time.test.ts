import { describe, expect, it } from 'vitest';
import { createTimeFunctions } from './time';
import { appError, call, testContext } from './test-context';

const t = createTimeFunctions();
const ctx = testContext('/nonexistent-workspace', { now: () => new Date('2025-03-01T12:00:00.000Z') });

describe('time.now', () => {
  it('gives the injected clock in UTC and in a zone', async () => {
    expect(await call(t.now, ctx, {})).toEqual({
      iso: '2025-03-01T12:00:00.000Z',
      unix: 1740830400,
      unixMs: 1740830400000,
      timeZone: 'UTC',
      local: '2025-03-01T12:00:00.000+00:00',
      date: '2025-03-01',
      time: '12:00:00',
      offset: '+00:00',
      weekday: 'Saturday',
    });
    expect(await call(t.now, ctx, { timeZone: 'Asia/Tokyo' })).toMatchObject({ local: '2025-03-01T21:00:00.000+09:00', offset: '+09:00', iso: '2025-03-01T12:00:00.000Z' });
    expect(await call(t.now, ctx, { timeZone: 'America/Los_Angeles' })).toMatchObject({ local: '2025-03-01T04:00:00.000-08:00', weekday: 'Saturday' });
    expect(await call(t.now, ctx, { timeZone: 'Asia/Kathmandu' })).toMatchObject({ offset: '+05:45' });
  });

  it('refuses an unknown time zone with VALIDATION_FAILED', async () => {
    for (const timeZone of ['Mars/Olympus', 'Europe/Pariss', 'not a zone', '../etc', '']) {
      const e = await appError(call(t.now, ctx, { timeZone }));
      expect(e.code, timeZone).toBe('VALIDATION_FAILED');
    }
    expect((await appError(call(t.now, ctx, { timeZone: 'Mars/Olympus' }))).message).toBe(
      "timeZone: 'Mars/Olympus' is not a known time zone: use an IANA name such as 'Europe/Paris', 'America/New_York' or 'UTC'",
    );
  });
});

describe('time.convert', () => {
  it('converts a wall-clock time from one zone to another', async () => {
    const r = await call(t.convert, ctx, { time: '2025-07-01 09:00', fromZone: 'Europe/Paris', toZone: 'America/New_York' });
    expect(r).toMatchObject({
      from: { local: '2025-07-01T09:00:00.000+02:00', iso: '2025-07-01T07:00:00.000Z' },
      to: { local: '2025-07-01T03:00:00.000-04:00', timeZone: 'America/New_York', weekday: 'Tuesday' },
    });
  });

  it('uses an explicit offset over fromZone, reads unix seconds and now', async () => {
    expect(await call(t.convert, ctx, { time: '2025-01-01T00:00:00+05:30', fromZone: 'America/New_York', toZone: 'UTC' })).toMatchObject({ to: { iso: '2024-12-31T18:30:00.000Z' } });
    expect(await call(t.convert, ctx, { time: '2025-01-01T00:00:00Z', toZone: 'Asia/Kolkata' })).toMatchObject({ to: { local: '2025-01-01T05:30:00.000+05:30' } });
    expect(await call(t.convert, ctx, { time: '1735689600', toZone: 'Europe/Paris' })).toMatchObject({ to: { local: '2025-01-01T01:00:00.000+01:00' } });
    expect(await call(t.convert, ctx, { toZone: 'Asia/Tokyo' })).toMatchObject({ to: { local: '2025-03-01T21:00:00.000+09:00' } });
    expect(await call(t.convert, ctx, { time: 'now', toZone: 'UTC' })).toMatchObject({ to: { iso: '2025-03-01T12:00:00.000Z' } });
    expect(await call(t.convert, ctx, { time: '2025-01-01T10:20:30.456-0800', toZone: 'UTC' })).toMatchObject({ to: { iso: '2025-01-01T18:20:30.456Z' } });
  });

  it('moves a time skipped by DST forward, and takes the earlier of a repeated one', async () => {
    expect(await call(t.convert, ctx, { time: '2025-03-09 02:30', fromZone: 'America/New_York', toZone: 'UTC' })).toMatchObject({
      from: { local: '2025-03-09T03:30:00.000-04:00' },
      to: { iso: '2025-03-09T07:30:00.000Z' },
    });
    expect(await call(t.convert, ctx, { time: '2025-11-02 01:30', fromZone: 'America/New_York', toZone: 'UTC' })).toMatchObject({
      from: { local: '2025-11-02T01:30:00.000-04:00' },
      to: { iso: '2025-11-02T05:30:00.000Z' },
    });
  });

  it('refuses times it cannot read and unknown zones', async () => {
    for (const time of ['tomorrow', '2025-02-30', '2025-13-01', '2025-01-01T25:00', '01/02/2025', '2025-01-01T10:00+25:00']) {
      expect((await appError(call(t.convert, ctx, { time, toZone: 'UTC' }))).code, time).toBe('VALIDATION_FAILED');
    }
    expect(await appError(call(t.convert, ctx, { time: '2025-01-01', toZone: 'Nowhere/City' }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'toZone' } });
    expect(await appError(call(t.convert, ctx, { time: '2025-01-01', fromZone: 'Nowhere/City', toZone: 'UTC' }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'fromZone' } });
  });
});

describe('time.date-math', () => {
  const add = (args: Record<string, unknown>) => call(t['date-math'], ctx, { operation: 'add', ...args }) as Promise<{ result: { local: string; iso: string } }>;

  it('adds calendar units on the wall clock, clamping to the end of the month', async () => {
    expect((await add({ date: '2024-01-31', months: 1 })).result.local).toBe('2024-02-29T00:00:00.000+00:00');
    expect((await add({ date: '2024-02-29', years: 1 })).result.local).toBe('2025-02-28T00:00:00.000+00:00');
    expect((await add({ date: '2025-01-31T10:00:00Z', months: 13, days: 1 })).result.iso).toBe('2026-03-01T10:00:00.000Z');
    expect((await add({ date: '2025-03-01', weeks: 2, hours: 36, minutes: 30, seconds: 5 })).result.iso).toBe('2025-03-16T12:30:05.000Z');
  });

  it('keeps the local time across a DST change for days, but not for hours', async () => {
    const day = await add({ date: '2025-03-08T12:00', timeZone: 'America/New_York', days: 1 });
    expect(day.result.local).toBe('2025-03-09T12:00:00.000-04:00');
    const hours = await add({ date: '2025-03-08T12:00', timeZone: 'America/New_York', hours: 24 });
    expect(hours.result.local).toBe('2025-03-09T13:00:00.000-04:00');
  });

  it('subtracts, and uses now by default', async () => {
    expect(await call(t['date-math'], ctx, { operation: 'subtract', months: 1 })).toMatchObject({ start: { iso: '2025-03-01T12:00:00.000Z' }, result: { iso: '2025-02-01T12:00:00.000Z' } });
    expect(await call(t['date-math'], ctx, { operation: 'subtract', date: '2025-03-31', months: 1 })).toMatchObject({ result: { date: '2025-02-28' } });
    expect(await call(t['date-math'], ctx, { operation: 'subtract', date: '2025-01-01', days: -1 })).toMatchObject({ result: { date: '2025-01-02' } });
  });

  it('measures the difference between two dates, exactly and in calendar units', async () => {
    const r = await call(t['date-math'], ctx, { operation: 'difference', date: '2024-01-15', other: '2025-03-20T06:30:15.250Z' });
    expect(r).toMatchObject({
      operation: 'difference',
      timeZone: 'UTC',
      end: { iso: '2025-03-20T06:30:15.250Z' },
      difference: { calendar: { sign: 1, years: 1, months: 2, days: 5, hours: 6, minutes: 30, seconds: 15, milliseconds: 250 } },
    });
    const back = (await call(t['date-math'], ctx, { operation: 'difference', date: '2025-03-01', other: '2025-02-01' })) as { difference: Record<string, unknown> };
    expect(back.difference).toMatchObject({ days: -28, weeks: -4, hours: -672, milliseconds: -28 * 86_400_000, calendar: { sign: -1, months: 1, days: 0 } });
    expect(await call(t['date-math'], ctx, { operation: 'difference', date: '2025-01-31', other: '2025-03-01' })).toMatchObject({ difference: { calendar: { months: 1, days: 1 } } });
    expect(await call(t['date-math'], ctx, { operation: 'difference', date: '2025-03-08T12:00', other: '2025-03-09T12:00', timeZone: 'America/New_York' })).toMatchObject({
      difference: { hours: 23, calendar: { days: 1, hours: 0 } },
    });
    expect(await call(t['date-math'], ctx, { operation: 'difference', date: 'now', other: 'now' })).toMatchObject({ difference: { milliseconds: 0, calendar: { sign: 0 } } });
  });

  it('refuses a missing other, a missing duration and results out of range', async () => {
    expect(await appError(call(t['date-math'], ctx, { operation: 'difference' }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'other' } });
    expect(await appError(call(t['date-math'], ctx, { operation: 'add' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(add({ date: '9999-06-01', years: 1 }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/range/) });
    expect(await appError(add({ date: '2025-01-01', seconds: 10_000_000, days: 10_000_000 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(add({ date: '2025-01-01', days: 1.5 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
