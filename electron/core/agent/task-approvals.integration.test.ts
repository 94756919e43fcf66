/**
 * Approvals at any depth of a conversation's task tree (docs/design/orchestration.md), through
 * the whole core and the scripted model server: a call two tasks down (conversation → analyst →
 * writer) that needs approval is listed for the root conversation, labelled with its task path,
 * and the user's answer given where the listing says reaches it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedReply } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';
import { useGuardedScript } from '../testing/guarded-script';

const start = useAgentCore();
const guarded = useGuardedScript();

type Msg = { role: string; content?: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) : '');
const lastTool = (r: RecordedRequest) => text(msgs(r).filter((m) => m.role === 'tool').at(-1));
const whoOf = (r: RecordedRequest) => /You are the (\w+) agent/.exec(text(msgs(r).find((m) => m.role === 'system')))?.[1]?.toLowerCase() ?? 'root';
const tools = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });

type Step = (r: RecordedRequest) => ScriptedReply;
function byAgent(queues: Record<string, Step[]>) {
  const step = (r: RecordedRequest): ScriptedReply => queues[whoOf(r)]?.shift()?.(r) ?? { kind: 'text', text: `no script left for ${whoOf(r)}` };
  return Array.from({ length: 20 }, () => guarded(step));
}

type Env = Awaited<ReturnType<typeof start>>;
/** Polls until `get` answers something (a call starts waiting in the background). */
async function until<T>(get: () => Promise<T | undefined>, what: string): Promise<T> {
  const end = Date.now() + 12_000;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const turnEnded = (env: Env, conversationId: string) => until(async () => (env.turns.some((t) => t.conversationId === conversationId && t.state !== 'running') ? true : undefined), "the conversation's turn ending");

describe('approvals in a task tree', () => {
  it("a grandchild's call waiting for approval is listed for the root with its task path, and answered through the listing", async () => {
    const env = await start();
    const { server, core, call, model, messages } = env;
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script(
      byAgent({
        root: [() => tools('route_to_analyst', { request: 'Have the sales written up in reports/deep.md.' }), (r) => ({ kind: 'text', text: `root saw: ${lastTool(r).replace(/\s+/g, ' ')}` })],
        analyst: [() => tools('route_to_writer', { request: 'Write “North 30” to reports/deep.md.' }), (r) => tools('handoff', { result: `writer said: ${lastTool(r).split('\n')[0]}` })],
        writer: [() => tools('writefile', { path: 'reports/deep.md', content: 'North 30\n' }), (r) => tools('handoff', { result: `write: ${lastTool(r).slice(0, 40)}`, documents: ['reports/deep.md'] })],
      }),
    );
    await call('chat.send', { conversationId: c.id, text: 'Write up the sales.' });

    const [waiting] = await until(async () => {
      const { approvals } = await call('tasks.approvals', { conversationId: c.id });
      return approvals.length ? approvals : undefined;
    }, "the writer's call waiting");
    const graph = await call('tasks.graph', { conversationId: c.id });
    const analyst = graph.tasks.find((t) => t.agent === 'analyst')!;
    const writer = graph.tasks.find((t) => t.agent === 'writer')!;
    expect(writer).toMatchObject({ parentId: analyst.id, depth: 2, number: 2 });
    expect(waiting).toMatchObject({ conversationId: writer.id, taskNumber: 2, path: ['analyst', 'writer'], card: { slug: 'writefile', status: 'awaiting-approval', args: { path: 'reports/deep.md' } } });
    // The analyst's task and the writer's own list it too; the root's own timeline has nothing waiting.
    expect((await call('tasks.approvals', { conversationId: analyst.id })).approvals).toEqual([waiting]);
    expect((await call('tasks.approvals', { conversationId: writer.id })).approvals).toEqual([waiting]);
    expect((await messages(c.id)).some((m) => m.tool?.status === 'awaiting-approval')).toBe(false);

    const answered = await call('approvals.respond', { conversationId: waiting!.conversationId, invocationId: waiting!.card.invocationId, decision: 'allow-once' });
    expect(answered.accepted).toBe(true);
    await turnEnded(env, c.id);

    expect((await call('tasks.approvals', { conversationId: c.id })).approvals).toEqual([]);
    expect(await fs.readFile(path.join(core.workspaceDir(), 'reports', 'deep.md'), 'utf8')).toBe('North 30\n');
    const rows = await messages(c.id);
    expect(rows.at(-1)?.role).toBe('assistant');
    expect(rows.at(-1)?.text).toMatch(/^root saw: ← result from analyst \(task 1\).*writer said: ← result from writer \(task 2\)/);
    const done = (await call('tasks.graph', { conversationId: c.id })).tasks.map((t) => [t.agent, t.status]);
    expect(done).toEqual([
      ['analyst', 'done'],
      ['writer', 'done'],
    ]);
  });

  it("the root's own waiting call has an empty path; a stopped turn leaves nothing listed; an unknown conversation is NOT_FOUND", async () => {
    const env = await start();
    const { server, core, call, model } = env;
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([tools('writefile', { path: 'here.md', content: 'x\n' }), { kind: 'text', text: 'done' }]);
    await call('chat.send', { conversationId: c.id, text: 'Write here.md.' });
    const [own] = await until(async () => {
      const { approvals } = await call('tasks.approvals', { conversationId: c.id });
      return approvals.length ? approvals : undefined;
    }, 'the call waiting');
    expect(own).toMatchObject({ conversationId: c.id, path: [], card: { slug: 'writefile', status: 'awaiting-approval' } });
    expect(own).not.toHaveProperty('taskNumber');

    await call('chat.stop', { conversationId: c.id });
    await turnEnded(env, c.id);
    expect((await call('tasks.approvals', { conversationId: c.id })).approvals).toEqual([]);
    expect(await core.call('tasks.approvals', { conversationId: 'no-such-conversation' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
