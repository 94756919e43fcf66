import { describe, expect, it } from 'vitest';
import type { AgentProfileView } from '../../../shared/model/agent-profile';
import { AgentProfileStore } from './profile-store';
import { createRouter, type HandlerTable } from '../router';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { agentProfileHandlers } from './agent-profile-handlers';

const tempDir = useTempDirs();

async function setup() {
  let changes = 0;
  const store = await AgentProfileStore.open({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, onChange: () => changes++ });
  const router = createRouter(agentProfileHandlers(store) as unknown as HandlerTable);
  return { router, changes: () => changes };
}

const mine = { name: 'charts', description: 'Draws charts.', systemPrompt: '', delegatesTo: [], canAskMaster: true, maxSteps: 4 };

describe('agent profile operations', () => {
  it('list, put, get, setEnabled, delete answer what the contract says', async () => {
    const { router, changes } = await setup();
    const list = (await router.call('agents.list', {})) as { ok: true; value: AgentProfileView[] };
    expect(list.value.map((v) => [v.profile.name, v.builtIn])).toEqual([
      ['analyst', true],
      ['researcher', true],
      ['writer', true],
    ]);
    expect(await router.call('agents.put', { profile: mine })).toMatchObject({ ok: true, value: { profile: mine, builtIn: false, enabled: true } });
    expect(await router.call('agents.setEnabled', { name: 'charts', enabled: false })).toMatchObject({ ok: true, value: { enabled: false } });
    expect(await router.call('agents.get', { name: 'charts' })).toMatchObject({ ok: true, value: { enabled: false } });
    expect(await router.call('agents.delete', { name: 'charts' })).toEqual({ ok: true, value: { deleted: true } });
    expect(changes()).toBe(3);
  });

  it('answers bad input and refusals with clear errors', async () => {
    const { router } = await setup();
    expect(await router.call('agents.get', { name: 'nobody' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: "no agent profile named 'nobody'" } });
    const bad = await router.call('agents.put', { profile: { ...mine, maxSteps: 'many' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(!bad.ok && bad.error.message).toMatch(/^maxSteps: /);
    expect(await router.call('agents.delete', { name: 'analyst' })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await router.call('agents.setEnabled', { name: 'analyst' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
