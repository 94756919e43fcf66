import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../../shared/model/provider';
import { ApprovalStore } from './approvals';
import type { AgentLoop } from './types';
import { ConversationStore } from '../timeline/conversation-store';
import { createRouter, type HandlerTable } from '../router';
import { useTempDirs } from '../testing/temp-dir';
import { agentHandlers } from './agent-handlers';

const tempDir = useTempDirs();
const stores: ConversationStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

async function setup() {
  const dir = await tempDir();
  const now = () => new Date();
  const conversations = ConversationStore.open({ file: path.join(dir, 'c.sqlite'), now });
  stores.push(conversations);
  const approvals = await ApprovalStore.open({ dataDir: dir, now });
  const asked: unknown[] = [];
  const loop: AgentLoop = {
    start: () => 't',
    stop: (id) => (asked.push(['stop', id]), id === 'running' || conversations.has(id)),
    respond: (...a) => (asked.push(['respond', ...a]), true),
    stopAll: () => undefined,
    checkEdited: () => null,
  };
  const providers = { list: () => [{ id: 'p1' } as Provider] };
  const router = createRouter(agentHandlers({ conversations, loop, approvals, providers }) as unknown as HandlerTable);
  return { conversations, approvals, router, asked };
}

describe('agent handlers', () => {
  it('sets a model of a saved provider and a tool selection; unknown ids are NOT_FOUND', async () => {
    const { conversations, router } = await setup();
    const c = conversations.create();
    const model = { providerId: 'p1', model: 'm' };
    expect(await router.call('conversations.setModel', { id: c.id, model })).toMatchObject({ ok: true, value: { model } });
    expect(await router.call('conversations.setModel', { id: c.id, model: { providerId: 'p9', model: 'm' } })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('conversations.setModel', { id: 'nope', model })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('conversations.setTools', { id: c.id, tools: { bundleIds: ['b'], toolIds: [] } })).toMatchObject({ ok: true, value: { tools: { bundleIds: ['b'], toolIds: [] } } });
    expect(await router.call('conversations.setTools', { id: 'nope', tools: null })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('stops, answers approvals, lists and revokes rules', async () => {
    const { conversations, approvals, router, asked } = await setup();
    const c = conversations.create();
    expect(await router.call('chat.stop', { conversationId: c.id })).toEqual({ ok: true, value: { stopped: true } });
    expect(await router.call('chat.stop', { conversationId: 'nope' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('approvals.respond', { conversationId: c.id, invocationId: 'i1', decision: 'allow-once', args: { a: 1 } })).toEqual({ ok: true, value: { accepted: true } });
    expect(asked).toContainEqual(['respond', c.id, 'i1', 'allow-once', { a: 1 }]);
    // A reason travels with a denial, never with an allowing answer.
    await router.call('approvals.respond', { conversationId: c.id, invocationId: 'i2', decision: 'deny', reason: ' not there ' });
    expect(asked).toContainEqual(['respond', c.id, 'i2', 'deny', undefined, 'not there']);
    await router.call('approvals.respond', { conversationId: c.id, invocationId: 'i3', decision: 'allow-once', reason: 'ignored' });
    expect(asked).toContainEqual(['respond', c.id, 'i3', 'allow-once', undefined]);
    await approvals.add({ toolId: 't', toolName: 'b/t', scope: 'always' });
    expect(await router.call('approvals.list', {})).toMatchObject({ ok: true, value: [{ toolId: 't', scope: 'always' }] });
    expect(await router.call('approvals.revoke', { toolId: 't', scope: 'conversation' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(await router.call('approvals.revoke', { toolId: 't', scope: 'always' })).toEqual({ ok: true, value: { revoked: true } });
    expect(approvals.list()).toEqual([]);
  });
});
