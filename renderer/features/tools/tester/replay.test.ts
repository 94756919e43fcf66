import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../../shared/model/conversation';
import { MEMORY_BUNDLE_ID } from '../../../../shared/model/memory';
import { assertionsFor, canOpenInTester, caseName, comparedValue, replaySourceOf, runOutcome } from './replay';

const BUNDLE = '01941f29-7c08-74a4-a33d-e6e79f14c9c5';
const card = (over: Partial<ToolCard>): ToolCard => ({
  invocationId: 'inv-1',
  bundleId: BUNDLE,
  slug: 'count',
  version: '2',
  displayName: 'Count',
  args: { text: 'a b' },
  status: 'ok',
  value: { words: 2 },
  source: 'user',
  ...over,
});

describe('opening a chat call in the tester', () => {
  it('is offered for a finished call of a registry tool, not for model-only tools, consent cards or calls still going', () => {
    expect(canOpenInTester(card({}))).toBe(true);
    expect(canOpenInTester(card({ status: 'error', error: { code: 'TIMEOUT', message: 'slow' } }))).toBe(true);
    expect(canOpenInTester(card({ status: 'denied', source: 'model' }))).toBe(true);
    expect(canOpenInTester(card({ status: 'running' }))).toBe(false);
    expect(canOpenInTester(card({ status: 'awaiting-approval' }))).toBe(false);
    expect(canOpenInTester(card({ bundleId: 'model', slug: 'tool_output' }))).toBe(false);
    expect(canOpenInTester(card({ bundleId: '', version: '' }))).toBe(false);
    expect(canOpenInTester(card({ task: { id: 't', number: 1, agent: 'scribe', kind: 'agent' } }))).toBe(false);
    // The memory bundle's tools need a conversation's memory, which the tester has none of.
    expect(canOpenInTester(card({ bundleId: MEMORY_BUNDLE_ID, slug: 'recall', version: '1' }))).toBe(false);
  });

  it("takes the call's exact tool version and arguments, and what of its outcome can be compared", () => {
    expect(replaySourceOf(card({}))).toEqual({ id: 'inv-1', bundleId: BUNDLE, slug: 'count', version: '2', displayName: 'Count', args: { text: 'a b' }, chat: { comparable: true, outcome: { ok: true, value: { words: 2 } } } });
    expect(replaySourceOf(card({ args: undefined })).args).toEqual({});
    expect(replaySourceOf(card({ status: 'error', value: undefined, error: { code: 'TIMEOUT', message: 'slow' } })).chat).toEqual({ comparable: true, outcome: { ok: false, error: { code: 'TIMEOUT', message: 'slow' } } });
    expect(replaySourceOf(card({ valueTruncated: true })).chat).toEqual({ comparable: false, reason: 'truncated' });
    expect(replaySourceOf(card({ status: 'cancelled' })).chat).toEqual({ comparable: false, reason: 'cancelled' });
    expect(replaySourceOf(card({ status: 'denied' })).chat).toEqual({ comparable: false, reason: 'denied' });
    const manifest = { kind: 'tool' as const, name: 'count', destination: 'variable:counts', target: { kind: 'variable' as const, ownerId: 'c', name: 'counts' }, writeMode: 'replace' as const, count: 1, totalChars: 10, text: 'routed' };
    expect(replaySourceOf(card({ value: undefined, manifest: manifest as unknown as ToolCard['manifest'] })).chat).toEqual({ comparable: false, reason: 'routed', destination: 'variable:counts' });
  });

  it('compares an error as { error: { code, message } }, a value as itself', () => {
    expect(comparedValue({ ok: true, value: [1] })).toEqual([1]);
    expect(comparedValue(runOutcome({ ok: false, error: { code: 'TIMEOUT', message: 'slow', details: { ms: 5 } } }))).toEqual({ error: { code: 'TIMEOUT', message: 'slow' } });
  });

  it('saves a run as a test case with its result expected: the whole value, or the error code', () => {
    expect(assertionsFor({ ok: true, value: { words: 2 } })).toEqual([{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$', value: { words: 2 } }]);
    expect(assertionsFor({ ok: true, value: null })).toEqual([{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$', value: null }]);
    expect(assertionsFor({ ok: true, value: undefined })).toEqual([{ kind: 'ok' }]);
    expect(assertionsFor({ ok: false, error: { code: 'VALIDATION_FAILED', message: 'no' } })).toEqual([{ kind: 'error', code: 'VALIDATION_FAILED' }]);
    expect(caseName('chat', { text: 'a b' })).toBe('From the chat: {"text":"a b"}');
    const long = caseName('run', { text: 'x'.repeat(500) });
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
