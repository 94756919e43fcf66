/**
 * The orchestration calls (docs/design/orchestration.md), each TOOL_BEHAVIOR row's handler:
 * - agent-as-tool (`route_to_<agent>`): a task below this one, with a hidden conversation of
 *   its own (its timeline) where the agent's turn runs; this call blocks until the agent hands
 *   off, and its result comes back with its documents loaded. Stop reaches the whole tree.
 * - handoff: ends the task with a result and documents (the turn stops after it).
 * - ask-master: a question task; the agent that delegated answers it (one model call of its
 *   own), or the human when the root conversation delegated (a question card in the chat).
 * The card of each call carries the task it made, so the chat can nest the task's timeline.
 */
import { AppError, isAppError } from '../../../shared/errors';
import type { AgentProfile } from '../../../shared/model/agent-profile';
import type { ToolCard } from '../../../shared/model/conversation';
import type { ModelRef } from '../../../shared/model/provider';
import type { Task } from '../../../shared/model/task';
import { documentBlocks } from '../orchestration/document-blocks';
import { DEFAULT_MAX_DEPTH, delegationRefusal } from '../orchestration/guards';
import { ASK_MASTER_NAME, ASK_MASTER_SPEC, HANDOFF_SPEC, documentsArg, routeToolSpec, routedAgent, textArg } from '../orchestration/tools';
import { tooLargeMessage } from '../tool-output/messages';
import type { NewMessage } from '../timeline/conversation-store';
import type { AgentLoopDeps, TaskDeps } from './deps';
import { MODEL_TOOLS_BUNDLE, type ModelOnlyTool } from './tool-behavior';
import type { ModelTool } from './tools-for-model';
import type { ModelClient, ModelToolCall } from './types';

/** What a turn knows of the task it runs (absent on TurnRequest: the conversation itself, task 0). */
export interface TaskTurn {
  /** The task's id (its conversation's). */
  taskId: string;
  profile: AgentProfile;
  /** The agents from the conversation down to this task, this one's last. */
  chain: string[];
}

export interface TaskCallContext {
  deps: AgentLoopDeps;
  conversationId: string;
  signal: AbortSignal;
  model?: ModelRef;
  client?: () => ModelClient | undefined;
  task?: TaskTurn;
  /** Tokens the conversation takes of its model's window now (the last step's figure). */
  usedTokens?: () => number | undefined;
}

export interface CallIO {
  card(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string, state: Partial<ToolCard> & Pick<ToolCard, 'status'>): ToolCard;
  finish(card: ToolCard): void;
}

export const agentNotAvailable = (agent: string) => `there is no enabled agent profile named '${agent}' (it was removed or disabled): do the work here`;
export const askMasterAtRoot = 'ask_master is for agents working on a task given to them; here, ask the user in your reply';
export const handoffOutsideTask = 'handoff ends a task given to an agent; this is the conversation itself: answer in your reply';
export const delegatedText = (agent: string, n: number) => `→ delegated to ${agent} (task ${n})`;
export const resultFrom = (agent: string, n: number) => `← result from ${agent} (task ${n})`;
export const answerFrom = (who: string) => `← answer from ${who === 'human' ? 'the user' : who}`;
export const agentFailed = (agent: string, n: number, why: string) => `the ${agent} agent (task ${n}) failed: ${why}. Decide whether to try again differently, give the task to another agent, or do it here.`;
export const endedWithoutHandoff = 'the agent ended without calling handoff; its last reply is the result';

/**
 * The orchestration tools of a turn: the conversation may delegate to every enabled profile;
 * a task, to its profile's delegates, and hands off, and may ask its master when its profile
 * allows. None for the conversation when no profile is enabled.
 */
export function orchestrationTools(tasks: Pick<TaskDeps, 'agents'>, task: TaskTurn | undefined): ModelOnlyTool[] {
  const delegates = task ? task.profile.delegatesTo.map((n) => tasks.agents.enabled(n)).filter((p): p is AgentProfile => !!p) : tasks.agents.list();
  const out: ModelOnlyTool[] = delegates.map((p) => ({ kind: 'agent-as-tool', displayName: `Delegate to ${p.displayName ?? p.name}`, spec: routeToolSpec(p) }));
  // handoff ends a task; the conversation itself has no task to end, so it is not offered there.
  if (task) out.push({ kind: 'handoff', displayName: 'Hand off', spec: HANDOFF_SPEC });
  if (task?.profile.canAskMaster) out.push({ kind: 'ask-master', displayName: 'Ask master', spec: ASK_MASTER_SPEC });
  return out;
}

/** A task's system prompt: its profile's, and what it is for. */
export function taskSystemText(task: TaskTurn, number: number | undefined): string {
  const p = task.profile;
  return [
    p.systemPrompt.trim(),
    `You are the ${p.displayName ?? p.name} agent, working on task ${number ?? '?'} given to you by ${task.chain.length > 1 ? `the ${task.chain.at(-2)} agent` : 'the conversation'}. The task is the first message. When it is done, call handoff with your result and the workspace files you made as documents.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Tokens of a model's window that documents may take when they are passed to it. */
const DOCUMENTS_SHARE = 0.5;
/** Tokens kept free beside documents handed back (the card's own text, the next reply's start). */
const DOCUMENT_MARGIN = 1000;

export class TaskCalls {
  constructor(
    private readonly ctx: TaskCallContext,
    private readonly io: CallIO,
  ) {}

  private get tasks(): TaskDeps {
    // The loop gives every turn's deps the runner (./loop.ts).
    return this.ctx.deps.tasks as TaskDeps;
  }

  /** agent-as-tool: runs the agent's task and waits for its handoff. */
  async delegate(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): Promise<void> {
    const { deps, conversationId, signal } = this.ctx;
    const { conversations } = deps;
    const agent = routedAgent(mt.name) ?? mt.name;
    const a = objectArgs(args);
    const request = checked(() => textArg(a, 'request'));
    const docs = checked(() => documentsArg(a));
    const profile = this.tasks.agents.enabled(agent);
    if (!profile) throw new AppError('NOT_FOUND', agentNotAvailable(agent), { agent });
    const here = this.ctx.task;
    const chain = here?.chain ?? [];
    const refusal = delegationRefusal(chain, agent, this.tasks.maxDepth?.() ?? DEFAULT_MAX_DEPTH);
    if (refusal) throw new AppError('FORBIDDEN', refusal, { rule: refusal.startsWith('delegation cycle') ? 'cycle' : 'depth' });
    const model = profile.model ?? this.ctx.model;
    if (!model) throw new AppError('UNAVAILABLE', `no model for the ${agent} agent: give its profile a model, or choose one for this conversation`);
    const rootId = here ? conversations.task(here.taskId).rootId : conversationId;

    const task = conversations.createTask({
      rootId,
      parentId: conversationId,
      kind: 'agent',
      agent,
      request,
      documents: docs,
      depth: chain.length + 1,
      invocationId,
      model,
      tools: profile.tools ?? { bundleIds: [], toolIds: [] },
    });
    const taskRef = { id: task.id, number: task.number, agent, kind: 'agent' as const };
    this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'running', task: taskRef, value: delegatedText(agent, task.number) }));
    if (here) conversations.updateTask(here.taskId, { status: 'blocked' });

    let outcome: { status: Task['status']; text: string; documents: string[] };
    try {
      const blocks = await this.blocks(docs, task.id, model, signal);
      const listed = docs.length ? `\n\nDocuments: ${docs.join(', ')}` : '';
      conversations.addMessages(task.id, [{ role: 'user', text: `${request}${listed}`, prompt: blocks ? `${request}\n\n${blocks}` : request }]);
      const stop = () => this.tasks.runner.stop(task.id);
      signal.addEventListener('abort', stop, { once: true });
      let state: 'done' | 'error' | 'stopped';
      try {
        state = signal.aborted ? 'stopped' : await this.tasks.runner.run({ conversationId: task.id, model, prompt: request, task: { taskId: task.id, profile, chain: [...chain, agent] } });
      } finally {
        signal.removeEventListener('abort', stop);
      }
      outcome = this.outcome(task.id, state, signal.aborted);
    } catch (e) {
      const why = isAppError(e) ? e.message : (e as Error).message;
      outcome = { status: signal.aborted ? 'cancelled' : 'failed', text: why, documents: [] };
      const now = conversations.task(task.id);
      if (now.status === 'running' || now.status === 'blocked') conversations.updateTask(task.id, { status: outcome.status, error: why });
    }
    if (here && !signal.aborted) conversations.updateTask(here.taskId, { status: 'running' });

    if (outcome.status === 'cancelled') {
      this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'cancelled', task: taskRef, error: { code: 'CANCELLED', message: 'stopped by the user' } }));
      return;
    }
    if (outcome.status === 'failed') {
      this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'error', task: taskRef, error: { code: 'INTERNAL', message: agentFailed(agent, task.number, outcome.text) } }));
      return;
    }
    // The child's documents, loaded for this task's model (its window less what it uses now, its session's handles).
    const back = await this.blocks(outcome.documents, conversationId, this.ctx.model, signal, this.ctx.usedTokens?.());
    const value = `${resultFrom(agent, task.number)}:\n${outcome.text}${back ? `\n\n${back}` : ''}`;
    this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'ok', task: taskRef, value, ...(outcome.documents.length ? { documents: outcome.documents } : {}) }));
  }

  /** How a task's turn ended, as its parent is told; the task's row is brought up to date. */
  private outcome(taskId: string, state: 'done' | 'error' | 'stopped', aborted: boolean): { status: Task['status']; text: string; documents: string[] } {
    const { conversations } = this.ctx.deps;
    const t = conversations.task(taskId);
    if (t.status === 'done') return { status: 'done', text: t.result ?? '', documents: t.resultDocuments ?? [] };
    if (aborted || state === 'stopped') {
      conversations.updateTask(taskId, { status: 'cancelled' });
      return { status: 'cancelled', text: 'stopped', documents: [] };
    }
    const rows = conversations.messages(taskId);
    if (state === 'done') {
      const last = rows.filter((m) => m.role === 'assistant' && m.text.trim()).at(-1)?.text ?? '';
      const text = last ? `${last}\n\n(${endedWithoutHandoff})` : `(${endedWithoutHandoff}, and it said nothing)`;
      conversations.updateTask(taskId, { status: 'done', result: text, error: endedWithoutHandoff });
      return { status: 'done', text, documents: [] };
    }
    const why = rows.filter((m) => m.role === 'notice').at(-1)?.error?.message ?? 'its turn ended with an error';
    conversations.updateTask(taskId, { status: 'failed', error: why });
    return { status: 'failed', text: why, documents: [] };
  }

  /** handoff: the task's result and documents; the turn stops after it. */
  async handoff(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): Promise<void> {
    const here = this.ctx.task;
    const a = objectArgs(args);
    const result = checked(() => textArg(a, 'result'));
    const docs = checked(() => documentsArg(a));
    if (!here) throw new AppError('CONFLICT', handoffOutsideTask);
    this.ctx.deps.conversations.updateTask(here.taskId, { status: 'done', result, resultDocuments: docs });
    this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'ok', value: 'handed off', ...(docs.length ? { documents: docs } : {}) }));
  }

  /** ask-master: a question to the task that delegated (its agent answers), or to the human. */
  async askMaster(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): Promise<void> {
    const { deps, signal } = this.ctx;
    const { conversations } = deps;
    const here = this.ctx.task;
    const a = objectArgs(args);
    const question = checked(() => textArg(a, 'question'));
    const docs = checked(() => documentsArg(a));
    if (!here) throw new AppError('CONFLICT', askMasterAtRoot);
    const mine = conversations.task(here.taskId);
    const q = conversations.createTask({
      rootId: mine.rootId,
      parentId: here.taskId,
      kind: 'question',
      agent: mine.agent,
      request: question,
      documents: docs,
      depth: mine.depth,
      invocationId,
    });
    const taskRef = { id: q.id, number: q.number, agent: mine.agent, kind: 'question' as const };
    this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'running', task: taskRef, value: `→ asked (task ${q.number})` }));
    conversations.updateTask(here.taskId, { status: 'waiting' });
    let answer: string;
    let by: string;
    try {
      if (mine.parentId === mine.rootId) {
        by = 'human';
        answer = await this.askHuman(mine, q, question, docs, signal);
      } else {
        const master = conversations.task(mine.parentId);
        by = master.agent;
        answer = await this.askAgent(master, mine, question, docs, signal);
      }
    } catch (e) {
      const cancelled = signal.aborted || (isAppError(e) && e.code === 'CANCELLED');
      conversations.updateTask(q.id, { status: cancelled ? 'cancelled' : 'failed', error: (e as Error).message });
      if (!signal.aborted) conversations.updateTask(here.taskId, { status: 'running' });
      throw cancelled ? new AppError('CANCELLED', 'stopped by the user') : e;
    }
    conversations.updateTask(q.id, { status: 'done', result: answer, answeredBy: by });
    conversations.updateTask(here.taskId, { status: 'running' });
    this.io.finish(this.io.card(mt, call, args, invocationId, { status: 'ok', task: taskRef, value: `${answerFrom(by)}:\n${answer}` }));
  }

  /** A question card in the conversation the user started; its answer box resolves it. */
  private async askHuman(asker: Task, q: Task, question: string, docs: string[], signal: AbortSignal): Promise<string> {
    const { conversations } = this.ctx.deps;
    const card = (state: Partial<ToolCard> & Pick<ToolCard, 'status'>): NewMessage => ({
      role: 'tool',
      text: '',
      tool: {
        invocationId: q.id,
        bundleId: MODEL_TOOLS_BUNDLE,
        slug: ASK_MASTER_NAME,
        version: '1',
        displayName: `Question from ${asker.agent} (task ${asker.number})`,
        args: { question, ...(docs.length ? { documents: docs } : {}) },
        source: 'model',
        task: { id: q.id, number: q.number, agent: asker.agent, kind: 'question' },
        ...state,
      },
    });
    conversations.addMessages(asker.rootId, [card({ status: 'awaiting-answer' })]);
    try {
      const answer = await this.tasks.runner.waitForAnswer(q.id, signal);
      conversations.addMessages(asker.rootId, [card({ status: 'ok', value: answer })]);
      return answer;
    } catch (e) {
      conversations.addMessages(asker.rootId, [card({ status: 'cancelled', error: { code: 'CANCELLED', message: (e as Error).message } })]);
      throw e;
    }
  }

  /** The delegating agent answers with one model call of its own (no tools): its profile, its task, the question. */
  private async askAgent(master: Task, asker: Task, question: string, docs: string[], signal: AbortSignal): Promise<string> {
    const { conversations } = this.ctx.deps;
    const profile = this.tasks.agents.enabled(master.agent);
    const conv = conversations.get(master.id);
    const model = conv.model ?? this.ctx.model;
    const client = model ? this.ctx.deps.clients.forProvider(model.providerId) : undefined;
    if (!client || !model) throw new AppError('UNAVAILABLE', `the ${master.agent} agent has no model to answer with`);
    const blocks = await this.blocks(docs, master.id, model, signal);
    const prompt = [
      `You gave the ${asker.agent} agent this task (task ${asker.number}):`,
      asker.request,
      '',
      'It asks you:',
      question,
      ...(blocks ? ['', blocks] : []),
      '',
      'Answer it in plain text, completely; you cannot use tools for this answer.',
    ].join('\n');
    const system = [profile?.systemPrompt ?? '', `You are working on this task: ${master.request}`].filter(Boolean).join('\n\n');
    const r = await client.step({ model: model.model, messages: [{ role: 'system', text: system }, { role: 'user', text: prompt }], tools: [] }, () => undefined, signal);
    const answer = r.text.trim() || '(no answer)';
    conversations.addMessages(master.id, [{ role: 'notice', text: `Answered a question from ${asker.agent} (task ${asker.number}): ${question}\n\n${answer}` }]);
    return answer;
  }

  /**
   * Documents as content blocks for a model, oversized ones stored in `sessionId`. Budget: half
   * its window, and never more than what is left of it (`used`: what the conversation takes now).
   */
  private async blocks(paths: readonly string[], sessionId: string, model: ModelRef | undefined, signal: AbortSignal, used = 0): Promise<string> {
    if (paths.length === 0) return '';
    const outputs = this.ctx.deps.toolOutputs;
    const w = outputs.windowFor(model);
    const budget = Math.max(0, Math.min(Math.floor((w.contextTokens - w.maxOutputTokens) * DOCUMENTS_SHARE), w.contextTokens - w.maxOutputTokens - used - DOCUMENT_MARGIN));
    const counter = outputs.tokensFor(model);
    const r = await documentBlocks(paths, budget, {
      workspaceDir: this.tasks.workspaceDir(),
      countTokens: (t) => counter.count(t).tokens,
      storeOversized: async (text, path) => {
        if (!outputs) return `the document is too large to load here (${Buffer.byteLength(text)} bytes): read the parts you need with the file tools`;
        const o = await outputs.store.put(sessionId, text, { toolName: 'document', argsJson: JSON.stringify({ path }) }, signal);
        return tooLargeMessage(o, o.handle);
      },
    });
    return r.text;
  }
}

function objectArgs(args: unknown): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new AppError('VALIDATION_FAILED', 'the arguments must be a JSON object');
  return args as Record<string, unknown>;
}

/** A plain argument error as VALIDATION_FAILED, so the model is told what to fix. */
function checked<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', (e as Error).message);
  }
}
