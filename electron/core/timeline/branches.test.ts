import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { ConversationStore, type ConversationChange } from './conversation-store';
import { MIGRATIONS, migrate } from './migrations';

const tempDir = useTempDirs();

async function openStore() {
  const file = path.join(await tempDir(), 'conversations.sqlite');
  let t = Date.parse('2026-03-01T10:00:00Z');
  const changes: ConversationChange[] = [];
  const store = ConversationStore.open({ file, now: () => new Date((t += 1000)), onChange: (c) => changes.push(c) });
  return { store, file, changes };
}

const texts = (store: ConversationStore, id: string) => store.messages(id).map((m) => m.text);

describe('branches of an edited message', () => {
  it('keeps the old message and what followed it as a branch, and switches between them', async () => {
    const { store, changes } = await openStore();
    const c = store.create();
    const [q1] = store.addMessages(c.id, [{ role: 'user', text: 'q1' }, { role: 'assistant', text: 'a1' }]);
    store.addMessages(c.id, [{ role: 'user', text: 'q2' }, { role: 'assistant', text: 'a2' }]);
    const seen = changes.length;
    const [q1b] = store.addMessages(c.id, [{ role: 'user', text: 'q1 again' }], { forkAt: q1!.id });
    // Whoever shows it reads it again: the change carries no rows.
    expect(changes.slice(seen).find((ch) => ch.kind === 'messages')?.messages).toBeUndefined();
    store.addMessages(c.id, [{ role: 'assistant', text: 'a1 again' }]);
    expect(texts(store, c.id)).toEqual(['q1 again', 'a1 again']);
    expect(store.get(c.id).messageCount).toBe(2);
    expect(store.timeline(c.id).map((m) => m.text)).toEqual(['q1 again', 'a1 again']);
    expect(store.branchPoints(c.id)).toEqual([{ messageId: q1b!.id, index: 1, count: 2 }]);

    expect(store.switchBranch(c.id, q1b!.id, 0).map((m) => m.text)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(store.branchPoints(c.id)).toEqual([{ messageId: q1!.id, index: 0, count: 2 }]);
    // New rows go to the end of the branch shown.
    store.addMessages(c.id, [{ role: 'user', text: 'q3' }]);
    expect(texts(store, c.id)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3']);
    expect(store.switchBranch(c.id, q1!.id, 1).map((m) => m.text)).toEqual(['q1 again', 'a1 again']);
    // Search finds only what is shown.
    expect(store.list({ q: 'q3' })).toEqual([]);
  });

  it('forks a fork, adds versions to a fork, and keeps each fork’s choice', async () => {
    const { store } = await openStore();
    const c = store.create();
    const [q1] = store.addMessages(c.id, [{ role: 'user', text: 'q1' }, { role: 'assistant', text: 'a1' }]);
    const [q1b] = store.addMessages(c.id, [{ role: 'user', text: 'q1b' }, { role: 'assistant', text: 'a1b' }], { forkAt: q1!.id });
    const [q2] = store.addMessages(c.id, [{ role: 'user', text: 'q2' }, { role: 'assistant', text: 'a2' }]);
    const [q2b] = store.addMessages(c.id, [{ role: 'user', text: 'q2b' }, { role: 'assistant', text: 'a2b' }], { forkAt: q2!.id });
    expect(texts(store, c.id)).toEqual(['q1b', 'a1b', 'q2b', 'a2b']);
    expect(store.branchPoints(c.id)).toEqual([
      { messageId: q1b!.id, index: 1, count: 2 },
      { messageId: q2b!.id, index: 1, count: 2 },
    ]);
    // Editing the first row of a version adds a version to the same fork.
    const [q1c] = store.addMessages(c.id, [{ role: 'user', text: 'q1c' }], { forkAt: q1b!.id });
    expect(texts(store, c.id)).toEqual(['q1c']);
    expect(store.branchPoints(c.id)).toEqual([{ messageId: q1c!.id, index: 2, count: 3 }]);
    // Back to the second version: the inner fork is as it was left.
    store.switchBranch(c.id, q1c!.id, 1);
    expect(texts(store, c.id)).toEqual(['q1b', 'a1b', 'q2b', 'a2b']);
    store.switchBranch(c.id, q2b!.id, 0);
    expect(texts(store, c.id)).toEqual(['q1b', 'a1b', 'q2', 'a2']);
  });

  it('forks above a fork: the fork below goes along with the old version', async () => {
    const { store } = await openStore();
    const c = store.create();
    const [q1] = store.addMessages(c.id, [{ role: 'user', text: 'q1' }, { role: 'assistant', text: 'a1' }]);
    const [q2] = store.addMessages(c.id, [{ role: 'user', text: 'q2' }, { role: 'assistant', text: 'a2' }]);
    store.addMessages(c.id, [{ role: 'user', text: 'q2b' }], { forkAt: q2!.id });
    const [q1b] = store.addMessages(c.id, [{ role: 'user', text: 'q1b' }], { forkAt: q1!.id });
    expect(texts(store, c.id)).toEqual(['q1b']);
    store.switchBranch(c.id, q1b!.id, 0);
    expect(texts(store, c.id)).toEqual(['q1', 'a1', 'q2b']);
    expect(store.branchPoints(c.id).map((b) => [b.index, b.count])).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });

  it('refuses a message with no versions and a version that does not exist', async () => {
    const { store } = await openStore();
    const c = store.create();
    const [q1, a1] = store.addMessages(c.id, [{ role: 'user', text: 'q1' }, { role: 'assistant', text: 'a1' }]);
    expect(() => store.switchBranch(c.id, q1!.id, 0)).toThrow(/no other versions/);
    const [q1b] = store.addMessages(c.id, [{ role: 'user', text: 'q1b' }], { forkAt: q1!.id });
    expect(() => store.switchBranch(c.id, q1b!.id, 2)).toThrow(/no version 3/);
    // A row of a version not shown is not found.
    expect(() => store.switchBranch(c.id, a1!.id, 0)).toThrow(/no message/);
  });

  it('cuts (regenerate) every version below the cut, and deleting the conversation removes every branch', async () => {
    const { store, file } = await openStore();
    const c = store.create();
    const [q1] = store.addMessages(c.id, [{ role: 'user', text: 'q1' }, { role: 'assistant', text: 'a1' }]);
    const [q2] = store.addMessages(c.id, [{ role: 'user', text: 'q2' }, { role: 'assistant', text: 'a2' }]);
    store.addMessages(c.id, [{ role: 'user', text: 'q2b' }, { role: 'assistant', text: 'a2b' }], { forkAt: q2!.id });
    expect(store.truncate(c.id, q1!.id, { inclusive: false })).toBe(5);
    expect(texts(store, c.id)).toEqual(['q1']);
    expect(store.branchPoints(c.id)).toEqual([]);

    store.addMessages(c.id, [{ role: 'user', text: 'q1b' }], { forkAt: q1!.id });
    const other = store.create();
    store.addMessages(other.id, [{ role: 'user', text: 'kept' }]);
    store.delete(c.id);
    store.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM messages WHERE conversation_id = ?').pluck().get(c.id)).toBe(0);
    expect(db.prepare('SELECT count(*) FROM message_forks').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(1);
    db.close();
  });

  it('reads a database of the previous schema: its rows are the trunk, shown', async () => {
    const file = path.join(await tempDir(), 'conversations.sqlite');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, -1));
    old.prepare(`INSERT INTO conversations (id, title, title_source, created_at, updated_at) VALUES ('c1', 'Old', 'user', 'x', 'x')`).run();
    old.prepare(`INSERT INTO messages (id, conversation_id, role, created_at, text) VALUES ('m1', 'c1', 'user', 'x', 'old')`).run();
    old.close();
    const store = ConversationStore.open({ file, now: () => new Date() });
    expect(store.messages('c1').map((m) => m.text)).toEqual(['old']);
    expect(store.branchPoints('c1')).toEqual([]);
    store.addMessages('c1', [{ role: 'user', text: 'old, edited' }], { forkAt: 'm1' });
    expect(store.messages('c1').map((m) => m.text)).toEqual(['old, edited']);
    expect(store.switchBranch('c1', store.branchPoints('c1')[0]!.messageId, 0).map((m) => m.text)).toEqual(['old']);
    store.close();
  });
});
