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
import { MEMORY_BUNDLE_ID } from './memory-tools';

const start = useAgentCore();
const MEMORY_BUNDLE = MEMORY_BUNDLE_ID;

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
          expect(toolNames(r)).toEqual(expect.arrayContaining(['block', 'block_edit', 'recall']));
          return call('block', { op: 'load', label: 'human' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('Name: Ada');
          return call('block_edit', { op: 'append', label: 'human', content: 'Likes: tea' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("block 'human' holds 20 of 200 characters");
          return call('block_edit', { op: 'replace', label: 'human', old: 'a', new: 'A' });
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

  it('deleting a conversation deletes its blocks and recall entries (and leaves those of other conversations)', async () => {
    const { call: op } = await start();
    const c = await op('conversations.create', {});
    const keep = await op('conversations.create', {});
    for (const conv of [c, keep]) {
      await op('memory.blocks.create', { owner: `conversation:${conv.id}`, label: 'human', content: 'Name: Ada, phone 555-0100' });
      const r = await op('chat.runTool', { conversationId: conv.id, bundleId: MEMORY_BUNDLE, slug: 'recall', version: '1', args: { op: 'insert', content: 'Ada lives at 12 Elm Street' } });
      expect(r.tool?.status).toBe('ok');
    }
    const owner = `conversation:${c.id}`;
    expect(await op('memory.blocks.list', { owner })).toHaveLength(1);
    expect(await op('memory.recall.search', { owner, query: 'Elm' })).toHaveLength(1);
    await op('conversations.delete', { id: c.id });
    expect(await op('memory.blocks.list', { owner })).toEqual([]);
    expect(await op('memory.recall.search', { owner, query: 'Elm' })).toEqual([]);
    // The other conversation's memory is untouched, and its search index still answers.
    const other = `conversation:${keep.id}`;
    expect((await op('memory.blocks.list', { owner: other })).map((b) => b.label)).toEqual(['human']);
    expect(await op('memory.recall.search', { owner: other, query: 'Elm' })).toHaveLength(1);
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
        () => call('block_edit', { op: 'append', label: 'notes', content: 'the launch moved' }),
        () => call('block_edit', { op: 'replace', label: 'notes', old: 'first', new: 'FIRST' }),
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

  it('pinned blocks reach the model on every step, fresh, within the budget; an unpinned block only in the batch that loaded it', async () => {
    const { server, call: op, model, send } = await start();
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    const owner = `conversation:${c.id}`;
    await op('memory.blocks.create', { owner, label: 'persona', content: 'Ada likes tea', pinned: true });
    await op('memory.blocks.create', { owner, label: 'big', content: 'x'.repeat(7_990), charLimit: 10_000, pinned: true });
    await op('memory.blocks.create', { owner, label: 'scratch', content: 'scratch-words-17' });
    const everyRequest: RecordedRequest[] = [];
    const seen = (f: (r: RecordedRequest) => ScriptedReply) => (r: RecordedRequest) => {
      everyRequest.push(r);
      return f(r);
    };
    server.script(
      [
        () => call('block', { op: 'load', label: 'scratch' }),
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('scratch-words-17');
          return call('block_edit', { op: 'append', label: 'persona', content: 'and cake' });
        },
        (r: RecordedRequest) => {
          // The edit of the last step is in this step's context.
          expect(systemOf(r)).toContain('Ada likes tea\nand cake');
          return { kind: 'text', text: 'ok' } as const;
        },
      ].map((f) => guarded(seen(f))),
    );
    await send(c.id, 'Read your scratch block.');
    server.script(
      [
        (r: RecordedRequest) => {
          const tools = msgs(r).filter((m) => m.role === 'tool').map(text);
          expect(tools[0]).toBe("[block 'scratch' was loaded in an earlier batch; an unpinned block's content stays only in the batch that loaded it: load it again to read it, or pin it to keep it in context]");
          expect(JSON.stringify(r.body.messages)).not.toContain('scratch-words-17');
          return { kind: 'text', text: 'done' } as const;
        },
      ].map((f) => guarded(seen(f))),
    );
    await send(c.id, 'And now?');
    expect(everyRequest).toHaveLength(4);
    for (const r of everyRequest) {
      expect(systemOf(r)).toContain('# Memory: pinned blocks');
      expect(systemOf(r)).toContain('<block label="persona" schema="Text" type="Working" permission="ReadWrite"');
      expect(systemOf(r)).toContain('Ada likes tea');
      expect(systemOf(r)).toContain("[1 pinned block left out, over the memory budget of 8,000 characters: 'big' (7,990 characters); read it with block load]");
      expect(systemOf(r)).not.toContain('scratch-words-17');
    }
  });

  it('a model edits a Human block: the consent card waits with the diff, the answer goes on the timeline, allow applies and deny does not', async () => {
    const { server, call: op, model, messages, turns } = await start();
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    const owner = `conversation:${c.id}`;
    await op('memory.blocks.create', { owner, label: 'persona', content: 'Ada', permission: 'Human' });
    server.script(
      [
        () => call('block_edit', { op: 'replace', label: 'persona', old: 'Ada', new: 'Ada Lovelace' }),
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("block 'persona' holds 12 of 5000 characters");
          return call('block_edit', { op: 'append', label: 'persona', content: 'likes tea' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toBe("refused by human consent: the user denied block_edit append on block 'persona'; nothing was changed");
          return { kind: 'text', text: 'understood' } as const;
        },
      ].map(guarded),
    );
    const ended = () => turns.filter((t) => t.conversationId === c.id && t.state !== 'running').length;
    await op('chat.send', { conversationId: c.id, text: 'Use my full name.' });
    const waiting = async () => {
      for (let i = 0; i < 1500; i++) {
        const card = (await messages(c.id)).at(-1)?.tool;
        if (card?.status === 'awaiting-approval' && card.consent) return card;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('no consent card');
    };
    const first = await waiting();
    expect(first).toMatchObject({ slug: 'block-edit', source: 'model', consent: { operation: 'block_edit.replace', label: 'persona', permission: 'Human', before: 'Ada', after: 'Ada Lovelace' } });
    expect(first.consent!.diff).toMatch(/^\+Ada Lovelace$/m);
    expect(await op('memory.consent.respond', { id: first.consent!.id, answer: 'allow-once' })).toEqual({ accepted: true });
    const second = await waiting().then(async (x) => (x.consent!.id === first.consent!.id ? (await new Promise((r) => setTimeout(r, 50)), waiting()) : x));
    expect(second.consent).toMatchObject({ operation: 'block_edit.append' });
    expect(await op('memory.consent.respond', { id: second.consent!.id, answer: 'deny' })).toEqual({ accepted: true });
    for (let i = 0; i < 1500 && ended() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await op('memory.blocks.get', { owner, label: 'persona' })).text).toBe('Ada Lovelace');
    const rows = await messages(c.id);
    expect(rows.filter((m) => m.tool?.consent?.answer).map((m) => [m.text, m.tool?.status])).toEqual([
      ["consent allow-once: block_edit replace on block 'persona'", 'running'],
      ["consent deny: block_edit append on block 'persona'", 'running'],
    ]);
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', text: 'understood' });
    // An answer to a question no longer open is not accepted.
    expect(await op('memory.consent.respond', { id: first.consent!.id, answer: 'deny' })).toEqual({ accepted: false });
  });
});
