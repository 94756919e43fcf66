/**
 * Following an eval run this window did not start (it was reloaded): its end, with the run,
 * or without it when the run was too large for the event (then it is read from the app).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContractClient, EventName, EventPayload } from '../../../../shared/contract';
import type { EvalRun, RunningEval } from '../../../../shared/model/evals';
import { useEvalRun } from './eval-run-store';

const RUN = {
  id: 'r1',
  startedAt: '2026-11-29T10:00:00.000Z',
  durationMs: 10,
  status: 'done',
  models: [{ key: 'p/m', label: 'm', provider: 'p', model: 'm' }],
  repeat: 1,
  passRate: 1,
  cases: [],
  results: [],
  tools: {},
  toolSets: {},
  totals: { results: 0, passed: 0, failed: 0, errors: 0, notRun: 0 },
} as unknown as EvalRun;

/** A client that answers the running list and getRun as told, and whose events the test sends. */
function fakeClient(running: RunningEval[], getRun: () => ReturnType<ContractClient['call']>) {
  const handlers = new Map<string, ((p: unknown) => void)[]>();
  const calls: string[] = [];
  const client: ContractClient = {
    call: (async (name: string) => {
      calls.push(name);
      if (name === 'evals.running') return { ok: true, value: { runs: running } };
      if (name === 'evals.getRun') return getRun();
      return { ok: false, error: { code: 'NOT_FOUND', message: name } };
    }) as ContractClient['call'],
    on: ((name: string, h: (p: unknown) => void) => {
      handlers.set(name, [...(handlers.get(name) ?? []), h]);
      return () => handlers.set(name, (handlers.get(name) ?? []).filter((x) => x !== h));
    }) as ContractClient['on'],
  };
  const emit = <N extends EventName>(name: N, payload: EventPayload<N>) => (handlers.get(name) ?? []).forEach((h) => h(payload));
  return { client, emit, calls };
}

const running: RunningEval = { runId: 'r1', startedAt: RUN.startedAt, bundleIds: null, models: ['p/m'], progress: [] };
const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => useEvalRun.setState({ run: null }));

describe('the end of an eval run this window attached to', () => {
  it('takes the run the event carries', async () => {
    const f = fakeClient([running], async () => ({ ok: true, value: RUN }) as never);
    expect(await useEvalRun.getState().attach(f.client)).toBe(true);
    f.emit('evals.done', { runId: 'r1', run: RUN });
    expect(useEvalRun.getState().run).toMatchObject({ status: 'done', result: { id: 'r1' } });
    expect(f.calls).not.toContain('evals.getRun');
  });

  it('reads a run too large for the event from the app', async () => {
    const f = fakeClient([running], async () => ({ ok: true, value: RUN }) as never);
    await useEvalRun.getState().attach(f.client);
    f.emit('evals.done', { runId: 'r1' });
    await settle();
    expect(f.calls).toContain('evals.getRun');
    expect(useEvalRun.getState().run).toMatchObject({ status: 'done', result: { id: 'r1' }, models: [{ key: 'p/m', label: 'm' }] });
  });

  it('says why when that read fails, and shows an error the event carries', async () => {
    const f = fakeClient([running], async () => ({ ok: false, error: { code: 'NOT_FOUND', message: 'no run r1' } }) as never);
    await useEvalRun.getState().attach(f.client);
    f.emit('evals.done', { runId: 'r1' });
    await settle();
    expect(useEvalRun.getState().run).toMatchObject({ status: 'failed', error: { code: 'NOT_FOUND' } });

    useEvalRun.setState({ run: null });
    const g = fakeClient([running], async () => ({ ok: true, value: RUN }) as never);
    await useEvalRun.getState().attach(g.client);
    g.emit('evals.done', { runId: 'r1', error: { code: 'INTERNAL', message: 'broke' } });
    expect(useEvalRun.getState().run).toMatchObject({ status: 'failed', error: { message: 'broke' } });
    expect(g.calls).not.toContain('evals.getRun');
  });
});
