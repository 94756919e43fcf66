import { describe, expect, it } from 'vitest';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { foldText, formatDuration, isLongText, latestRunByPath, LONG_VALUE_LINES, mergeRun, splitManifest, valueText } from './format';

describe('valueText', () => {
  it('keeps strings and indents anything else as JSON', () => {
    expect(valueText('a\nb')).toBe('a\nb');
    expect(valueText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(valueText(undefined)).toBe('');
    expect(valueText(null)).toBe('null');
  });
});

describe('isLongText and foldText', () => {
  it('folds past the line limit at a line break', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    expect(isLongText(text)).toBe(true);
    expect(foldText(text).split('\n')).toHaveLength(LONG_VALUE_LINES);
    expect(isLongText('short\ntext')).toBe(false);
  });

  it('folds a long single line by characters', () => {
    expect(isLongText('x'.repeat(5000))).toBe(true);
    expect(foldText('x'.repeat(5000)).length).toBeLessThan(5000);
  });
});

describe('formatDuration', () => {
  it('reads well at every scale', () => {
    expect(formatDuration(3.21)).toBe('3.2 ms');
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });
});

describe('splitManifest', () => {
  it('finds the destination after the arrow', () => {
    expect(splitManifest('[tool routed] readfile -> variable:results (total 1,200 chars)', 'variable:results')).toEqual({
      before: '[tool routed] readfile -> ',
      destination: 'variable:results',
      after: ' (total 1,200 chars)',
    });
  });

  it('answers null when the destination is not written there', () => {
    expect(splitManifest('[tool routed] x -> discard', 'variable:a')).toBeNull();
    expect(splitManifest('anything', '')).toBeNull();
  });
});

const run = (over: Partial<WorkflowRun>): WorkflowRun => ({
  runId: 'r1',
  path: 'workflows/a.md',
  title: 'A',
  ownerId: 'c1',
  status: 'running',
  startedAt: '2026-01-01T00:00:00.000Z',
  steps: [
    { title: 'one', status: 'pending', outcomes: [] },
    { title: 'two', status: 'pending', outcomes: [] },
  ],
  ...over,
});

describe('mergeRun', () => {
  it('keeps the later state when an older answer arrives after an event', () => {
    const later = run({ steps: [{ title: 'one', status: 'done', outcomes: [] }, { title: 'two', status: 'running', outcomes: [] }] });
    const earlier = run({});
    expect(mergeRun(later, earlier)).toBe(later);
    expect(mergeRun(earlier, later)).toBe(later);
  });

  it('takes a finished run over a running one', () => {
    const done = run({ status: 'done', finishedAt: '2026-01-01T00:00:01.000Z' });
    expect(mergeRun(run({ steps: [{ title: 'one', status: 'done', outcomes: [] }] }), done)).toBe(done);
  });

  it('takes any run for a new id', () => {
    const other = run({ runId: 'r2' });
    expect(mergeRun(undefined, other)).toBe(other);
    expect(mergeRun(run({}), other)).toBe(other);
  });
});

describe('latestRunByPath', () => {
  it('keeps the newest run of each file', () => {
    const a1 = run({ runId: 'a1' });
    const a2 = run({ runId: 'a2', startedAt: '2026-01-02T00:00:00.000Z' });
    const b = run({ runId: 'b', path: 'workflows/b.md' });
    const m = latestRunByPath([a2, a1, b]);
    expect(m.get('workflows/a.md')).toBe(a2);
    expect(m.get('workflows/b.md')).toBe(b);
  });
});
