import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpName } from '../../shared/contract';
import type { Conversation, Message } from '../../shared/model/conversation';
import type { ConversationDetail } from './conversation-cache';
import { applyEvent } from './invalidation';

/** A cache with queries on screen (observed, as in the app: fresh until an event says otherwise). */
function screen() {
  const qc = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  const reads: string[] = [];
  const offs: (() => void)[] = [];
  const show = async <T,>(name: OpName, input: object, answer: () => T | Promise<T>) => {
    const queryKey = [name, input];
    const observer = new QueryObserver(qc, {
      queryKey,
      queryFn: () => {
        reads.push(`${name} ${JSON.stringify(input)}`);
        return answer();
      },
    });
    offs.push(observer.subscribe(() => undefined));
    await waitFor(() => qc.getQueryState(queryKey)?.status === 'success');
    reads.length = 0;
    return queryKey;
  };
  const settled = () => waitFor(() => qc.isFetching() === 0);
  return { qc, reads, show, settled, close: () => offs.forEach((off) => off()) };
}

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
}

const conv = (id: string, messageCount: number, updatedAt = '2025-01-01T00:00:00.000Z'): Conversation => ({
  id,
  title: `Conversation ${id}`,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt,
  messageCount,
});
const msg = (id: string, conversationId: string, text = id): Message => ({ id, conversationId, role: 'tool', createdAt: '2025-01-01T00:00:01.000Z', text });
const detail = (c: Conversation, messages: Message[]): ConversationDetail => ({ conversation: c, messages, contextSections: [] });

let close: () => void = () => undefined;
afterEach(() => close());

describe('events applied to the cache', () => {
  it('appends the rows a messages event carries to that conversation and its list entry, reading nothing', async () => {
    const s = screen();
    close = s.close;
    const a = await s.show('conversations.get', { id: 'a' }, () => detail(conv('a', 1), [msg('m1', 'a')]));
    const b = await s.show('conversations.get', { id: 'b' }, () => detail(conv('b', 0), []));
    const list = await s.show('conversations.list', {}, () => [conv('a', 1), conv('b', 0)]);

    const now = conv('a', 3, '2025-01-02T00:00:00.000Z');
    applyEvent(s.qc, 'conversations.changed', { conversationId: 'a', kind: 'messages', messages: [msg('m2', 'a'), msg('m3', 'a')], conversation: now });
    // The same row answered by the call that added it: replaced, not doubled.
    applyEvent(s.qc, 'conversations.changed', { conversationId: 'a', kind: 'messages', messages: [msg('m3', 'a', 'again')], conversation: now });
    await s.settled();

    expect(s.reads).toEqual([]);
    const got = s.qc.getQueryData<ConversationDetail>(a)!;
    expect(got.messages.map((m) => [m.id, m.text])).toEqual([['m1', 'm1'], ['m2', 'm2'], ['m3', 'again']]);
    expect(got.conversation).toEqual(now);
    expect(s.qc.getQueryData<Conversation[]>(list)).toEqual([now, conv('b', 0)]);
    expect(s.qc.getQueryData<ConversationDetail>(b)!.messages).toEqual([]);
  });

  it('reads a conversation again instead when its read is under way (the answer may predate the rows)', async () => {
    const s = screen();
    close = s.close;
    let stored = [msg('m1', 'a')];
    let release: () => void = () => undefined;
    let slow = false;
    const a = await s.show('conversations.get', { id: 'a' }, async () => {
      const answer = detail(conv('a', stored.length), stored);
      if (slow) await new Promise<void>((r) => (release = r));
      return answer;
    });
    slow = true;
    void s.qc.invalidateQueries({ queryKey: a });
    await waitFor(() => s.reads.length === 1);
    slow = false;
    stored = [...stored, msg('m2', 'a')];
    applyEvent(s.qc, 'conversations.changed', { conversationId: 'a', kind: 'messages', messages: [msg('m2', 'a')], conversation: conv('a', 2) });
    release();
    await s.settled();
    expect(s.reads).toHaveLength(2);
    expect(s.qc.getQueryData<ConversationDetail>(a)!.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
  });

  it('reads again only the conversation an event names, and the lists', async () => {
    const s = screen();
    close = s.close;
    await s.show('conversations.get', { id: 'a' }, () => detail(conv('a', 0), []));
    await s.show('conversations.get', { id: 'b' }, () => detail(conv('b', 0), []));
    await s.show('conversations.list', {}, () => [conv('a', 0), conv('b', 0)]);
    applyEvent(s.qc, 'conversations.changed', { conversationId: 'a', kind: 'renamed' });
    await s.settled();
    expect(s.reads.sort()).toEqual(['conversations.get {"id":"a"}', 'conversations.list {}']);
  });

  it('an unfiltered list without the conversation is read again; a filtered one is left alone', async () => {
    const s = screen();
    close = s.close;
    await s.show('conversations.list', { limit: 1 }, () => [conv('b', 0)]);
    await s.show('conversations.list', { q: 'b' }, () => [conv('b', 0)]);
    applyEvent(s.qc, 'conversations.changed', { conversationId: 'a', kind: 'messages', messages: [msg('m1', 'a')], conversation: conv('a', 1) });
    await s.settled();
    expect(s.reads).toEqual(['conversations.list {"limit":1}']);
  });

  it('follows the running turn from chat.turn without reading the conversation', async () => {
    const s = screen();
    close = s.close;
    const a = await s.show('conversations.get', { id: 'a' }, () => detail(conv('a', 0), []));
    applyEvent(s.qc, 'chat.turn', { conversationId: 'a', turnId: 't1', state: 'running' });
    expect(s.qc.getQueryData<ConversationDetail>(a)!.runningTurnId).toBe('t1');
    applyEvent(s.qc, 'chat.turn', { conversationId: 'a', turnId: 't1', state: 'done' });
    await s.settled();
    expect(s.qc.getQueryData<ConversationDetail>(a)).not.toHaveProperty('runningTurnId');
    expect(s.reads).toEqual([]);
  });

  it('reads again only the buffers and stored outputs an event names', async () => {
    const s = screen();
    close = s.close;
    await s.show('buffers.list', { ownerId: 'a' }, () => []);
    await s.show('buffers.list', { ownerId: 'b' }, () => []);
    await s.show('buffers.read', { ownerId: 'a', name: 'results', startLine: 1, endLine: 10 }, () => ({}));
    await s.show('buffers.read', { ownerId: 'a', name: 'other', startLine: 1, endLine: 10 }, () => ({}));
    await s.show('toolOutputs.list', { conversationId: 'a' }, () => []);
    await s.show('toolOutputs.list', { conversationId: 'b' }, () => []);
    await s.show('toolOutputs.list', {}, () => []);
    applyEvent(s.qc, 'buffers.changed', { ownerId: 'a', names: ['results'] });
    applyEvent(s.qc, 'toolOutputs.changed', { conversationId: 'a' });
    await s.settled();
    expect(s.reads.sort()).toEqual([
      'buffers.list {"ownerId":"a"}',
      'buffers.read {"ownerId":"a","name":"results","startLine":1,"endLine":10}',
      'toolOutputs.list {"conversationId":"a"}',
      'toolOutputs.list {}',
    ]);
  });
  it('reads again the invocation history and usage figures of the tools a written batch called', async () => {
    const s = screen();
    close = s.close;
    await s.show('invocations.list', { toolId: 't1', limit: 50 }, () => []);
    await s.show('invocations.list', { toolId: 't2', limit: 50 }, () => []);
    await s.show('invocations.list', { limit: 1 }, () => []);
    await s.show('tools.usageSummaries', { toolIds: ['t0', 't1'] }, () => ({}));
    await s.show('tools.usageSummaries', { toolIds: ['t2'] }, () => ({}));
    await s.show('tools.usageStats', { bundleId: 'b', slug: 's', version: '1' }, () => ({}));
    applyEvent(s.qc, 'invocations.logged', { toolIds: ['t1', 't3'] });
    await s.settled();
    expect(s.reads.sort()).toEqual([
      'invocations.list {"limit":1}',
      'invocations.list {"toolId":"t1","limit":50}',
      'tools.usageStats {"bundleId":"b","slug":"s","version":"1"}',
      'tools.usageSummaries {"toolIds":["t0","t1"]}',
    ]);

    // A batch of more tools than an event lists: every history and figure.
    s.reads.length = 0;
    applyEvent(s.qc, 'invocations.logged', {});
    await s.settled();
    expect(s.reads).toHaveLength(6);
  });

  it('reads the approvals waiting in task trees again only when a row may change them', async () => {
    const s = screen();
    close = s.close;
    const card = (invocationId: string, status: 'awaiting-approval' | 'running' | 'ok') => ({ invocationId, bundleId: 'b', slug: 'writefile', version: '1', displayName: 'Write file', args: {}, status, source: 'model' as const });
    const row = (id: string, conversationId: string, tool?: ReturnType<typeof card>): Message => ({ ...msg(id, conversationId), ...(tool ? { tool } : {}) });
    const listed = { conversationId: 'task-2', taskNumber: 2, path: ['analyst', 'writer'], card: card('call-1', 'awaiting-approval') };
    await s.show('tasks.approvals', { conversationId: 'task-1' }, () => ({ approvals: [listed] }));
    const rows = (conversationId: string, messages: Message[]) => applyEvent(s.qc, 'conversations.changed', { conversationId, kind: 'messages', messages, conversation: conv(conversationId, messages.length) });
    // Text, and another call that runs: nothing waits or stops waiting.
    rows('task-3', [row('m1', 'task-3'), row('m2', 'task-3', card('call-9', 'running'))]);
    await s.settled();
    expect(s.reads).toEqual([]);
    // A call starting to wait in any timeline (a task's, however deep).
    rows('task-3', [row('m3', 'task-3', card('call-8', 'awaiting-approval'))]);
    await s.settled();
    expect(s.reads).toEqual(['tasks.approvals {"conversationId":"task-1"}']);
    // The listed call answered: it runs now.
    s.reads.length = 0;
    rows('task-2', [row('m4', 'task-2', card('call-1', 'running'))]);
    await s.settled();
    expect(s.reads).toEqual(['tasks.approvals {"conversationId":"task-1"}']);
    // A task ended.
    s.reads.length = 0;
    applyEvent(s.qc, 'tasks.changed', { rootId: 'root' });
    await s.settled();
    expect(s.reads).toEqual(['tasks.approvals {"conversationId":"task-1"}']);
  });
});
