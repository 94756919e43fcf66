/**
 * Orchestration (docs/design/orchestration.md) through the whole core and a real provider
 * client speaking to the scripted model server: the complete flow (the conversation → analyst →
 * writer, with documents passed down and injected back up), questions to the parent agent and to
 * the human, guards, Stop across the tree, and a child's failure reaching its parent.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedReply } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';
import { useGuardedScript } from '../testing/guarded-script';
import { startScriptedModelServer } from '../testing/scripted-model-server';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { createCore } from '../app';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';

const start = useAgentCore();

type Msg = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) : '');
const systemOf = (r: RecordedRequest) => text(msgs(r).find((m) => m.role === 'system'));
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const lastTool = (r: RecordedRequest) => text(msgs(r).filter((m) => m.role === 'tool').at(-1));
const firstUser = (r: RecordedRequest) => text(msgs(r).find((m) => m.role === 'user'));

/** Who a request is for: the agent named in its system prompt, or the conversation. */
function whoOf(r: RecordedRequest): string {
  return /You are the (\w+) agent/.exec(systemOf(r))?.[1]?.toLowerCase() ?? 'root';
}

type Step = (r: RecordedRequest) => ScriptedReply;
/** Expectations inside the scripted replies are rethrown after the test. */
const guarded = useGuardedScript();
/** One queue of replies per agent; each request takes the next reply of the agent it is for. */
function byAgent(queues: Record<string, Step[]>, seen: Record<string, RecordedRequest[]> = {}) {
  const step = (r: RecordedRequest): ScriptedReply => {
    const who = whoOf(r);
    (seen[who] ??= []).push(r);
    const next = queues[who]?.shift();
    if (!next) return { kind: 'text', text: `no script left for ${who}` };
    return next(r);
  };
  return { entries: Array.from({ length: 40 }, () => guarded(step)), seen };
}

type Started = Awaited<ReturnType<typeof start>>;
/** Sends a message to the conversation and waits for the conversation's own turn to end (its tasks' turns end before it). */
async function ask(env: Started, conversationId: string, text: string): Promise<void> {
  const ended = () => env.turns.filter((t) => t.conversationId === conversationId && t.state !== 'running').length;
  const before = ended();
  await env.call('chat.send', { conversationId, text });
  const end = Date.now() + 12_000;
  while (ended() === before) {
    if (Date.now() > end) throw new Error('the conversation\'s turn did not end');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const tools = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });

describe('orchestration in the core', () => {
  it("the complete flow: conversation → analyst → writer, documents down and back up, on disk and on the graph", async () => {
    const env = await start();
    const { server, core, call, model, messages } = env;
    await fs.mkdir(path.join(core.workspaceDir(), 'data'), { recursive: true });
    await fs.writeFile(path.join(core.workspaceDir(), 'data', 'sales.csv'), 'region,amount\nnorth,30\nsouth,12\n');
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    const report = '# Sales by region\n\nNorth leads with 30; south has 12.\n';
    const script = byAgent({
      root: [
        (r) => {
          expect(toolNames(r)).toEqual(expect.arrayContaining(['route_to_analyst', 'route_to_writer', 'route_to_researcher']));
          // The conversation is no task: it has nothing to hand off, nor a master to ask.
          expect(toolNames(r)).not.toContain('ask_master');
          expect(toolNames(r)).not.toContain('handoff');
          return tools('route_to_analyst', { request: 'Total the sales by region and have a short report written.', documents: ['data/sales.csv'] });
        },
        (r) => {
          const back = lastTool(r);
          expect(back).toMatch(/^← result from analyst \(task 1\):\nNorth 30, south 12; the report is in reports\/sales\.md/);
          expect(back).toContain(`<document path="reports/sales.md" type="text/markdown"`);
          expect(back).toContain('North leads with 30');
          return { kind: 'text', text: 'North leads (30), south 12. The report is attached.' };
        },
      ],
      analyst: [
        (r) => {
          // Its own prompt, its tools and delegates, and the document loaded into its first message.
          expect(systemOf(r)).toContain('You are an analyst.');
          expect(toolNames(r)).toEqual(expect.arrayContaining(['route_to_writer', 'handoff', 'ask_master', 'readfile']));
          expect(toolNames(r)).not.toContain('route_to_researcher');
          expect(firstUser(r)).toContain('Total the sales by region');
          expect(firstUser(r)).toContain('<document path="data/sales.csv" type="text/csv"');
          expect(firstUser(r)).toContain('north,30');
          return tools('route_to_writer', { request: 'Write a short Markdown report: north 30, south 12.' });
        },
        (r) => {
          expect(lastTool(r)).toContain('← result from writer (task 2)');
          expect(lastTool(r)).toContain('North leads with 30');
          return tools('handoff', { result: 'North 30, south 12; the report is in reports/sales.md', documents: ['reports/sales.md'] });
        },
      ],
      writer: [
        (r) => {
          expect(toolNames(r)).toEqual(expect.arrayContaining(['writefile', 'handoff', 'ask_master']));
          expect(toolNames(r).some((n) => n.startsWith('route_to_'))).toBe(false);
          return tools('writefile', { path: 'reports/sales.md', content: report });
        },
        () => tools('handoff', { result: 'Wrote the report.', documents: ['reports/sales.md'] }),
      ],
    });
    server.script(script.entries);
    // Approvals still apply inside a task: the writer's writefile waits on its own timeline; the user allows it there.
    const asked: string[] = [];
    core.events.on('conversations.changed', (e) => {
      for (const m of e.messages ?? []) {
        if (m.tool?.status !== 'awaiting-approval') continue;
        asked.push(`${m.tool.slug}@${e.conversationId}`);
        // The card is stored just before the call starts waiting: answer once it waits, as a person would.
        const respond = async (tries: number): Promise<void> => {
          const r = await call('approvals.respond', { conversationId: e.conversationId, invocationId: m.tool!.invocationId, decision: 'allow-once' });
          if (!r.accepted && tries > 0) return new Promise((ok) => setTimeout(() => ok(respond(tries - 1)), 10));
        };
        void respond(200);
      }
    });
    await ask(env, c.id, 'How do sales compare by region? Use data/sales.csv.').catch(async (e: unknown) => {
      const g = await call('tasks.graph', { conversationId: c.id });
      const dump = async (id: string) => JSON.stringify((await messages(id)).map((m) => [m.role, m.text.slice(0, 80), m.tool?.slug, m.tool?.status, m.tool?.error?.message]));
      throw new Error(`${(e as Error).message}\nroot: ${await dump(c.id)}\n${(await Promise.all(g.tasks.map(async (t) => `${t.agent} ${t.status}: ${await dump(t.id)}`))).join('\n')}\nasked: ${asked.join(', ')}`);
    });

    // The answer, and the file on disk.
    const rows = await messages(c.id);
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', text: 'North leads (30), south 12. The report is attached.' });
    expect(await fs.readFile(path.join(core.workspaceDir(), 'reports', 'sales.md'), 'utf8')).toBe(report);
    expect(script.seen.root).toHaveLength(2);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^writefile@/);
    expect(script.seen.analyst).toHaveLength(2);
    expect(script.seen.writer).toHaveLength(2);

    // The graph: two agent tasks, the writer below the analyst, both done with their results.
    const graph = await call('tasks.graph', { conversationId: c.id });
    expect(graph.rootId).toBe(c.id);
    expect(graph.tasks.map((t) => [t.number, t.agent, t.kind, t.status, t.depth])).toEqual([
      [1, 'analyst', 'agent', 'done', 1],
      [2, 'writer', 'agent', 'done', 2],
    ]);
    const [analyst, writer] = graph.tasks;
    expect(analyst!.parentId).toBe(c.id);
    expect(writer!.parentId).toBe(analyst!.id);
    expect(analyst).toMatchObject({ documents: ['data/sales.csv'], resultDocuments: ['reports/sales.md'] });
    expect(writer).toMatchObject({ result: 'Wrote the report.', resultDocuments: ['reports/sales.md'] });
    // A task's own id leads to the same graph; its timeline is its hidden conversation.
    expect((await call('tasks.graph', { conversationId: writer!.id })).rootId).toBe(c.id);
    expect((await call('conversations.list', {})).map((x) => x.id)).toEqual([c.id]);
    const writerRows = await messages(writer!.id);
    expect(writerRows.filter((m) => m.role === 'tool' && m.tool?.status === 'ok').map((m) => m.tool!.slug)).toEqual(['writefile', 'handoff']);

    // The timeline: "→ delegated" while it ran, then "← result from …" with the task on the card.
    const cards = rows.filter((m) => m.tool?.slug === 'route_to_analyst').map((m) => m.tool!);
    expect(cards.map((t) => [t.status, String(t.value).split('\n')[0]])).toEqual([
      ['running', '→ delegated to analyst (task 1)'],
      ['ok', '← result from analyst (task 1):'],
    ]);
    expect(cards[1]).toMatchObject({ task: { id: analyst!.id, number: 1, agent: 'analyst', kind: 'agent' }, documents: ['reports/sales.md'] });

    // The document the writer made was recorded as its task's.
    expect(await call('documents.get', { path: 'reports/sales.md' })).toMatchObject({ createdBy: writer!.id });
  });

  it('ask_master: the writer asks the analyst (its model answers), the analyst asks the user (a question card)', async () => {
    const env = await start();
    const { server, core, call, model, messages } = env;
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    let questionCardSeen: (() => void) | undefined;
    const cardSeen = new Promise<void>((r) => (questionCardSeen = r));
    core.events.on('conversations.changed', (e) => {
      if (e.conversationId === c.id && e.messages?.some((m) => m.tool?.status === 'awaiting-answer')) questionCardSeen?.();
    });
    const script = byAgent({
      root: [() => tools('route_to_analyst', { request: 'Summarise the quarter.' }), () => ({ kind: 'text', text: 'done' })],
      analyst: [
        () => tools('ask_master', { question: 'Which quarter do you mean?' }),
        (r) => {
          expect(lastTool(r)).toBe('← answer from the user:\nQ3 2026');
          return tools('route_to_writer', { request: 'Write the Q3 2026 summary.' });
        },
        () => tools('handoff', { result: 'Summary written.' }),
      ],
      writer: [
        () => tools('ask_master', { question: 'How long should it be?' }),
        (r) => {
          expect(lastTool(r)).toBe('← answer from analyst:\nThree sentences.');
          return tools('handoff', { result: 'Three sentences on Q3 2026.' });
        },
      ],
    });
    // The analyst's answer to the writer is a model call of its own, without tools.
    const answerStep = (r: RecordedRequest): ScriptedReply => {
      expect(toolNames(r)).toEqual([]);
      expect(firstUser(r)).toContain('It asks you:\nHow long should it be?');
      return { kind: 'text', text: 'Three sentences.' };
    };
    server.script(
      script.entries.map((step) => guarded((r: RecordedRequest) => (firstUser(r).startsWith('You gave the writer agent this task') ? answerStep(r) : step(r)))),
    );
    const sent = ask(env, c.id, 'Summarise the quarter.');
    await cardSeen;
    const graph = await call('tasks.graph', { conversationId: c.id });
    const question = graph.tasks.find((t) => t.kind === 'question')!;
    expect(question).toMatchObject({ status: 'waiting', request: 'Which quarter do you mean?', agent: 'analyst' });
    expect(graph.tasks.find((t) => t.agent === 'analyst' && t.kind === 'agent')!.status).toBe('waiting');
    await expect(call('tasks.answer', { questionId: question.id, answer: '  ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await call('tasks.answer', { questionId: question.id, answer: 'Q3 2026' })).toEqual({ accepted: true });
    await sent;
    expect(await call('tasks.answer', { questionId: question.id, answer: 'again' })).toEqual({ accepted: false });

    const tasks = (await call('tasks.graph', { conversationId: c.id })).tasks;
    expect(tasks.map((t) => [t.number, t.kind, t.agent, t.status, t.answeredBy ?? null])).toEqual([
      [1, 'agent', 'analyst', 'done', null],
      [2, 'question', 'analyst', 'done', 'human'],
      [3, 'agent', 'writer', 'done', null],
      [4, 'question', 'writer', 'done', 'analyst'],
    ]);
    const qcards = (await messages(c.id)).filter((m) => m.tool?.slug === 'ask_master').map((m) => [m.tool!.status, m.tool!.value ?? null]);
    expect(qcards).toEqual([
      ['awaiting-answer', null],
      ['ok', 'Q3 2026'],
    ]);
    // The analyst's timeline records the answer it gave.
    const analystRows = await messages(tasks[0]!.id);
    expect(analystRows.some((m) => m.role === 'notice' && m.text.startsWith('Answered a question from writer (task 3): How long should it be?'))).toBe(true);
  });

  it('guards: a cycle and the depth limit are refused with a clear message the model can act on', async () => {
    const env = await start();
    const { server, call, model } = env;
    // A chain of profiles: a → b → a (cycle), and a long chain for the depth limit.
    const p = (name: string, delegatesTo: string[]) => ({ name, description: `Agent ${name}.`, systemPrompt: `You are ${name}.`, delegatesTo, canAskMaster: false, maxSteps: 4 });
    await call('agents.put', { profile: p('alpha', ['beta']) });
    await call('agents.put', { profile: p('beta', ['alpha', 'gamma']) });
    await call('agents.put', { profile: p('gamma', ['delta']) });
    await call('agents.put', { profile: p('delta', []) });
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    const who = (r: RecordedRequest) => /You are (\w+)\./.exec(systemOf(r))?.[1] ?? 'root';
    const seenErrors: string[] = [];
    const queues: Record<string, Step[]> = {
      root: [() => tools('route_to_alpha', { request: 'go' }), () => ({ kind: 'text', text: 'ok' })],
      alpha: [() => tools('route_to_beta', { request: 'go' }), () => tools('handoff', { result: 'alpha done' })],
      beta: [
        () => tools('route_to_alpha', { request: 'back to you' }),
        (r) => {
          seenErrors.push(lastTool(r));
          return tools('route_to_gamma', { request: 'go deeper' });
        },
        (r) => {
          seenErrors.push(lastTool(r));
          return tools('handoff', { result: 'beta done' });
        },
      ],
      gamma: [() => tools('route_to_delta', { request: 'deeper still' }), () => tools('handoff', { result: 'never' })],
    };
    server.script(Array.from({ length: 30 }, () => (r: RecordedRequest) => queues[who(r)]?.shift()?.(r) ?? { kind: 'text', text: 'end' }));
    await ask(env, c.id, 'start');
    expect(seenErrors[0]).toBe(
      'delegation cycle refused: conversation → alpha → beta → alpha (an agent cannot take a task from a chain it is already in); do the work here or give it to another agent',
    );
    // gamma (depth 3) tried delta (depth 4): refused; gamma handed off, so beta got gamma's result.
    expect(seenErrors[1]).toContain('← result from gamma (task 3)');
    const graph = await call('tasks.graph', { conversationId: c.id });
    expect(graph.tasks.map((t) => [t.agent, t.depth, t.status])).toEqual([
      ['alpha', 1, 'done'],
      ['beta', 2, 'done'],
      ['gamma', 3, 'done'],
    ]);
    const gammaRows = (await call('conversations.get', { id: graph.tasks[2]!.id })).messages;
    const refused = gammaRows.find((m) => m.tool?.slug === 'route_to_delta' && m.tool.status === 'error')!;
    expect(refused.tool!.error!.message).toBe(
      'delegation depth limit reached: conversation → alpha → beta → gamma → delta would be 4 levels deep (the limit is 3); do the work here',
    );
  });

  it("the depth limit is Settings' maxDelegationDepth", async () => {
    const env = await start();
    const { server, call, model } = env;
    expect((await call('settings.get', {})).maxDelegationDepth).toBe(3);
    await call('settings.set', { maxDelegationDepth: 1 });
    const p = (name: string, delegatesTo: string[]) => ({ name, description: `Agent ${name}.`, systemPrompt: `You are ${name}.`, delegatesTo, canAskMaster: false, maxSteps: 4 });
    await call('agents.put', { profile: p('alpha', ['beta']) });
    await call('agents.put', { profile: p('beta', []) });
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    const who = (r: RecordedRequest) => /You are (\w+)\./.exec(systemOf(r))?.[1] ?? 'root';
    const seen: string[] = [];
    const queues: Record<string, Step[]> = {
      root: [() => tools('route_to_alpha', { request: 'go' }), () => ({ kind: 'text', text: 'ok' })],
      alpha: [
        () => tools('route_to_beta', { request: 'deeper' }),
        (r) => {
          seen.push(lastTool(r));
          return tools('handoff', { result: 'alpha did it' });
        },
      ],
    };
    server.script(Array.from({ length: 10 }, () => (r: RecordedRequest) => queues[who(r)]?.shift()?.(r) ?? { kind: 'text', text: 'end' }));
    await ask(env, c.id, 'start');
    expect(seen[0]).toBe('delegation depth limit reached: conversation → alpha → beta would be 2 levels deep (the limit is 1); do the work here');
    const graph = await call('tasks.graph', { conversationId: c.id });
    expect(graph.tasks.map((t) => [t.agent, t.depth, t.status])).toEqual([['alpha', 1, 'done']]);
    await expect(call('settings.set', { maxDelegationDepth: 11 })).rejects.toThrow(/maxDelegationDepth/);
  });

  it("Stop cancels the whole tree; a child's provider failure reaches its parent as a result", async () => {
    const env = await start();
    const { server, call, model, messages } = env;
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    let writerAsked: (() => void) | undefined;
    const writerStarted = new Promise<void>((r) => (writerAsked = r));
    let queues: Record<string, Step[]> = {
      root: [() => tools('route_to_analyst', { request: 'go' })],
      analyst: [() => tools('route_to_writer', { request: 'write' })],
      writer: [
        () => {
          writerAsked?.();
          return { kind: 'delay', ms: 60_000 };
        },
      ],
    };
    // One script for both conversations: it answers from whichever queues are current.
    server.script(Array.from({ length: 20 }, () => guarded((r: RecordedRequest) => queues[whoOf(r)]?.shift()?.(r) ?? { kind: 'text', text: 'end' })));
    await call('chat.send', { conversationId: c.id, text: 'go' });
    await writerStarted;
    expect(await call('chat.stop', { conversationId: c.id })).toEqual({ stopped: true });
    // Every turn of the tree ends.
    const end = Date.now() + 10_000;
    let graph = await call('tasks.graph', { conversationId: c.id });
    while (graph.tasks.some((t) => t.status === 'running' || t.status === 'blocked') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      graph = await call('tasks.graph', { conversationId: c.id });
    }
    expect(graph.tasks.map((t) => [t.agent, t.status])).toEqual([
      ['analyst', 'cancelled'],
      ['writer', 'cancelled'],
    ]);
    const route = (await messages(c.id)).filter((m) => m.tool?.slug === 'route_to_analyst').at(-1)!;
    expect(route.tool!.status).toBe('cancelled');

    // A second conversation: the writer's provider call fails; the analyst is told, and goes on.
    const c2 = await call('conversations.create', {});
    await call('conversations.setModel', { id: c2.id, model });
    queues = {
      root: [() => tools('route_to_analyst', { request: 'go' }), () => ({ kind: 'text', text: 'done anyway' })],
      analyst: [
        () => tools('route_to_writer', { request: 'write' }),
        (r) => {
          expect(lastTool(r)).toMatch(/^the writer agent \(task 2\) failed: .*500.*Decide whether to try again differently/s);
          return tools('handoff', { result: 'I wrote it myself.' });
        },
      ],
      writer: [() => ({ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } })],
    };
    await ask(env, c2.id, 'go');
    const g2 = await call('tasks.graph', { conversationId: c2.id });
    expect(g2.tasks.map((t) => [t.agent, t.status])).toEqual([
      ['analyst', 'done'],
      ['writer', 'failed'],
    ]);
    expect((await messages(c2.id)).at(-1)!.text).toBe('done anyway');
  });
});

describe('a task that runs out of steps', () => {
  it('reaches its parent as failed (not done), saying it hit its step limit', async () => {
    const env = await start();
    const { server, call, model, messages } = env;
    const analyst = await call('agents.get', { name: 'analyst' });
    await call('agents.put', { profile: { ...analyst.profile, name: 'counter', displayName: 'Counter', delegatesTo: [], maxSteps: 2 } });
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    const { entries } = byAgent({
      root: [() => tools('route_to_counter', { request: 'count forever' }), (r) => ({ kind: 'text', text: lastTool(r).split('\n')[0]! })],
      // Two steps, each a tool call and never a handoff.
      counter: [() => tools('stop_and_think', { thought: 'one' }), () => tools('stop_and_think', { thought: 'two' })],
    });
    server.script(entries);
    await ask(env, c.id, 'go');
    const graph = await call('tasks.graph', { conversationId: c.id });
    expect(graph.tasks.map((t) => [t.agent, t.status])).toEqual([['counter', 'failed']]);
    const route = (await messages(c.id)).filter((m) => m.tool?.slug === 'route_to_counter').at(-1)!;
    expect(route.tool!.status).toBe('error');
    expect(route.tool!.error!.message).toMatch(/^the counter agent \(task 1\) failed: it reached its step limit \(2 steps\) without handing off a result\. Decide whether to try again/);
  });
});

describe('orchestration across a restart', () => {
  const tempDir = useTempDirs();
  it('closing the app while the conversation waits on a task ends the call and the tasks cancelled when it opens again', async () => {
    const server = await startScriptedModelServer();
    const dataDir = await tempDir();
    try {
      const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
      const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
        const r = await core.call(name, input);
        if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
        return r.value as OpOutput<N>;
      };
      const provider = await call('providers.save', { provider: { name: 'Scripted', kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-provider-key-0123456789' } });
      const c = await call('conversations.create', {});
      await call('conversations.setModel', { id: c.id, model: { providerId: provider.id, model: 'scripted-model' } });
      let analystAsked: (() => void) | undefined;
      const analystStarted = new Promise<void>((r) => (analystAsked = r));
      server.script([
        tools('route_to_analyst', { request: 'take your time' }),
        () => {
          analystAsked?.();
          return { kind: 'delay', ms: 60_000 };
        },
      ]);
      await call('chat.send', { conversationId: c.id, text: 'go' });
      await analystStarted;
      expect((await call('tasks.graph', { conversationId: c.id })).tasks.map((t) => t.status)).toEqual(['running']);
      await core.close();

      const again = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
      try {
        const graph = await again.call('tasks.graph', { conversationId: c.id });
        expect(graph.ok && graph.value.tasks.map((t) => [t.agent, t.status])).toEqual([['analyst', 'cancelled']]);
        const detail = await again.call('conversations.get', { id: c.id });
        const route = detail.ok ? detail.value.messages.filter((m) => m.tool?.slug === 'route_to_analyst').at(-1)!.tool! : undefined;
        expect(route?.status).toBe('cancelled');
      } finally {
        await again.close();
      }
    } finally {
      await server.close();
    }
  });
});
