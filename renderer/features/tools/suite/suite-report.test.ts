import { describe, expect, it } from 'vitest';
import type { SuiteProgress, SuiteResult, TestCaseResult } from '../../../../shared/model/testcase';
import { applyProgress, countReport, EMPTY_REPORT, fromResult, toolName, visibleTools, type SuiteReport } from './suite-report';

const result = (name: string, passed: boolean, durationMs = 4): TestCaseResult => ({
  testCaseId: name,
  name,
  passed,
  durationMs,
  assertions: [{ assertion: { kind: 'ok' }, passed, message: passed ? 'answered ok' : 'expected ok, got TIMEOUT: slow' }],
});
const A = { bundleId: 'b1', bundleSlug: 'shop', slug: 'items' };
const B = { bundleId: 'b2', bundleSlug: 'shop', slug: 'items' };
const C = { bundleId: 'b1', bundleSlug: 'shop', slug: 'draft' };

const replay = (events: SuiteProgress[]): SuiteReport => events.reduce(applyProgress, EMPTY_REPORT);

describe('the suite report built from progress', () => {
  it('knows the total from the plan, and counts each case as it is done', () => {
    const r = replay([
      { kind: 'plan', tools: 3, cases: 5 },
      { kind: 'tool', ...A, version: '2', cases: 2 },
      { kind: 'case-start', ...A, name: 'finds boots' },
    ]);
    expect(r.tools[0]!.running).toBe('finds boots');
    expect(countReport(r)).toEqual({ done: 0, total: 5, passed: 0, failed: 0, skipped: 0 });

    const later = replay([
      { kind: 'plan', tools: 3, cases: 5 },
      { kind: 'tool', ...A, version: '2', cases: 2 },
      { kind: 'case-start', ...A, name: 'finds boots' },
      { kind: 'case', ...A, result: result('finds boots', true) },
      { kind: 'case-start', ...A, name: 'refuses empty' },
      { kind: 'case', ...A, result: result('refuses empty', false) },
      { kind: 'tool', ...C, cases: 1, skipped: "'shop' has no saved version of 'draft'" },
      // The same slug in another bundle of the same name is another tool.
      { kind: 'tool', ...B, version: '1', cases: 2 },
      { kind: 'case-start', ...B, name: 'one' },
    ]);
    expect(later.tools.map((t) => [t.bundleId, t.slug, t.version, t.results.length, t.running])).toEqual([
      ['b1', 'items', '2', 2, undefined],
      ['b1', 'draft', undefined, 0, undefined],
      ['b2', 'items', '1', 0, 'one'],
    ]);
    expect(countReport(later)).toEqual({ done: 3, total: 5, passed: 1, failed: 1, skipped: 1 });
    expect(visibleTools(later, true).map((t) => t.bundleId + t.slug)).toEqual(['b1items', 'b2items']);
    expect(visibleTools(later, false)).toHaveLength(3);
  });

  it('adds a tool it missed the start of (an event lost while reconnecting), and never counts past the total', () => {
    const r = replay([{ kind: 'plan', tools: 1, cases: 1 }, { kind: 'case', ...A, result: result('x', true) }, { kind: 'case', ...A, result: result('y', true) }]);
    expect(r.tools.map((t) => t.results.length)).toEqual([2]);
    expect(countReport(r)).toMatchObject({ done: 2, total: 2 });
  });

  it('is replaced by the suite result when it ends, and ignores late events after that', () => {
    const suite: SuiteResult = {
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 42,
      passed: 1,
      failed: 1,
      skipped: 1,
      tools: [
        { ...A, version: '2', results: [result('finds boots', true), result('refuses empty', false)], passed: 1, failed: 1, durationMs: 30 },
        { ...C, skipped: 'no saved version', results: [{ testCaseId: 'n', name: 'never', passed: false, durationMs: 0, assertions: [] }], passed: 0, failed: 0, durationMs: 0 },
      ],
    };
    const r = fromResult(suite);
    expect(r).toMatchObject({ finished: true, total: 3, durationMs: 42 });
    expect(countReport(r)).toEqual({ done: 3, total: 3, passed: 1, failed: 1, skipped: 1 });
    expect(applyProgress(r, { kind: 'case-start', ...A, name: 'late' })).toBe(r);
    expect(r.tools.map(toolName)).toEqual(['shop/items@2', 'shop/draft']);
  });
});
