import { describe, expect, it } from 'vitest';
import type { InvocationProgress } from '../../shared/model/invocation';
import { progressView, useInvocationProgress, withReport } from './invocation-progress';

const report = (invocationId: string, progress: number, more: Partial<InvocationProgress> = {}): InvocationProgress => ({ invocationId, progress, ...more });

describe('a running call’s progress in the window', () => {
  it('is determinate when the report gives a total, with its percentage and the server’s message', () => {
    expect(progressView({ progress: 3, total: 10, message: 'reading page 3' })).toEqual({ value: 3, max: 10, percent: 30, text: '3 of 10 (30%)', message: 'reading page 3' });
    expect(progressView({ progress: 0.333, total: 1 })).toEqual({ value: 0.333, max: 1, percent: 33, text: '0.33 of 1 (33%)' });
    // Past its total (a server that miscounts): full, never over.
    expect(progressView({ progress: 12, total: 10 })).toMatchObject({ value: 10, max: 10, percent: 100 });
  });

  it('is indeterminate without a total: no value, and how far it got in words', () => {
    const v = progressView({ progress: 42, message: 'still going' });
    expect(v).toEqual({ text: '42 so far', message: 'still going' });
    expect(v.value).toBeUndefined();
    expect(v.max).toBeUndefined();
  });

  it('keeps each call’s latest report, forgetting the calls not heard of for longest past its bound', () => {
    let reports: ReadonlyMap<string, InvocationProgress> = new Map();
    reports = withReport(reports, report('a', 1), 2);
    reports = withReport(reports, report('b', 1), 2);
    reports = withReport(reports, report('a', 2), 2);
    expect(reports.get('a')?.progress).toBe(2);
    // 'b' was heard of longest ago: it makes room for 'c'.
    reports = withReport(reports, report('c', 1), 2);
    expect([...reports.keys()]).toEqual(['a', 'c']);
  });

  it('the store answers the latest report of a call and leaves other calls’ reports as they were', () => {
    const { report: put } = useInvocationProgress.getState();
    put(report('x', 1, { total: 4 }));
    const y = report('y', 7);
    put(y);
    put(report('x', 2, { total: 4, message: 'half way' }));
    const { reports } = useInvocationProgress.getState();
    expect(reports.get('x')).toEqual({ invocationId: 'x', progress: 2, total: 4, message: 'half way' });
    // The same object: a card following 'y' does not render again.
    expect(reports.get('y')).toBe(y);
  });
});
