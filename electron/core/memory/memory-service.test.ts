/**
 * The memory service on a real SQLite file: the agent's layer (AllowedOperations and
 * AdvancedEdit), read_only fields, replace with 0 and 2 matches, a patch that does not
 * apply, the character limit, consent (allow, deny, timeout, for this conversation, kept
 * across a reopen), Loro undo and redo, and persistence across reopen.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { migrate } from '../lib/sqlite-file';
import { useTempDirs } from '../testing/temp-dir';
import { SNAPSHOT_EVERY } from './block-store';
import { MIGRATIONS } from './memory-db';
import { agentActor, FakeConsent, never, openTestMemory, userActor } from './testing/memory-kit';

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('the memory service', () => {
  const tempDir = useTempDirs();

  it('refuses what the agent may not do, naming the layer, even on an Admin block', async () => {
    const m = openTestMemory(await tempDir());
    const agent = agentActor(['block.load', 'block.info', 'block_edit.append']);
    m.blocks.create({ owner: agent.owner, label: 'notes', permission: 'Admin', content: 'a' }, 'user');
    await m.blockEdit(agent, { op: 'append', label: 'notes', content: 'b' }, never);
    const e = await failure(m.blockEdit(agent, { op: 'replace', label: 'notes', old: 'a', new: 'x' }, never));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toBe('refused by agent allowed operations: the researcher agent may not use block_edit replace: it is not in its AllowedOperations (block.load, block.info, block_edit.append)');
    expect(e.details).toMatchObject({ layer: 'agent allowed operations' });
    const pin = await failure(m.block(agent, { op: 'pin', label: 'notes' }, never));
    expect(pin.message).toContain('may not use block pin');
    const recall = await failure(m.recallOp(agent, { op: 'insert', content: 'x' }));
    expect(recall.message).toContain('may not use recall insert');
    expect(m.recall.count()).toBe(0);
    expect(m.blocks.view(agent.owner, 'notes').text).toBe('a\nb');
    m.close();
  });

  it('the block layer refuses first; the agent layer refuses before the human is asked', async () => {
    const consent = new FakeConsent(['allow-once']);
    const m = openTestMemory(await tempDir(), { consent });
    const agent = agentActor(['block.load']);
    m.blocks.create({ owner: agent.owner, label: 'ro', permission: 'ReadOnly', content: 'a' }, 'user');
    m.blocks.create({ owner: agent.owner, label: 'h', permission: 'Human', content: 'a' }, 'user');
    expect((await failure(m.blockEdit(agent, { op: 'append', label: 'ro', content: 'b' }, never))).details).toMatchObject({ layer: 'block permission' });
    expect((await failure(m.blockEdit(agent, { op: 'append', label: 'h', content: 'b' }, never))).details).toMatchObject({ layer: 'agent allowed operations' });
    expect(consent.asked).toEqual([]);
    m.close();
  });

  it('patch needs the AdvancedEdit capability; with it, a diff applies; one that does not apply changes nothing', async () => {
    const m = openTestMemory(await tempDir());
    const plain = agentActor();
    const advanced = agentActor(undefined, ['AdvancedEdit']);
    m.blocks.create({ owner: plain.owner, label: 'doc', content: 'one\ntwo\nthree\n' }, 'user');
    const patch = '--- doc\n+++ doc\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n';
    const e = await failure(m.blockEdit(plain, { op: 'patch', label: 'doc', patch }, never));
    expect(e.message).toBe('refused by agent capabilities: the researcher agent may not use block_edit patch: applying a unified diff needs the AdvancedEdit capability; use replace or append instead');
    await m.blockEdit(advanced, { op: 'patch', label: 'doc', patch }, never);
    expect(m.blocks.view(plain.owner, 'doc').text).toBe('one\nTWO\nthree\n');
    const stale = await failure(m.blockEdit(advanced, { op: 'patch', label: 'doc', patch }, never));
    expect(stale.code).toBe('CONFLICT');
    expect(stale.message).toMatch(/^the patch does not apply to block 'doc': its context and removed lines must match/);
    const garbage = await failure(m.blockEdit(advanced, { op: 'patch', label: 'doc', patch: 'not a diff at all' }, never));
    expect(garbage.message).toContain("the patch does not apply to block 'doc'");
    expect(m.blocks.view(plain.owner, 'doc').text).toBe('one\nTWO\nthree\n');
    expect(m.blocks.history(plain.owner, 'doc')).toHaveLength(2);
    m.close();
  });

  it('set_field on a Composite refuses a read_only field and an unknown one; a Map takes any', async () => {
    const m = openTestMemory(await tempDir());
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'persona', schema: { kind: 'Composite', fields: [{ name: 'name', read_only: true }, { name: 'mood', read_only: false }] }, content: { name: 'Ada' } }, 'user');
    const ro = await failure(m.blockEdit(u, { op: 'set_field', label: 'persona', field: 'name', value: 'Bob' }, never));
    expect(ro.code).toBe('FORBIDDEN');
    expect(ro.message).toBe("refused by block schema: field 'name' of block 'persona' is read_only");
    const unknown = await failure(m.blockEdit(u, { op: 'set_field', label: 'persona', field: 'age', value: 3 }, never));
    expect(unknown.message).toBe("block 'persona' has no field 'age'; its fields: name, mood");
    await m.blockEdit(u, { op: 'set_field', label: 'persona', field: 'mood', value: 'curious' }, never);
    expect(m.blocks.view(u.owner, 'persona').content).toEqual({ name: 'Ada', mood: 'curious' });
    m.blocks.create({ owner: u.owner, label: 'facts', schema: { kind: 'Map' } }, 'user');
    await m.blockEdit(u, { op: 'set_field', label: 'facts', field: 'city', value: { name: 'Oslo' } }, never);
    expect(m.blocks.view(u.owner, 'facts').content).toEqual({ city: { name: 'Oslo' } });
    const wrong = await failure(m.blockEdit(u, { op: 'append', label: 'facts', content: 'x' }, never));
    expect(wrong.message).toBe("append works on Text and List blocks; 'facts' is a Map block: use set_field");
    m.close();
  });

  it('replace needs exactly one match: 0 and 2 are errors saying how many', async () => {
    const m = openTestMemory(await tempDir());
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 't', content: 'the cat sat on the mat' }, 'user');
    const none = await failure(m.blockEdit(u, { op: 'replace', label: 't', old: 'dog', new: 'fox' }, never));
    expect(none.message).toBe("replace found no match of old in block 't': old must be copied exactly from the block (load it to see its content)");
    expect(none.details).toMatchObject({ matches: 0 });
    const two = await failure(m.blockEdit(u, { op: 'replace', label: 't', old: 'the', new: 'a' }, never));
    expect(two.message).toBe("replace found 2 matches of old in block 't': it must match exactly once; give more of the surrounding text so it does");
    expect(two.details).toMatchObject({ matches: 2 });
    await m.blockEdit(u, { op: 'replace', label: 't', old: 'the mat', new: 'a mat' }, never);
    expect(m.blocks.view(u.owner, 't').text).toBe('the cat sat on a mat');
    m.close();
  });

  it('an edit over the character limit is refused with the numbers, and changes nothing', async () => {
    const m = openTestMemory(await tempDir());
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'short', content: '12345', charLimit: 10 }, 'user');
    const e = await failure(m.blockEdit(u, { op: 'append', label: 'short', content: 'abcdef' }, never));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toBe("block 'short' would hold 12 characters, over its limit of 10 (it holds 5 now): shorten the edit, or replace old content first");
    await m.blockEdit(u, { op: 'append', label: 'short', content: 'abcd' }, never);
    expect(m.blocks.view(u.owner, 'short').text).toBe('12345\nabcd');
    expect(() => m.blocks.create({ owner: u.owner, label: 'big', content: 'x'.repeat(11), charLimit: 10 }, 'user')).toThrow(/would hold 11 characters, over its limit of 10/);
    m.close();
  });

  it('consent: allow once asks each time, allow for this conversation is remembered, deny and timeout change nothing', async () => {
    const consent = new FakeConsent(['allow-once', 'deny', 'allow-conversation', 'never']);
    const m = openTestMemory(await tempDir(), { consent, consentTimeoutMs: 50 });
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'p', permission: 'Partner', content: 'a' }, 'user');
    await m.blockEdit(u, { op: 'append', label: 'p', content: 'b' }, never);
    expect(consent.asked[0]).toMatchObject({ operation: 'block_edit.append', before: 'a', after: 'a\nb', permission: 'Partner' });
    expect(consent.asked[0]!.diff).toContain('+b');
    const denied = await failure(m.blockEdit(u, { op: 'append', label: 'p', content: 'c' }, never));
    expect(denied.message).toBe("refused by human consent: the user denied block_edit append on block 'p'; nothing was changed");
    await m.blockEdit(u, { op: 'append', label: 'p', content: 'd' }, never);
    await m.blockEdit(u, { op: 'append', label: 'p', content: 'e' }, never);
    expect(consent.asked).toHaveLength(3);
    // Another operation is asked again; no answer in time is deny.
    const late = await failure(m.blockEdit(u, { op: 'replace', label: 'p', old: 'e', new: 'E' }, never));
    expect(late.message).toBe("refused by human consent: no answer to block_edit replace on block 'p' within 50 ms, which counts as deny; nothing was changed");
    expect(late.details).toMatchObject({ outcome: 'timeout' });
    expect(m.blocks.view(u.owner, 'p').text).toBe('a\nb\nd\ne');
    // Another conversation is asked again.
    m.blocks.create({ owner: 'conversation:c2', label: 'p', permission: 'Partner', content: 'a' }, 'user');
    await failure(m.blockEdit(userActor('c2'), { op: 'append', label: 'p', content: 'x' }, never));
    expect(consent.asked).toHaveLength(5);
    m.close();
  });

  it('allow for this conversation is kept across a restart, and forgotten with the conversation', async () => {
    const dir = await tempDir();
    const first = new FakeConsent(['allow-conversation']);
    const m = openTestMemory(dir, { consent: first });
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'p', permission: 'Partner', content: 'a' }, 'user');
    await m.blockEdit(u, { op: 'append', label: 'p', content: 'b' }, never);
    expect(first.asked).toHaveLength(1);
    m.close();

    // Reopened (the app restarted): the same operation on the same block goes ahead without a question.
    const second = new FakeConsent(['deny', 'deny']);
    const again = openTestMemory(dir, { consent: second });
    await again.blockEdit(u, { op: 'append', label: 'p', content: 'c' }, never);
    expect(second.asked).toHaveLength(0);
    expect(again.blocks.view(u.owner, 'p').text).toBe('a\nb\nc');
    // The conversation is deleted: its answers go with it.
    again.forgetConversation('c1');
    await failure(again.blockEdit(u, { op: 'append', label: 'p', content: 'd' }, never));
    expect(second.asked).toHaveLength(1);
    again.close();
  });

  it('brings a version-1 database up to the current version, where the answers for this conversation are kept', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'memory.sqlite');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 1));
    old.close();
    const consent = new FakeConsent(['allow-conversation']);
    const m = openTestMemory(dir, { consent });
    m.blocks.create({ owner: 'conversation:c1', label: 'p', permission: 'Partner', content: 'a' }, 'user');
    await m.blockEdit(userActor(), { op: 'append', label: 'p', content: 'b' }, never);
    await m.blockEdit(userActor(), { op: 'append', label: 'p', content: 'c' }, never);
    expect(consent.asked).toHaveLength(1);
    expect(m.blocks.view('conversation:c1', 'p').text).toBe('a\nb\nc');
    m.close();
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(raw.prepare('SELECT conversation_id, operation FROM consent_grants').all()).toEqual([{ conversation_id: 'c1', operation: 'block_edit.append' }]);
    raw.close();
  });

  it('an edit allowed after the block changed meanwhile applies nothing: the human allowed that content, not this one', async () => {
    let answer: (a: 'allow-once') => void = () => undefined;
    const asked: string[] = [];
    const consent = {
      ask: (r: { after?: string }) => {
        asked.push(r.after ?? '');
        return new Promise<'allow-once'>((resolve) => (answer = resolve));
      },
    };
    const m = openTestMemory(await tempDir(), { consent });
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'h', permission: 'Human', content: 'a' }, 'user');
    const waiting = failure(m.blockEdit(u, { op: 'append', label: 'h', content: 'b' }, never));
    await new Promise((r) => setImmediate(r));
    expect(asked).toEqual(['a\nb']);
    m.blocks.setMeta(u.owner, 'h', { permission: 'Human', pinned: true });
    answer('allow-once');
    const e = await waiting;
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe("block 'h' changed while waiting for the user's answer; nothing was applied: load it and make the edit again");
    expect(m.blocks.view(u.owner, 'h').text).toBe('a');
    m.close();
  });

  it('undo and redo walk Loro versions; a new edit drops the redo; history shows each version', async () => {
    const m = openTestMemory(await tempDir());
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'n', content: 'one' }, 'user');
    await m.blockEdit(u, { op: 'append', label: 'n', content: 'two' }, never);
    await m.blockEdit(u, { op: 'replace', label: 'n', old: 'one', new: 'ONE' }, never);
    expect(m.blocks.undo(u.owner, 'n').text).toBe('one\ntwo');
    expect(m.blocks.undo(u.owner, 'n').text).toBe('one');
    expect(() => m.blocks.undo(u.owner, 'n')).toThrow("block 'n' has nothing to undo");
    expect(m.blocks.redo(u.owner, 'n').text).toBe('one\ntwo');
    expect(m.blocks.history(u.owner, 'n').map((v) => [v.seq, v.op, v.text, v.current, v.undone])).toEqual([
      [1, 'create', 'one', false, false],
      [2, 'append', 'one\ntwo', true, false],
      [3, 'replace', 'ONE\ntwo', false, true],
    ]);
    await m.blockEdit(u, { op: 'append', label: 'n', content: 'three' }, never);
    expect(() => m.blocks.redo(u.owner, 'n')).toThrow("block 'n' has nothing to redo");
    expect(m.blocks.history(u.owner, 'n').map((v) => v.text)).toEqual(['one', 'one\ntwo', 'one\ntwo\nthree']);
    m.close();
  });

  it('blocks, versions and recall entries survive a reopen, past a snapshot fold', async () => {
    const dir = await tempDir();
    const u = userActor();
    const m = openTestMemory(dir);
    m.blocks.create({ owner: u.owner, label: 'log', schema: { kind: 'List' }, permission: 'Append', charLimit: 100_000, description: 'what happened' }, 'user');
    const n = SNAPSHOT_EVERY + 10;
    for (let i = 1; i <= n; i++) await m.blockEdit(u, { op: 'append', label: 'log', content: `item ${i}` }, never);
    await m.block(u, { op: 'pin', label: 'log' }, never);
    m.blocks.undo(u.owner, 'log');
    await m.recallOp(u, { op: 'insert', content: 'kept across restarts', metadata: { tags: ['t'] } });
    m.close();

    const again = openTestMemory(dir);
    const v = again.blocks.view(u.owner, 'log');
    expect(v.content).toHaveLength(n - 1);
    expect((v.content as string[]).at(-1)).toBe(`item ${n - 1}`);
    expect(v).toMatchObject({ pinned: true, permission: 'Append', description: 'what happened', type: 'Working' });
    expect(again.blocks.redo(u.owner, 'log').content).toHaveLength(n);
    expect(again.blocks.history(u.owner, 'log')).toHaveLength(n + 1);
    expect((await again.recallOp(u, { op: 'search', query: 'restarts' })).results?.map((r) => r.content)).toEqual(['kept across restarts']);
    again.close();
  });

  it('block ops: load gives the content, info the metadata, archive makes it Archival once; a source_id names no source yet', async () => {
    const m = openTestMemory(await tempDir());
    const u = userActor();
    m.blocks.create({ owner: u.owner, label: 'todo', schema: { kind: 'List' }, content: ['buy milk', 'call Ada'], permission: 'Admin' }, 'user');
    expect(await m.block(u, { op: 'load', label: 'todo' }, never)).toMatchObject({ content: '- buy milk\n- call Ada' });
    expect((await m.block(u, { op: 'info', label: 'todo' }, never)).message).toBe("block 'todo': List, Working, Admin, 21 of 5000 characters, not pinned");
    expect((await m.block(u, { op: 'archive', label: 'todo' }, never)).block.type).toBe('Archival');
    expect(m.recall.count()).toBe(0);
    expect((await failure(m.block(u, { op: 'archive', label: 'todo' }, never))).message).toBe("block 'todo' is already Archival");
    expect((await failure(m.block(u, { op: 'load', label: 'missing' }, never))).code).toBe('NOT_FOUND');
    expect((await failure(m.block(u, { op: 'load', label: 'todo', source_id: 'files' }, never))).message).toMatch(/^no data source 'files'/);
    m.close();
  });
});
