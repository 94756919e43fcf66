/**
 * Memory sources through the whole core: a FileSource added with the contract op, a model
 * (the real provider client speaking to the scripted model server) using `source` and
 * `file`, the `+` palette loading a file, a folder watcher's notices reaching the block a
 * model subscribed, and the app's close stopping the watchers.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentCore } from '../../testing/agent-core';
import { useGuardedScript } from '../../testing/guarded-script';
import type { RecordedRequest, ScriptedReply } from '../../testing/scripted-model-server';
import { useTempDirs } from '../../testing/temp-dir';

const start = useAgentCore();
const tempDir = useTempDirs();
const guarded = useGuardedScript();
const MEMORY_BUNDLE = '019ab5a0-3c00-7b1a-8c90-4d2e6f8a0b10';

type Msg = { role: string; content?: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) : '');
const lastTool = (r: RecordedRequest) => text(msgs(r).filter((m) => m.role === 'tool').at(-1));
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const call = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });
const watches = () => process.getActiveResourcesInfo().filter((r) => /FSEvent|StatWatcher/.test(r)).length;

describe('memory sources in the core', () => {
  it('a model lists the sources, loads a file, appends, saves it; a save after an outside change is refused with the exact message', async () => {
    const { server, call: op, model, send, messages } = await start();
    const folder = await tempDir();
    await fs.writeFile(path.join(folder, 'todo.md'), '- buy milk');
    await fs.writeFile(path.join(folder, 'locked.md'), 'do not touch');
    await op('memory.sources.save', { kind: 'files', id: 'notes', folder, rules: [{ pattern: 'locked.md', permission: 'ReadOnly' }, { pattern: '**', permission: 'ReadWrite' }] });
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    server.script(
      [
        (r: RecordedRequest) => {
          expect(toolNames(r)).toEqual(expect.arrayContaining(['file', 'source', 'block']));
          return call('source', { op: 'list' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('notes (block source, FileSource; active)');
          return call('file', { op: 'load', path: 'todo.md' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('- buy milk');
          return call('file', { op: 'append', path: 'todo.md', content: '- call Ada' });
        },
        () => call('file', { op: 'save', path: 'todo.md' }),
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("'todo.md' saved");
          return call('file', { op: 'append', path: 'locked.md', content: 'x' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("refused by file source rules: 'locked.md' matches rule 'locked.md' of source 'notes' → ReadOnly");
          return { kind: 'text', text: 'Saved your list.' } as const;
        },
      ].map(guarded),
    );
    await send(c.id, 'Add "call Ada" to my todo list.');
    expect((await messages(c.id)).at(-1)).toMatchObject({ role: 'assistant', text: 'Saved your list.' });
    expect(await fs.readFile(path.join(folder, 'todo.md'), 'utf8')).toBe('- buy milk\n- call Ada');
    const status = (await op('memory.sources.list', {}))[0]!;
    expect(status).toMatchObject({ id: 'notes', type: 'block', state: 'active' });
    expect(status.loaded?.map((l) => l.path)).toEqual(['todo.md']);

    // The + palette runs the same tool in the conversation; the disk changed meanwhile.
    await fs.writeFile(path.join(folder, 'todo.md'), '- changed elsewhere');
    const label = status.loaded![0]!.label;
    const refused = await op('chat.runTool', { conversationId: c.id, bundleId: MEMORY_BUNDLE, slug: 'file', version: '1', args: { op: 'save', label } });
    expect(refused.tool?.error?.message).toBe('file modified externally, use `file load` to refresh');
    const loaded = await op('chat.runTool', { conversationId: c.id, bundleId: MEMORY_BUNDLE, slug: 'file', version: '1', args: { op: 'load', path: 'todo.md' } });
    expect(loaded.tool?.status).toBe('ok');
    expect((await op('memory.blocks.get', { owner: `conversation:${c.id}`, label })).text).toBe('- changed elsewhere');
  });

  it("a model subscribes a block to a folder watcher and reads the notices; source pause stops them; the app's close stops the watcher", async () => {
    const before = watches();
    const { server, core, call: op, model, send } = await start();
    const folder = await tempDir();
    await op('memory.sources.save', { kind: 'watch', id: 'inbox', folder, include: ['**/*.md'] });
    const c = await op('conversations.create', {});
    await op('conversations.setModel', { id: c.id, model });
    const owner = `conversation:${c.id}`;
    server.script(
      [
        () => call('block', { op: 'load', label: 'inbox-news', source_id: 'inbox' }),
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("block 'inbox-news' receives the notifications of folder watcher 'inbox'");
          return { kind: 'text', text: 'Watching.' } as const;
        },
      ].map(guarded),
    );
    await send(c.id, 'Tell me about new notes.');
    const noticed = new Promise<void>((resolve) => {
      const off = core.events.on('memory.changed', (e) => {
        if (e.owner === owner && e.label === 'inbox-news') {
          off();
          resolve();
        }
      });
    });
    await fs.writeFile(path.join(folder, 'ignored.txt'), 'not matched by the globs');
    await fs.writeFile(path.join(folder, 'idea.md'), 'a new idea');
    await noticed;
    expect(((await op('memory.blocks.get', { owner, label: 'inbox-news' })).content as string[]).map((t) => t.replace(/^\S+ /, ''))).toEqual(['added idea.md']);

    server.script(
      [
        () => call('block', { op: 'load', label: 'inbox-news' }),
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain('added idea.md');
          return call('source', { op: 'pause', source_id: 'inbox' });
        },
        (r: RecordedRequest) => {
          expect(lastTool(r)).toContain("folder watcher 'inbox' is paused");
          return { kind: 'text', text: 'Paused.' } as const;
        },
      ].map(guarded),
    );
    await send(c.id, 'What is new? Then stop watching.');
    expect((await op('memory.sources.list', {}))[0]).toMatchObject({ id: 'inbox', state: 'paused', notifications: 1 });
    const resumed = await op('memory.sources.resume', { id: 'inbox' });
    expect(resumed.state).toBe('watching');
    expect(watches()).toBeGreaterThan(before);
    await core.close();
    for (let i = 0; i < 400 && watches() > before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(watches()).toBe(before);
  });
});
