/**
 * argSchema defaults reach the tool whoever calls it: a script through REST, and the chat
 * (chat.runTool, as the palette runs a tool), over the real core.
 */
import { v7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { localToolBody } from '../../core/bundles/testing/fixtures';
import { useRestHost } from '../testing/rest-host';

const startHost = useRestHost();

const ARG_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, units: { enum: ['metric', 'imperial'], default: 'metric' }, options: { type: 'object', default: {}, properties: { days: { type: 'integer', default: 3 } } } },
  required: ['city', 'units'],
};

async function start() {
  const { core, api } = await startHost(undefined, (c) => c.functions.register('test.args', async (_ctx, args) => args));
  const bundleId = v7();
  expect((await api('PUT', `/tools/bundles/${bundleId}`, { slug: 'demo', displayName: 'Demo', isEnabled: true, description: '' })).status).toBe(200);
  const path = `/tools/bundles/${bundleId}/tools/weather/version/1`;
  expect((await api('PUT', path, localToolBody({ argSchema: ARG_SCHEMA, outputSchema: {}, local: { functionId: 'test.args' } }))).status).toBe(201);
  return { core, api, bundleId, path };
}

describe('argSchema defaults for every caller', () => {
  it('REST invoke: a left-out argument takes its default', async () => {
    const { api, path } = await start();
    const r = await api('POST', `${path}/invoke`, { args: { city: 'Oslo' } });
    expect([r.status, r.body.ok]).toEqual([200, true]);
    expect(r.body.value.value).toEqual({ city: 'Oslo', units: 'metric', options: { days: 3 } });
  });

  it('chat.runTool: the card shows what was given, the tool got the defaults too', async () => {
    const { core, bundleId } = await start();
    const c = await core.call('conversations.create', {});
    if (!c.ok) throw new Error(c.error.message);
    const m = await core.call('chat.runTool', { conversationId: c.value.id, bundleId, slug: 'weather', version: '1', args: { city: 'Rome', units: 'imperial' } });
    expect(m).toMatchObject({ ok: true, value: { tool: { status: 'ok', args: { city: 'Rome', units: 'imperial' }, value: { city: 'Rome', units: 'imperial', options: { days: 3 } } } } });
  });
});
