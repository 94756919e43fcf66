/**
 * The memory tools through the whole core: a model (the real provider client speaking to the
 * scripted model server) edits a block, keeps and searches recall entries, and reads a
 * refusal; the `+` palette runs the same tools; an agent profile's AllowedOperations and
 * scope hold in its task; the contract ops show the history and undo.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedReply } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';
import { useGuardedScript } from '../testing/guarded-script';

const start = useAgentCore();
const MEMORY_BUNDLE = '019ab5a0-3c00-7b1a-8c90-4d2e6f8a0b10';

type Msg = { role: string; content?: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) : '');
const lastTool = (r: RecordedRequest) => text(msgs(r).filter((m) => m.role === 'tool').at(-1));
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const systemOf = (r: RecordedRequest) => text(msgs(r).find((m) => m.role === 'system'));
const call = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });

/** Expectations inside the scripted replies are rethrown after the test. */
const guarded = useGuardedScript();

describe('the memory tools in the core', () => {
  it('a model appends to a block, is told how many matched a bad replace, keeps and finds a recall entry with punctuation in the query', async () => {
    const { server, call: op, model, send, messages } = await start();
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    const owner = `conversation:${c.id}`;
    await op('memory.blocks.create', { owner, label: 'human', content: 'Name: Ada', charLimit: 200 });
    server.script(
      [
        (r: RecordedRequest) => {
          expect(toolNames(r)).toEqual(expect.arrayContaining(['block', 'block-edit', 'recall']));
          return call('block', { op: 'load', label: 'human' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('Name: Ada');
          return call('block-edit', { op: 'append', label: 'human', content: 'Likes: tea' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("block 'human' holds 20 of 200 characters");
          return call('block-edit', { op: 'replace', label: 'human', old: 'a', new: 'A' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("replace found 3 matches of old in block 'human': it must match exactly once");
          return call('recall', { op: 'insert', content: 'Ada prefers "green" tea (not coffee)', metadata: { tags: ['prefs'] } });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('kept (entries cannot be changed or deleted)');
          return call('recall', { op: 'search', query: 'tea" (coffee -', tags: ['prefs'] });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('Ada prefers');
          expect(lastTool(r)).toContain('score');
          return { kind: 'text', text: 'Noted: Ada likes tea.' } as const;
        },
      ].map(guarded),
    );
    await send(c.id, 'Remember that I like tea.');
    const rows = await messages(c.id);
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', text: 'Noted: Ada likes tea.' });
    const cards = rows.filter((m) => m.role === 'tool' && m.tool?.status !== 'running').map((m) => [m.tool?.slug, m.tool?.status]);
    expect(cards).toEqual([
      ['block', 'ok'],
      ['block-edit', 'ok'],
      ['block-edit', 'error'],
      ['recall', 'ok'],
      ['recall', 'ok'],
    ]);
    expect((await op('memory.blocks.get', { owner, label: 'human' })).text).toBe('Name: Ada\nLikes: tea');
    const history = await op('memory.blocks.history', { owner, label: 'human' });
    expect(history.map((v) => [v.op, v.by])).toEqual([
      ['create', 'user'],
      ['append', c.id],
    ]);
    expect((await op('memory.blocks.undo', { owner, label: 'human' })).text).toBe('Name: Ada');
    expect((await op('memory.recall.search', { owner, query: 'coffee' })).map((h) => h.tags)).toEqual([['prefs']]);
  });

  it('the + palette runs the same tools in the conversation; a ReadOnly block refuses it with the layer named', async () => {
    const { call: op } = await start();
    const c = await op('conversations.create', {});
    const owner = `conversation:${c.id}`;
    await op('memory.blocks.create', { owner, label: 'rules', content: 'be kind', permission: 'ReadOnly' });
    await op('memory.blocks.create', { owner, label: 'todo', schema: { kind: 'List' } });
    const ok = await op('chat.runTool', { conversationId: c.id, bundleId: MEMORY_BUNDLE, slug: 'block-edit', version: '1', args: { op: 'append', label: 'todo', content: 'buy milk' } });
    expect(ok.tool?.status).toBe('ok');
    expect((await op('memory.blocks.get', { owner, label: 'todo' })).content).toEqual(['buy milk']);
    const refused = await op('chat.runTool', { conversationId: c.id, bundleId: MEMORY_BUNDLE, slug: 'block-edit', version: '1', args: { op: 'append', label: 'rules', content: 'and fast' } });
    expect(refused.tool?.status).toBe('error');
    expect(refused.tool?.error?.message).toBe("refused by block permission: block 'rules' has permission ReadOnly: it is read-only, so block_edit append is not possible (it needs Append, ReadWrite or Admin)");
    // Another conversation has its own memory.
    const other = await op('conversations.create', {});
    const missing = await op('chat.runTool', { conversationId: other.id, bundleId: MEMORY_BUNDLE, slug: 'block', version: '1', args: { op: 'info', label: 'todo' } });
    expect(missing.tool?.error?.code).toBe('NOT_FOUND');
  });

  it("an agent's task uses its profile's memory and AllowedOperations: a refused operation reaches the model with the layer", async () => {
    const { server, call: op, model, messages, turns } = await start();
    await op('agents.put', {
      profile: {
        name: 'scribe',
        description: 'Keeps notes.',
        systemPrompt: 'You keep notes.',
        tools: { bundleIds: [MEMORY_BUNDLE], toolIds: [] },
        delegatesTo: [],
        canAskMaster: false,
        maxSteps: 6,
        memory: { scope: 'profile', allowedOperations: ['block.load', 'block_edit.append'] },
      },
    });
    await op('memory.blocks.create', { owner: 'agent:scribe', label: 'notes', content: 'first' });
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    const who = (r: RecordedRequest) => (systemOf(r).includes('You are the scribe agent') ? 'scribe' : 'root');
    const queues: Record<string, ((r: RecordedRequest) => ScriptedReply)[]> = {
      root: [() => call('route_to_scribe', { request: 'Note that the launch moved.' }), () => ({ kind: 'text', text: 'Done.' })],
      scribe: [
        () => call('block-edit', { op: 'append', label: 'notes', content: 'the launch moved' }),
        () => call('block-edit', { op: 'replace', label: 'notes', old: 'first', new: 'FIRST' }),
        (r) => {
          expect(lastTool(r)).toContain('refused by agent allowed operations: the scribe agent may not use block_edit replace: it is not in its AllowedOperations (block.load, block_edit.append)');
          return call('handoff', { result: 'noted' });
        },
      ],
    };
    server.script(Array.from({ length: 10 }, () => guarded((r) => queues[who(r)]!.shift()?.(r) ?? { kind: 'text', text: 'no script left' })));
    const ended = () => turns.filter((t) => t.conversationId === c.id && t.state !== 'running').length;
    await op('chat.send', { conversationId: c.id, text: 'Have the scribe note it.' });
    for (let i = 0; i < 1500 && ended() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await messages(c.id)).at(-1)?.text).toBe('Done.');
    expect((await op('memory.blocks.get', { owner: 'agent:scribe', label: 'notes' })).text).toBe('first\nthe launch moved');
    const graph = await op('tasks.graph', { conversationId: c.id });
    expect((await op('memory.blocks.history', { owner: 'agent:scribe', label: 'notes' })).at(-1)?.by).toBe(graph.tasks[0]!.id);
  });
});
