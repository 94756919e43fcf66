/** Evals on the local API as every slice is there: `POST /rpc/evals.*`, bearer token, JSON in and out. */
import { describe, expect, it } from 'vitest';
import { forecastCase, weatherBundle } from '../../core/testing/eval-kit';
import { useRestHost } from '../testing/rest-host';

const start = useRestHost();

describe('evals over RPC', () => {
  it('saves, lists and deletes a case; lists runs; an unknown run is 404 NOT_FOUND', async () => {
    const { core, api } = await start();
    const bundleId = await weatherBundle(core);
    const saved = await api('POST', '/rpc/evals.save', { bundleId, evalCase: forecastCase() });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ ok: true, value: { name: 'forecast for Paris', approvals: 'deny' } });
    const listed = await api('POST', '/rpc/evals.list', { bundleId, tool: 'weather/forecast' });
    expect(listed.body).toEqual({ ok: true, value: [saved.body.value] });
    const bad = await api('POST', '/rpc/evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'regex', pattern: '[' }] }) });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining("invalid regular expression '['") });
    expect((await api('POST', '/rpc/evals.listRuns', {})).body).toEqual({ ok: true, value: [] });
    const missing = await api('POST', '/rpc/evals.getRun', { runId: '0193a7f0-0000-7000-8000-000000000000' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await api('POST', '/rpc/evals.delete', { bundleId, id: saved.body.value.id })).body).toEqual({ ok: true, value: { deleted: true } });
  });
});
