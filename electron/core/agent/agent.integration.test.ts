/**
 * The agent loop through the whole core (createCore on a temp folder) and a real
 * OpenAI-compatible provider: the scripted model server on 127.0.0.1, spoken to by the
 * `openai` client over HTTP and SSE.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentCore } from '../testing/agent-core';
import { STOPPED_NOTICE } from './strings';

const start = useAgentCore();

describe('the agent loop through the core and a real provider client', () => {
  it('calls a built-in tool with its full schema, gets the result back and answers', async () => {
    const { server, core, call, model, send, messages, turns } = await start();
    await fs.writeFile(path.join(core.workspaceDir(), 'notes.md'), 'the notes say 42');
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([
      { kind: 'tools', calls: [{ id: 'call_1', name: 'readfile', arguments: { path: 'notes.md' } }] },
      (req) => {
        const last = req.body.messages.at(-1);
        return { kind: 'text', text: `read: ${last.role} ${last.content}` };
      },
    ]);
    const deltas: string[] = [];
    core.events.on('chat.delta', (d) => deltas.push(d.text));
    await send(c.id, 'what do my notes say?');

    const rows = await messages(c.id);
    expect(rows.map((m) => (m.role === 'tool' ? `tool:${m.tool!.status}` : m.role))).toEqual(['user', 'assistant', 'tool:running', 'tool:ok', 'assistant']);
    expect(rows.at(-1)!.text).toContain('read: tool');
    expect(rows.at(-1)!.text).toContain('the notes say 42');
    expect(rows.at(-1)).toMatchObject({ model, turnId: turns[0]!.turnId });
    expect(deltas.join('')).toBe(rows.at(-1)!.text);
    expect(turns.map((t) => t.state)).toEqual(['running', 'done']);

    const tools = server.requests.find((r) => r.api === 'openai')!.body.tools as { function: { name: string; parameters: unknown } }[];
    const readfile = tools.find((t) => t.function.name === 'readfile')!;
    const view = core.registry.store.allTools().find((t) => t.slug === 'readfile')!;
    expect(readfile.function.parameters).toEqual(view.argSchema);
    expect(tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(['stop_and_think', 'plan_next_steps']));
  });

  it('a provider answering 500 leaves a notice and the timeline intact; the next message works', async () => {
    const { server, call, model, send, messages } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } }]);
    await send(c.id, 'hello');
    const rows = await messages(c.id);
    expect(rows.map((m) => m.role)).toEqual(['user', 'notice']);
    expect(rows[1]!.error).toBeDefined();
    expect(rows[1]!.text).toMatch(/^The model could not answer: /);

    server.script([{ kind: 'text', text: 'fine now' }]);
    await send(c.id, 'again');
    expect((await messages(c.id)).at(-1)).toMatchObject({ role: 'assistant', text: 'fine now' });
    const last = server.requests.filter((r) => r.api === 'openai').at(-1)!.body.messages as { role: string }[];
    expect(last.map((m) => m.role)).toEqual(['user']);
  });

  it('chat.stop cancels the request to the provider', async () => {
    const { server, call, model, messages, turns } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'delay', ms: 10_000 }]);
    await call('chat.send', { conversationId: c.id, text: 'take your time' });
    const end = Date.now() + 5_000;
    while (!server.requests.some((r) => r.api === 'openai') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(await call('chat.stop', { conversationId: c.id })).toEqual({ stopped: true });
    while (!turns.some((t) => t.state === 'stopped') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(turns.at(-1)!.state).toBe('stopped');
    while (!server.requests.find((r) => r.api === 'openai')!.aborted && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(server.requests.find((r) => r.api === 'openai')!.aborted).toBe(true);
    expect((await messages(c.id)).map((m) => m.role)).toEqual(['user', 'notice']);
    expect(await call('chat.stop', { conversationId: c.id })).toEqual({ stopped: false });
  });

  it('new conversations take the default model; without one the notice says how to connect a model', async () => {
    const { call, model } = await start();
    const bare = await call('conversations.create', {});
    expect(bare.model).toBeUndefined();
    const added = await call('chat.send', { conversationId: bare.id, text: 'anyone?' });
    expect(added[1]!.text).toMatch(/Choose a model above the composer, or add a provider in Settings → Models/);

    await call('settings.set', { defaultModel: model });
    const c = await call('conversations.create', {});
    expect(c.model).toEqual(model);
    expect((await call('conversations.setTools', { id: c.id, tools: { bundleIds: [], toolIds: [] } })).tools).toEqual({ bundleIds: [], toolIds: [] });
    expect((await call('conversations.setModel', { id: c.id, model: null })).model).toBeUndefined();
    await expect(call('conversations.setModel', { id: 'nope', model })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  // The core passes the secret store's redactor to the loop (app.ts).
  it('a tool result holding a secret reaches the model redacted', async () => {
    const { server, core, call, model, send } = await start();
    const secret = 'tok-very-secret-9876543210';
    await call('secrets.set', { name: 'tok', value: secret, hosts: ['example.com'] });
    await fs.writeFile(path.join(core.workspaceDir(), 'leak.md'), `key=${secret}`);
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'tools', calls: [{ name: 'readfile', arguments: { path: 'leak.md' } }] }, { kind: 'text', text: 'ok' }]);
    await send(c.id, 'read leak.md');
    const sent = JSON.stringify(server.requests.map((r) => r.body));
    expect(sent).toContain('key=[redacted]');
    expect(sent).not.toContain(secret);
  });
});

describe('closing the core during a turn', () => {
  it('waits for the stopped turn to append its last rows before the conversations close', async () => {
    const { server, core, call, model } = await start();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'delay', ms: 10_000 }]);
    const turns: string[] = [];
    core.events.on('chat.turn', (t) => turns.push(t.state));
    await call('chat.send', { conversationId: c.id, text: 'take your time' });
    const end = Date.now() + 5_000;
    while (!server.requests.some((r) => r.api === 'openai') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await core.close();
    expect(turns).toEqual(['running', 'stopped']);
    // Read as the file holds it (opening the store would repair what was left open).
    const db = new Database(path.join(core.dataDir, 'conversations.sqlite'), { readonly: true });
    const roles = db.prepare('SELECT role, text FROM messages WHERE conversation_id = ? ORDER BY seq').all(c.id) as { role: string; text: string }[];
    db.close();
    expect(roles.map((r) => r.role)).toEqual(['user', 'notice']);
    expect(roles[1]!.text).toBe(STOPPED_NOTICE);
  });
});
