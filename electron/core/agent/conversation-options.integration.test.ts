/**
 * A conversation's own system prompt and model parameters (conversations.setOptions), through
 * the whole core to the scripted model server: what reaches the provider's request, what is
 * left out, what is refused, and that they are kept in the conversations database.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../timeline/conversation-store';
import { useAgentCore } from '../testing/agent-core';
import { useTempDirs } from '../testing/temp-dir';
import type { ScriptedModelServer } from '../testing/scripted-model-server';
import { SYSTEM_PROMPT_MAX, paramSupport } from '../../../shared/model/model-params';
import { thinkingBudget } from './providers/anthropic-client';
import { joinSystem, requestParams } from './turn';

const start = useAgentCore();
const tempDir = useTempDirs();

const chatRequests = (server: Pick<ScriptedModelServer, 'requests'>) => server.requests.filter((r) => r.api === 'openai' || r.api === 'anthropic');

describe('conversation options in the model request', () => {
  it('the system prompt follows the context sections in the system message; temperature and max tokens reach the request', async () => {
    const { server, call, model, send } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    await call('conversations.setContext', { id: c.id, sections: [{ id: 's1', title: 'Project', text: 'The project is Toolsmith.', enabled: true }] });
    const set = await call('conversations.setOptions', { id: c.id, systemPrompt: 'Answer in French.', params: { temperature: 0.3, maxTokens: 512 } });
    expect(set).toMatchObject({ systemPrompt: 'Answer in French.', params: { temperature: 0.3, maxTokens: 512 } });

    server.script([{ kind: 'text', text: 'Bonjour' }]);
    await send(c.id, 'hello');
    const body = chatRequests(server).at(-1)!.body;
    const system = body.messages.find((m: { role: string }) => m.role === 'system').content as string;
    expect(system.indexOf('The project is Toolsmith.')).toBeGreaterThanOrEqual(0);
    expect(system.indexOf('Answer in French.')).toBeGreaterThan(system.indexOf('The project is Toolsmith.'));
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(512);
    expect(body).not.toHaveProperty('reasoning_effort');
  });

  it('sends no parameter that is not set, and no system message from an empty prompt', async () => {
    const { server, call, model, send } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    await call('conversations.setOptions', { id: c.id, systemPrompt: '   ', params: {} });
    server.script([{ kind: 'text', text: 'hi' }]);
    await send(c.id, 'hello');
    const body = chatRequests(server).at(-1)!.body;
    for (const k of ['temperature', 'max_tokens', 'max_completion_tokens', 'reasoning_effort']) expect(body).not.toHaveProperty(k);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['user']);

    // One parameter set: only it is sent; clearing it (null) sends none again.
    await call('conversations.setOptions', { id: c.id, params: { maxTokens: 100 } });
    server.script([{ kind: 'text', text: 'hi' }]);
    await send(c.id, 'again');
    const one = chatRequests(server).at(-1)!.body;
    expect(one.max_tokens).toBe(100);
    expect(one).not.toHaveProperty('temperature');
    const cleared = await call('conversations.setOptions', { id: c.id, params: null });
    expect(cleared).not.toHaveProperty('params');
  });

  it('an OpenAI reasoning model gets the reasoning effort and max_completion_tokens, not the temperature', async () => {
    const { server, call, model, send } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model: { ...model, model: 'o3-mini' } });
    await call('conversations.setOptions', { id: c.id, params: { temperature: 0.5, maxTokens: 2000, reasoning: 'high' } });
    server.script([{ kind: 'text', text: 'thought about it' }]);
    await send(c.id, 'think');
    const body = chatRequests(server).at(-1)!.body;
    expect(body.reasoning_effort).toBe('high');
    expect(body.max_completion_tokens).toBe(2000);
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('an Anthropic thinking model gets a thinking budget on the step that starts its reply, never a temperature', async () => {
    const { server, call, send } = await start();
    const provider = await call('providers.save', { provider: { name: 'Claude', kind: 'anthropic', baseUrl: server.url, apiKey: 'sk-ant-test-0123456789' } });
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model: { providerId: provider.id, model: 'claude-sonnet-4-6' } });
    await call('conversations.setOptions', { id: c.id, systemPrompt: 'Be brief.', params: { temperature: 0.7, maxTokens: 8000, reasoning: 'medium' } });
    server.script([{ kind: 'tools', calls: [{ name: 'stop_and_think', arguments: { thought: 'hm' } }] }, { kind: 'text', text: 'done' }]);
    await send(c.id, 'go');
    const [first, second] = chatRequests(server).map((r) => r.body);
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(first.max_tokens).toBe(8000);
    expect(first.system).toContain('Be brief.');
    expect(first).not.toHaveProperty('temperature');
    // After tool results: no thinking (the earlier thinking blocks are not kept to send back).
    expect(second).not.toHaveProperty('thinking');
    expect(second).not.toHaveProperty('temperature');
  });
});

describe('conversation options are checked and kept', () => {
  it('refuses values out of bounds with a clear error and saves nothing', async () => {
    const { call } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setOptions', { id: c.id, systemPrompt: 'keep me', params: { temperature: 1 } });
    const bad: unknown[] = [
      { params: { temperature: 2.5 } },
      { params: { temperature: -0.1 } },
      { params: { maxTokens: 0 } },
      { params: { maxTokens: 12.5 } },
      { params: { maxTokens: 1_000_001 } },
      { params: { reasoning: 'extreme' } },
      { params: { topP: 0.9 } },
      { systemPrompt: 'x'.repeat(SYSTEM_PROMPT_MAX + 1) },
    ];
    for (const b of bad) {
      await expect(call('conversations.setOptions', { id: c.id, ...(b as object) })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    await expect(call('conversations.setOptions', { id: c.id, params: { temperature: 3 } })).rejects.toThrow(/temperature must be from 0 to 2/);
    await expect(call('conversations.setOptions', { id: c.id, params: { maxTokens: 0 } })).rejects.toThrow(/max tokens must be at least 1/);
    const after = (await call('conversations.get', { id: c.id })).conversation;
    expect(after).toMatchObject({ systemPrompt: 'keep me', params: { temperature: 1 } });
    await expect(call('conversations.setOptions', { id: 'nope', params: {} })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('the store refuses what the contract refuses, and keeps the options across a reopen', async () => {
    const file = path.join(await tempDir(), 'conversations.sqlite');
    const store = ConversationStore.open({ file, now: () => new Date() });
    const c = store.create('Options');
    expect(() => store.setOptions(c.id, { params: { temperature: 9 } })).toThrow(/temperature must be from 0 to 2/);
    expect(store.get(c.id)).not.toHaveProperty('params');
    store.setOptions(c.id, { systemPrompt: 'Be terse.', params: { maxTokens: 64, reasoning: 'low' } });
    // A field left out stays as it is.
    store.setOptions(c.id, { params: { maxTokens: 64, reasoning: 'low', temperature: 0 } });
    store.close();
    const again = ConversationStore.open({ file, now: () => new Date() });
    expect(again.get(c.id)).toMatchObject({ systemPrompt: 'Be terse.', params: { maxTokens: 64, reasoning: 'low', temperature: 0 } });
    again.close();
  });
});

describe('what goes into a request', () => {
  it('joins the system parts that have text and carries only the set parameters', () => {
    expect(joinSystem('app', '', undefined, '  mine  ')).toBe('app\n\nmine');
    expect(joinSystem('', undefined)).toBe('');
    expect(requestParams(undefined)).toEqual({});
    expect(requestParams({ temperature: 0 })).toEqual({ temperature: 0 });
    expect(requestParams({ maxTokens: 10, reasoning: 'off' })).toEqual({ maxOutputTokens: 10, reasoning: 'off' });
  });

  it('knows which models take which parameters', () => {
    expect(paramSupport('openai-compatible', 'llama3.1')).toMatchObject({ temperature: true, reasoning: false });
    expect(paramSupport('openai-compatible', 'gpt-5-mini')).toMatchObject({ temperature: false, reasoning: true, reasoningOff: true });
    expect(paramSupport('openai-compatible', 'openai/o4-mini')).toMatchObject({ temperature: false, reasoning: true, reasoningOff: false });
    expect(paramSupport('anthropic', 'claude-3-5-haiku-latest')).toMatchObject({ temperature: false, reasoning: false });
    expect(paramSupport('anthropic', 'claude-opus-4-1')).toMatchObject({ temperature: false, reasoning: true });
  });

  it('keeps a thinking budget below max tokens and at least 1024', () => {
    const user = [{ role: 'user' as const, text: 'hi' }];
    expect(thinkingBudget({ model: 'claude-sonnet-4-6', reasoning: 'high', messages: user })).toBe(16_384);
    expect(thinkingBudget({ model: 'claude-sonnet-4-6', reasoning: 'high', maxOutputTokens: 3000, messages: user })).toBe(2999);
    expect(thinkingBudget({ model: 'claude-sonnet-4-6', reasoning: 'low', maxOutputTokens: 1000, messages: user })).toBeUndefined();
    expect(thinkingBudget({ model: 'claude-sonnet-4-6', reasoning: 'off', messages: user })).toBeUndefined();
    expect(thinkingBudget({ model: 'claude-3-5-haiku', reasoning: 'high', messages: user })).toBeUndefined();
  });
});
