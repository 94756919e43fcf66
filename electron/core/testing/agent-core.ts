/**
 * For tests of the agent through the whole core: a core on a temp folder with a provider
 * pointing at the scripted model server (real HTTP and SSE, spoken to by the `openai`
 * client), a typed `call`, and `send`, which waits for the turn it started to end.
 */
import { afterEach } from 'vitest';
import type { EventPayload, OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { Message } from '../../../shared/model/conversation';
import { createCore, type Core, type CoreConfig } from '../app';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server';
import { RESOURCES_DIR, useTempDirs } from './temp-dir';

/** Call once per test file: answers `start`, which builds a fresh core and server per test (closed after it). */
export function useAgentCore() {
  const tempDir = useTempDirs();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  return async function start(opts: { apiKey?: string; config?: Pick<CoreConfig, 'documentSummaries'> } = {}) {
    const server: ScriptedModelServer = await startScriptedModelServer();
    closers.push(() => server.close());
    const core: Core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless', ...opts.config });
    closers.push(() => core.close());
    const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
      const r = await core.call(name, input);
      if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
      return r.value as OpOutput<N>;
    };
    const provider = await call('providers.save', {
      provider: { name: 'Scripted', kind: 'openai-compatible', baseUrl: server.url, apiKey: opts.apiKey ?? 'sk-provider-key-0123456789' },
    });
    const model = { providerId: provider.id, model: 'scripted-model' };
    const turns: EventPayload<'chat.turn'>[] = [];
    core.events.on('chat.turn', (t) => turns.push(t));
    /** Sends and waits for the turn it started to end; answers the rows chat.send added. */
    const send = async (conversationId: string, text: string) => {
      const before = turns.filter((t) => t.state !== 'running').length;
      const added = await call('chat.send', { conversationId, text });
      const end = Date.now() + 15_000;
      while (turns.filter((t) => t.state !== 'running').length === before) {
        if (Date.now() > end) throw new Error('the turn did not end');
        await new Promise((r) => setTimeout(r, 10));
      }
      return added;
    };
    const messages = async (id: string): Promise<Message[]> => (await call('conversations.get', { id })).messages;
    return { server, core, call, model, send, messages, turns };
  };
}
