import Database from 'better-sqlite3';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import type { ToolCard } from '../../../shared/model/conversation';
import { useTempDirs } from '../testing/temp-dir';
import { ConversationStore, type ConversationChange } from './conversation-store';
import { MIGRATIONS, migrate } from './migrations';
import { APP_CLOSED_CALL, DEFAULT_TITLE } from './strings';

const tempDir = useTempDirs();

/** A clock that moves one second per call, so updated_at orders are certain. */
function steppingClock(start = Date.parse('2026-03-01T10:00:00Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

async function openStore(file?: string) {
  const dir = await tempDir();
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  const changes: ConversationChange[] = [];
  const f = file ?? path.join(dir, 'conversations.sqlite');
  const store = ConversationStore.open({ file: f, now: steppingClock(), problems: (p) => problems.push(p), onChange: (c) => changes.push(c) });
  return { store, problems, changes, file: f, dir };
}

describe('ConversationStore', () => {
  it('creates the schema on an empty database and records its version', async () => {
    const { store, file } = await openStore();
    store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['context_sections', 'conversations', 'messages']));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('runs only the migrations a database has not had, in order, and refuses a newer schema', () => {
    const db = new Database(':memory:');
    const ran: string[] = [];
    const list = [
      { name: 'a', up: () => ran.push('a') },
      { name: 'b', up: () => ran.push('b') },
    ];
    migrate(db, list.slice(0, 1));
    expect(ran).toEqual(['a']);
    migrate(db, list);
    expect(ran).toEqual(['a', 'b']);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(() => migrate(db, list.slice(0, 1))).toThrow(/newer Toolsmith/);
    db.close();
  });

  it('rolls back a failing migration, leaving the version where it was', () => {
    const db = new Database(':memory:');
    const bad = [
      { name: 'ok', up: (d: Database.Database) => d.exec('CREATE TABLE t (x)') },
      {
        name: 'half',
        up: (d: Database.Database) => {
          d.exec('CREATE TABLE u (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => migrate(db, bad)).toThrow('boom');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'u'`).get()).toEqual({ n: 0 });
    db.close();
  });

  it('keeps conversations, messages and context after a reopen', async () => {
    const { store, file } = await openStore();
    const c = store.create('Notes');
    store.addMessages(c.id, [
      { role: 'user', text: 'hello', outcomes: [{ directive: '@input file:a.md', inlineText: 'A' }] },
      { role: 'notice', text: 'kept' },
    ]);
    store.setContext(c.id, [{ id: 's1', title: 'Rules', text: '@model none\nbe brief', enabled: true }]);
    store.close();

    const again = ConversationStore.open({ file, now: () => new Date() });
    expect(again.get(c.id)).toMatchObject({ title: 'Notes', messageCount: 2 });
    const msgs = again.messages(c.id);
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ['user', 'hello'],
      ['notice', 'kept'],
    ]);
    expect(msgs[0]!.outcomes).toEqual([{ directive: '@input file:a.md', inlineText: 'A' }]);
    expect(msgs[1]).not.toHaveProperty('outcomes');
    expect(again.contextSections(c.id)).toEqual([{ id: 's1', title: 'Rules', text: '@model none\nbe brief', enabled: true }]);
    again.close();
  });

  it('lists newest activity first and moves a conversation up when it gets a message', async () => {
    const { store } = await openStore();
    const a = store.create('A');
    const b = store.create('B');
    expect(store.list().map((c) => c.title)).toEqual(['B', 'A']);
    store.addMessages(a.id, [{ role: 'user', text: 'x' }]);
    expect(store.list().map((c) => c.title)).toEqual(['A', 'B']);
    expect(store.list({ limit: 1 }).map((c) => c.id)).toEqual([a.id]);
    expect(b.messageCount).toBe(0);
  });

  it('searches titles in any case, with % and _ matching only themselves', async () => {
    const { store } = await openStore();
    for (const t of ['Budget 100% done', 'Budget 1000 done', 'snake_case notes', 'snakeXcase notes', 'Ünïcode Straße']) store.create(t);
    const titles = (q: string) => store.list({ q }).map((c) => c.title).sort();
    expect(titles('100%')).toEqual(['Budget 100% done']);
    expect(titles('%')).toEqual(['Budget 100% done']);
    expect(titles('_')).toEqual(['snake_case notes']);
    expect(titles('SNAKE')).toEqual(['snakeXcase notes', 'snake_case notes']);
    expect(titles('ünïcode')).toEqual(['Ünïcode Straße']);
    expect(titles('\\')).toEqual([]);
    expect(titles('  ')).toHaveLength(5);
  });

  it("tells the rows it added and the conversation after them with each 'messages' change", async () => {
    const { store, changes } = await openStore();
    const c = store.create('Carried');
    const added = store.addMessages(c.id, [
      { role: 'user', text: 'one' },
      { role: 'notice', text: 'two' },
    ]);
    const last = changes.at(-1)!;
    expect(last).toEqual({ conversationId: c.id, kind: 'messages', messages: added, conversation: store.get(c.id) });
    expect(last.conversation!.messageCount).toBe(2);
    expect(last.messages!.map((m) => m.text)).toEqual(['one', 'two']);
    expect(store.messages(c.id)).toEqual(added);
  });

  it('names a new conversation by default, then after the first message; a chosen title stays', async () => {
    const { store, changes } = await openStore();
    const c = store.create();
    expect(c.title).toBe(DEFAULT_TITLE);
    store.addMessages(c.id, [{ role: 'user', text: 'Plan the trip\nmore' }], { titleFrom: '\n  Plan the trip  \nmore' });
    expect(store.get(c.id).title).toBe('Plan the trip');
    store.addMessages(c.id, [{ role: 'user', text: 'second' }], { titleFrom: 'second' });
    expect(store.get(c.id).title).toBe('Plan the trip');
    expect(changes.filter((x) => x.conversationId === c.id).map((x) => x.kind)).toEqual(['created', 'renamed', 'messages', 'messages']);

    const named = store.create('Mine');
    store.addMessages(named.id, [{ role: 'user', text: 'other' }], { titleFrom: 'other' });
    expect(store.get(named.id).title).toBe('Mine');

    const long = store.create();
    store.addMessages(long.id, [{ role: 'user', text: 'x' }], { titleFrom: 'y'.repeat(500) });
    const title = store.get(long.id).title;
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title.endsWith('…')).toBe(true);
  });

  it('renames, and answers NOT_FOUND for unknown conversations everywhere', async () => {
    const { store } = await openStore();
    const c = store.create();
    expect(store.rename(c.id, '  Renamed ').title).toBe('Renamed');
    const missing = 'no-such-id';
    for (const f of [
      () => store.get(missing),
      () => store.rename(missing, 'x'),
      () => store.delete(missing),
      () => store.messages(missing),
      () => store.addMessages(missing, [{ role: 'user', text: 'x' }]),
      () => store.contextSections(missing),
      () => store.setContext(missing, []),
    ]) {
      expect(f).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    }
  });

  it('deletes a conversation with its messages and context sections', async () => {
    const { store, file, changes } = await openStore();
    const keep = store.create('keep');
    const gone = store.create('gone');
    store.addMessages(gone.id, [{ role: 'user', text: 'a' }, { role: 'notice', text: 'b' }]);
    store.addMessages(keep.id, [{ role: 'user', text: 'c' }]);
    store.setContext(gone.id, [{ id: 's', title: 't', text: 'x', enabled: true }]);
    store.delete(gone.id);
    expect(changes.at(-1)).toEqual({ conversationId: gone.id, kind: 'deleted' });
    store.close();

    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?').get(gone.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM context_sections WHERE conversation_id = ?').get(gone.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?').get(keep.id)).toEqual({ n: 1 });
    db.close();
  });

  it('replaces context sections in order and refuses duplicate ids without changing anything', async () => {
    const { store } = await openStore();
    const c = store.create();
    store.setContext(c.id, [
      { id: 'b', title: 'B', text: '2', enabled: false },
      { id: 'a', title: 'A', text: '1', enabled: true },
    ]);
    expect(store.contextSections(c.id).map((s) => s.id)).toEqual(['b', 'a']);
    expect(() =>
      store.setContext(c.id, [
        { id: 'x', title: 'X', text: '', enabled: true },
        { id: 'x', title: 'Y', text: '', enabled: true },
      ]),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(store.contextSections(c.id).map((s) => s.id)).toEqual(['b', 'a']);
    expect(store.setContext(c.id, [])).toEqual([]);
  });

  for (const [label, bytes] of [
    ['garbage', Buffer.from('this is not a database at all, just text'.repeat(200))],
    ['truncated header', Buffer.from('SQLite format 3\u0000')],
  ] as const) {
    it(`moves a ${label} file aside, reports it, and starts fresh`, async () => {
      const dir = await tempDir();
      const file = path.join(dir, 'conversations.sqlite');
      await fs.writeFile(file, bytes);
      const { store, problems } = await openStore(file);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ kind: 'corrupt-file', path: file });
      expect(await fs.readFile(problems[0]!.movedTo!)).toEqual(bytes);
      const c = store.create('works');
      expect(store.list().map((x) => x.id)).toEqual([c.id]);
      store.close();
    });
  }

  it('leaves a database written by a newer version where it is, untouched, and works in memory', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'conversations.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE future (x TEXT)');
    db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    const before = await fs.readFile(file);
    const { store, problems } = await openStore(file);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: file, message: expect.stringContaining(`schema version ${MIGRATIONS.length + 5}`) });
    expect(problems[0]!.message).toContain('newer Toolsmith');
    expect(problems[0]).not.toHaveProperty('movedTo');
    expect(store.create('in memory').title).toBe('in memory');
    store.close();
    expect((await fs.readdir(dir)).filter((f) => f.includes('corrupt'))).toEqual([]);
    expect(await fs.readFile(file)).toEqual(before);
  });

  it('closes the calls the app left running or awaiting approval with a cancelled row, once', async () => {
    const { store, file } = await openStore();
    const c = store.create('t');
    const card = (invocationId: string, status: ToolCard['status']): ToolCard => ({
      invocationId,
      bundleId: 'b',
      slug: 'echo',
      version: '1',
      displayName: 'Echo',
      args: {},
      status,
      source: 'model',
      callId: `k-${invocationId}`,
    });
    store.addMessages(c.id, [
      { role: 'tool', text: '', tool: card('a', 'running'), turnId: 't1' },
      { role: 'tool', text: '', tool: card('a', 'ok'), turnId: 't1' },
      { role: 'tool', text: '', tool: card('b', 'running'), turnId: 't1' },
      { role: 'tool', text: '', tool: card('c', 'awaiting-approval'), turnId: 't1' },
    ]);
    store.close();
    const reopened = ConversationStore.open({ file, now: () => new Date() });
    const rows = reopened.messages(c.id);
    expect(rows).toHaveLength(6);
    expect(rows.slice(4)).toEqual([
      expect.objectContaining({ role: 'tool', turnId: 't1', text: APP_CLOSED_CALL, tool: expect.objectContaining({ invocationId: 'b', callId: 'k-b', status: 'cancelled', error: { code: 'CANCELLED', message: APP_CLOSED_CALL } }) }),
      expect.objectContaining({ tool: expect.objectContaining({ invocationId: 'c', status: 'cancelled' }) }),
    ]);
    reopened.close();
    const again = ConversationStore.open({ file, now: () => new Date() });
    expect(again.messages(c.id)).toHaveLength(6);
    again.close();
  });

  it('falls back to memory when the folder cannot hold a database, reporting it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'missing-folder', 'conversations.sqlite');
    const { store, problems } = await openStore(file);
    expect(problems[0]).toMatchObject({ kind: 'io-error', path: file });
    expect(store.create('in memory').title).toBe('in memory');
    store.close();
  });
});

describe('ConversationStore: models in the chat (migration 2)', () => {
  it("brings a version-2 database up and keeps a conversation's extraction thresholds across a reopen", async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'conversations.sqlite');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 2));
    old.prepare(`INSERT INTO conversations (id, title, title_source, created_at, updated_at) VALUES ('c1', 'Old', 'user', 'x', 'x')`).run();
    old.close();

    const { store } = await openStore(file);
    expect(store.get('c1')).not.toHaveProperty('extraction');
    expect(store.setExtraction('c1', { maxChunksForFullMode: 4, overlapPercent: 0 }).extraction).toEqual({ maxChunksForFullMode: 4, overlapPercent: 0 });
    expect(() => store.setExtraction('nope', null)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    store.close();
    const again = ConversationStore.open({ file, now: () => new Date() });
    expect(again.get('c1').extraction).toEqual({ maxChunksForFullMode: 4, overlapPercent: 0 });
    again.close();
    // A stored value that no longer fits the schema is dropped, not a broken conversation.
    const raw = new Database(file);
    raw.prepare(`UPDATE conversations SET extraction = '{"maxChunksForFullMode":-3}' WHERE id = 'c1'`).run();
    raw.close();
    const third = ConversationStore.open({ file, now: () => new Date() });
    expect(third.get('c1')).not.toHaveProperty('extraction');
    expect(third.get('c1').title).toBe('Old');
    third.close();
  });

  it('brings a version-1 database up with its rows kept, and stores model, tools and the timeline fields', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'conversations.sqlite');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 1));
    old.prepare(`INSERT INTO conversations (id, title, title_source, created_at, updated_at) VALUES ('c1', 'Old', 'user', 'x', 'x')`).run();
    old.prepare(`INSERT INTO messages (id, conversation_id, role, created_at, text) VALUES ('m1', 'c1', 'user', 'x', 'hello')`).run();
    old.close();

    const { store } = await openStore(file);
    expect(store.get('c1')).toMatchObject({ title: 'Old', messageCount: 1 });
    expect(store.get('c1')).not.toHaveProperty('model');
    expect(store.messages('c1')).toEqual([{ id: 'm1', conversationId: 'c1', role: 'user', createdAt: 'x', text: 'hello' }]);

    const model = { providerId: 'p', model: 'llama3' };
    expect(store.setModel('c1', model).model).toEqual(model);
    expect(store.setTools('c1', { bundleIds: ['b'], toolIds: [] }).tools).toEqual({ bundleIds: ['b'], toolIds: [] });
    expect(store.setModel('c1', null)).not.toHaveProperty('model');
    expect(() => store.setModel('nope', model)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => store.setTools('nope', null)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(store.create('With model', model).model).toEqual(model);

    const [a] = store.addMessages('c1', [
      { role: 'assistant', text: 'hi', turnId: 't1', model, usage: { inputTokens: 3 }, toolCalls: [{ callId: 'k', name: 'echo', argsText: '{}' }] },
      { role: 'notice', text: 'down', turnId: 't1', error: { code: 'UNAVAILABLE', message: 'down' } },
      { role: 'user', text: '@input file:x\nread', prompt: 'read\n\n[input] file:x\nbody' },
    ]);
    expect(a).not.toHaveProperty('toolCalls');
    const messages = store.messages('c1');
    expect(messages[1]).toMatchObject({ turnId: 't1', model, usage: { inputTokens: 3 } });
    expect(messages[1]).not.toHaveProperty('toolCalls');
    expect(messages[2]).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    expect(messages[3]).not.toHaveProperty('prompt');
    const timeline = store.timeline('c1');
    expect(timeline[1]!.toolCalls).toEqual([{ callId: 'k', name: 'echo', argsText: '{}' }]);
    expect(timeline[3]!.prompt).toBe('read\n\n[input] file:x\nbody');
    store.close();
  });
});

describe('the task graph below a conversation', () => {
  const tempDir2 = useTempDirs();
  async function openTasks() {
    const file = path.join(await tempDir2(), 'conversations.sqlite');
    const roots: string[] = [];
    const store = ConversationStore.open({ file, now: () => new Date(), onTasks: (r) => roots.push(r) });
    return { store, file, roots };
  }
  const base = { kind: 'agent' as const, agent: 'analyst', request: 'sum the sales', documents: ['data/sales.csv'], depth: 1, invocationId: 'inv-1' };

  it('numbers tasks per conversation; an agent task has a hidden conversation of its own', async () => {
    const { store, roots } = await openTasks();
    const root = store.create('Sales');
    const t1 = store.createTask({ ...base, rootId: root.id, parentId: root.id, model: { providerId: 'p', model: 'm' } });
    expect(t1).toMatchObject({ rootId: root.id, parentId: root.id, number: 1, kind: 'agent', status: 'running', documents: ['data/sales.csv'], depth: 1 });
    expect(store.get(t1.id)).toMatchObject({ title: 'Task 1: analyst', model: { providerId: 'p', model: 'm' } });
    const q = store.createTask({ ...base, kind: 'question', agent: 'analyst', request: 'which quarter?', rootId: root.id, parentId: t1.id, depth: 2, invocationId: 'inv-2' });
    expect(q).toMatchObject({ number: 2, kind: 'question', status: 'waiting' });
    expect(store.has(q.id)).toBe(false);
    // Only the conversation the person started is listed.
    expect(store.list().map((c) => c.id)).toEqual([root.id]);
    expect(store.list({ q: 'Task' })).toEqual([]);
    expect(store.tasks(root.id).map((t) => t.number)).toEqual([1, 2]);
    expect(store.taskOf(t1.id)?.agent).toBe('analyst');
    expect(store.taskOf(root.id)).toBeUndefined();
    expect(roots).toEqual([root.id, root.id]);
  });

  it('ends a task with its result and time; deleting the conversation removes its tasks and their timelines, each told as deleted', async () => {
    const deleted: string[] = [];
    const file = path.join(await tempDir2(), 'conversations.sqlite');
    const store = ConversationStore.open({ file, now: () => new Date(), onChange: (c) => c.kind === 'deleted' && deleted.push(c.conversationId) });
    const root = store.create('Sales');
    const t1 = store.createTask({ ...base, rootId: root.id, parentId: root.id });
    store.addMessages(t1.id, [{ role: 'user', text: 'sum the sales' }]);
    const done = store.updateTask(t1.id, { status: 'done', result: '42', resultDocuments: ['out/sum.md'] });
    expect(done).toMatchObject({ status: 'done', result: '42', resultDocuments: ['out/sum.md'] });
    expect(done.endedAt).toBeDefined();
    expect(() => store.task('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    const t2 = store.createTask({ ...base, agent: 'writer', rootId: root.id, parentId: t1.id, depth: 2, invocationId: 'inv-2' });
    const other = store.create('Other');
    store.delete(root.id);
    expect(store.has(t1.id)).toBe(false);
    expect(store.tasks(root.id)).toEqual([]);
    expect(deleted.sort()).toEqual([root.id, t1.id, t2.id].sort());
    expect(store.has(other.id)).toBe(true);
    store.close();
  });

  it('tasks the app left running, blocked or waiting end cancelled when it opens again', async () => {
    const { store, file } = await openTasks();
    const root = store.create('Sales');
    const t1 = store.createTask({ ...base, rootId: root.id, parentId: root.id });
    store.updateTask(t1.id, { status: 'blocked' });
    const q = store.createTask({ ...base, kind: 'question', rootId: root.id, parentId: t1.id, depth: 2, invocationId: 'inv-2' });
    const t2 = store.createTask({ ...base, agent: 'writer', rootId: root.id, parentId: root.id, invocationId: 'inv-3' });
    store.updateTask(t2.id, { status: 'done', result: 'ok' });
    store.close();
    const again = ConversationStore.open({ file, now: () => new Date() });
    const byId = new Map(again.tasks(root.id).map((t) => [t.id, t]));
    expect(byId.get(t1.id)).toMatchObject({ status: 'cancelled', error: 'the app closed while this task ran' });
    expect(byId.get(q.id)!.status).toBe('cancelled');
    expect(byId.get(t2.id)!.status).toBe('done');
    again.close();
  });

  it('an ended task stays ended: a late "running" from a parallel call does not reopen it', async () => {
    const { store } = await openTasks();
    const root = store.create('Sales');
    const t1 = store.createTask({ ...base, rootId: root.id, parentId: root.id });
    store.updateTask(t1.id, { status: 'done', result: 'X', resultDocuments: ['a.md'] });
    expect(store.updateTask(t1.id, { status: 'running' })).toMatchObject({ status: 'done', result: 'X', resultDocuments: ['a.md'] });
    store.close();
  });

  it('a process beside the running app (recoverInterrupted false) leaves its running calls and tasks alone', async () => {
    const { store, file } = await openTasks();
    const root = store.create('Sales');
    const t1 = store.createTask({ ...base, rootId: root.id, parentId: root.id });
    store.close();
    const beside = ConversationStore.open({ file, now: () => new Date(), recoverInterrupted: false });
    expect(beside.task(t1.id).status).toBe('running');
    beside.close();
  });
});
