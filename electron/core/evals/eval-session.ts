/**
 * How an attempt runs: as a chat turn. Each run has an agent loop of its own (agent/loop.ts,
 * the chat's) over a conversation store in memory, so nothing of an eval shows in the chat,
 * built on the app's real services — the provider clients, the dispatcher, routing, tool search,
 * the oversized-output gate, remembered approvals, what features add to a turn. An attempt is
 * a conversation of that store: the case's earlier messages and the user's message, then one
 * turn. What differs from the chat is only what a run nobody watches needs:
 *
 * - the client of each step is wrapped to record the request's tools (what the model saw,
 *   after tool search) and each step's tokens and time;
 * - a tool with a canned result is answered with it without running (after checking the
 *   arguments as a real call would), and a tool without one is refused when the case says so:
 *   both inline, before any approval is asked, never routed to a file or buffer nor stored;
 * - Settings' tool search mode is the case's when it forces search on or off;
 * - a call that waits for approval, in the attempt's conversation or a task it delegated, is
 *   answered at once as the case says (denied by default, the model is told why); an agent's
 *   question to the user is declined (nobody can answer);
 * - an attempt past its time limit, or of a cancelled run, is stopped like the chat's Stop;
 * - when it ends, its conversation and its tasks' are deleted and what features kept for them
 *   (buffers, stored outputs, memory) is dropped, awaited, without telling any window.
 */
import { toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import type { EvalCall, EvalCannedResult } from '../../../shared/model/evals';
import type { ModelRef, ToolSelection, Usage } from '../../../shared/model/provider';
import type { Settings } from '../../../shared/model/settings';
import type { AgentLoopDeps, AnsweredCall } from '../agent/deps';
import { createAgentLoop, type AgentLoopService } from '../agent/loop';
import { MODEL_TOOLS_BUNDLE, NON_FUNCTION_TOOLS, TOOL_OUTPUT_TOOL } from '../agent/tool-behavior';
import { parseArgs } from '../agent/tool-calls';
import { toolsForModel, usableTools, windowOf, type ModelToolSet } from '../agent/tools-for-model';
import { TOOL_SEARCH_NAME } from '../agent/deferred-tools';
import type { ToolStore } from '../bundles/tool-store';
import { EventBus } from '../events';
import type { InvokeDispatcher, InvokeOutcome } from '../invoke/dispatcher';
import type { ModelClient, ModelClientFactory, ModelToolSpec } from '../llm/types';
import { ConversationStore, type TimelineRow } from '../timeline/conversation-store';
import { toolKeyOf } from './score';

/** What the model is told of a call denied because nobody watches the run. */
export const UNATTENDED_DENIAL = 'this is an unattended eval run and the tool asks for approval, so the call was not run';
/** What the model is told of a call the case refuses (otherCalls: refuse). */
export const REFUSED_CALL = 'not run: this eval case runs only the tools it has canned results for';
/** What an agent is told when it asks the user a question (ask_master) in a run. */
export const UNATTENDED_QUESTION = 'nobody can answer: this is an unattended eval run; decide with what you have, or say in your result what you needed to know';
/** Times an approval (or a question) is answered before the call is found waiting. */
const APPROVAL_TRIES = 20;
/** How long closing waits for a stopped turn. */
const SETTLE_MS = 2_000;

/** The app's services an eval run stands on: the agent loop's, less what the session makes its own. */
export type EvalPlatform = Omit<AgentLoopDeps, 'conversations' | 'events' | 'clients' | 'dispatcher' | 'settings' | 'registry' | 'maxSteps' | 'answerWithoutRunning'> & {
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel' | 'checkArgs' | 'argIssues'>;
  settings: { get(): Settings };
  store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById' | 'getTool' | 'toolsOf' | 'approvals'>;
  /**
   * A finished attempt's conversations (its own and its tasks') are gone: what features kept
   * for them (buffers, stored outputs, memory) goes too. Settles when it has; never throws.
   */
  forget(conversationIds: readonly string[]): Promise<void>;
};

/** A case ready to ask: what the session needs of it. */
export interface AttemptPlan {
  prompt: string;
  context: readonly { role: 'user' | 'assistant'; text: string }[];
  /** The conversation's tool selection (absent: every tool switched on). */
  selection?: ToolSelection;
  /** Settings' tool search mode for this case, when the case forces it. */
  toolSearchMode?: 'always' | 'off';
  /** Canned answers by tool key (score.ts toolKeyOf). */
  canned: ReadonlyMap<string, EvalCannedResult>;
  refuseOthers: boolean;
  allowApprovals: boolean;
  timeoutMs: number;
}

/** A step of the model as the session saw it. */
export interface RecordedStep {
  tools: ModelToolSpec[];
  usage?: Usage;
  durationMs: number;
}

export interface AttemptRecord {
  /** The run was cancelled before or while it ran. */
  cancelled: boolean;
  error?: ErrorInfo;
  /** Every call, the delegated agents' among them, with the arguments whole (what is stored is cut later: ./record-limits.ts). */
  calls: EvalCall[];
  /** The model's final text, whole. */
  answer: string;
  steps: RecordedStep[];
  /** The names of the request's tools, to registry tools (what run.tools records). */
  names: ModelToolSet;
  toolSearch?: string;
  durationMs: number;
}

interface Running {
  conversationId: string;
  plan: AttemptPlan;
  steps: RecordedStep[];
  stepError?: ErrorInfo;
  stopping?: 'timeout' | 'cancelled';
  canned: Set<string>;
  state?: 'done' | 'error' | 'stopped';
}

export class EvalSession {
  private readonly conversations: ConversationStore;
  private readonly events = new EventBus();
  private readonly loop: AgentLoopService;
  private current: Running | undefined;

  constructor(private readonly p: EvalPlatform) {
    this.conversations = ConversationStore.open({ file: ':memory:', now: p.now, onChange: (c) => this.onRows(c.messages ?? []) });
    this.events.on('chat.turn', (t) => {
      if (t.state !== 'running' && this.current?.conversationId === t.conversationId) this.current.state = t.state;
    });
    const settings = {
      get: (): Settings => {
        const s = p.settings.get();
        const mode = this.current?.plan.toolSearchMode;
        return mode ? { ...s, toolSearch: { ...s.toolSearch, mode } } : s;
      },
    };
    this.loop = createAgentLoop({
      ...p,
      conversations: this.conversations,
      events: this.events,
      clients: { forProvider: (id) => this.client(id) },
      dispatcher: { invoke: (r) => p.dispatcher.invoke(r), cancel: (id) => p.dispatcher.cancel(id), checkArgs: (t, a, o) => p.dispatcher.checkArgs(t, a, o) },
      answerWithoutRunning: (c) => this.answerWithoutRunning(c),
      settings,
      // Without trustAllowedScript: an approval answered here trusts no script (nobody read it).
      registry: { store: { allTools: () => p.store.allTools(), isUsable: (id) => p.store.isUsable(id), bundleById: (id) => p.store.bundleById(id), approvals: () => p.store.approvals() } },
    });
  }

  /** One attempt: a conversation, one turn, what it did. Never throws for the model's or a tool's failures. */
  async attempt(plan: AttemptPlan, model: ModelRef, signal: AbortSignal): Promise<AttemptRecord> {
    const names = this.toolSet(plan, model);
    const base = { calls: [], answer: '', steps: [], names, ...(names.deferred ? { toolSearch: names.deferred.reason } : {}), durationMs: 0 };
    if (signal.aborted) return { ...base, cancelled: true };
    const conversation = this.conversations.create('eval', model);
    const cid = conversation.id;
    if (plan.selection) this.conversations.setTools(cid, plan.selection);
    this.conversations.addMessages(cid, [...plan.context.map((m) => (m.role === 'assistant' ? { role: m.role, text: m.text, model } : { role: m.role, text: m.text })), { role: 'user' as const, text: plan.prompt }]);
    const run: Running = { conversationId: cid, plan, steps: [], canned: new Set() };
    this.current = run;
    const stop = (why: 'timeout' | 'cancelled') => {
      run.stopping ??= why;
      this.loop.stop(cid);
    };
    const onAbort = () => stop('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop('timeout'), plan.timeoutMs);
    const t0 = performance.now();
    try {
      this.loop.start({ conversationId: cid, model, prompt: plan.prompt });
      await this.loop.settled(cid);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.current = undefined;
    }
    const durationMs = performance.now() - t0;
    const rows = this.conversations.timeline(cid);
    const { calls, answer } = readTurn(rows, run.canned, this.p.store, (taskId) => (this.conversations.has(taskId) ? this.conversations.timeline(taskId) : []));
    // The attempt's conversation and its delegated tasks' go (a question task has no conversation).
    const gone = [cid, ...this.conversations.tasks(cid).filter((t) => t.kind === 'agent').map((t) => t.id)];
    this.conversations.delete(cid);
    await this.p.forget(gone);
    const record: AttemptRecord = { ...base, cancelled: run.stopping === 'cancelled', calls, answer, steps: run.steps, durationMs };
    const error = attemptError(run, rows, plan.timeoutMs);
    return error ? { ...record, error } : record;
  }

  async close(): Promise<void> {
    this.loop.stopAll();
    await this.loop.settledAll(SETTLE_MS);
    this.conversations.close();
  }

  /** The tools as the turn names them, and why it searches (tools-for-model.ts, with the turn's inputs). */
  private toolSet(plan: AttemptPlan, model: ModelRef): ModelToolSet {
    const s = this.p.settings.get();
    return toolsForModel({
      usable: usableTools(this.p.store),
      ...(plan.selection ? { selection: plan.selection } : {}),
      modelRouting: s.modelRouting,
      modelOnly: [...NON_FUNCTION_TOOLS, TOOL_OUTPUT_TOOL],
      toolSearch: {
        settings: plan.toolSearchMode ? { ...s.toolSearch, mode: plan.toolSearchMode } : s.toolSearch,
        contextTokens: windowOf(s.toolOutputs, model).contextTokens,
      },
    });
  }

  private client(providerId: string): ModelClient {
    const run = this.current;
    let client: ModelClient;
    try {
      client = this.p.clients.forProvider(providerId);
    } catch (e) {
      if (run) run.stepError = toErrorInfo(e, 'evals.run');
      throw e;
    }
    return {
      listModels: (signal) => client.listModels(signal),
      step: async (req, onText, signal) => {
        const step: RecordedStep = { tools: req.tools, durationMs: 0 };
        run?.steps.push(step);
        const t0 = performance.now();
        try {
          const result = await client.step(req, onText, signal);
          if (result.usage) step.usage = result.usage;
          return result;
        } catch (e) {
          if (run && !run.stopping) run.stepError = toErrorInfo(e, 'evals.run');
          throw e;
        } finally {
          step.durationMs = performance.now() - t0;
        }
      },
    };
  }

  /**
   * A call of a tool with a canned result is answered with it (nothing runs); one without is
   * refused when the case says so; any other runs (undefined). The loop puts the answer on the
   * card inline, before any approval, without routing or storing it.
   */
  private answerWithoutRunning(req: AnsweredCall): InvokeOutcome | undefined {
    const run = this.current;
    const canned = run?.plan.canned.get(toolKeyOf(req.bundleId, req.slug));
    if (!run || (!canned && !run.plan.refuseOthers)) return undefined;
    const answer = (o: { ok: true; value: unknown } | { ok: false; error: ErrorInfo }): InvokeOutcome => ({ ...o, invocationId: req.invocationId, durationMs: 0, attempts: 0 });
    if (!canned) return answer({ ok: false, error: { code: 'FORBIDDEN', message: REFUSED_CALL } });
    // The arguments are checked as the real call would check them: a model that gets them wrong is told so.
    try {
      this.p.dispatcher.checkArgs(this.p.store.getTool(req.bundleId, req.slug, req.version), req.args, req.ownerId);
    } catch (e) {
      return answer({ ok: false, error: toErrorInfo(e, 'evals.run') });
    }
    run.canned.add(req.invocationId);
    return 'error' in canned ? answer({ ok: false, error: { code: canned.error.code as ErrorInfo['code'], message: canned.error.message } }) : answer({ ok: true, value: canned.value });
  }

  /**
   * What waits for a person is answered at once (after the turn starts waiting for it), in the
   * attempt's conversation or any task below it: an approval as the case says, an agent's
   * question to the user declined.
   */
  private onRows(rows: readonly { conversationId: string; role: string; tool?: ToolCard }[]): void {
    const run = this.current;
    if (!run) return;
    for (const m of rows) {
      const card = m.tool;
      if (m.role !== 'tool' || !card || !this.inAttempt(run, m.conversationId)) continue;
      const conversationId = m.conversationId;
      if (card.status === 'awaiting-approval' && !card.consent) {
        const allow = run.plan.allowApprovals;
        this.answerSoon(run, () => this.loop.respond(conversationId, card.invocationId, allow ? 'allow-once' : 'deny', undefined, allow ? undefined : UNATTENDED_DENIAL));
      } else if (card.status === 'awaiting-answer' && card.task?.kind === 'question') {
        const questionId = card.task.id;
        this.answerSoon(run, () => this.loop.decline(questionId, UNATTENDED_QUESTION));
      }
    }
  }

  /** The attempt's conversation, or a task's below it. */
  private inAttempt(run: Running, conversationId: string): boolean {
    return conversationId === run.conversationId || this.conversations.taskOf(conversationId)?.rootId === run.conversationId;
  }

  /** The row is written just before the call starts waiting: answer once it waits (a few turns of the loop at most). */
  private answerSoon(run: Running, give: () => boolean): void {
    const attempt = (tries: number) => {
      if (!give() && tries > 0 && this.current === run) setImmediate(() => attempt(tries - 1));
    };
    setImmediate(() => attempt(APPROVAL_TRIES));
  }
}

/** Why the attempt could not be judged, or undefined: it was stopped, or the model (its provider) failed. */
function attemptError(run: Running, rows: readonly TimelineRow[], timeoutMs: number): ErrorInfo | undefined {
  if (run.stopping === 'cancelled') return { code: 'CANCELLED', message: 'not finished: the run was cancelled' };
  if (run.stopping === 'timeout') {
    return { code: 'TIMEOUT', message: `the model did not finish within ${Math.round(timeoutMs / 1000)} s (the case's time limit): the attempt was stopped` };
  }
  if (run.state !== 'error') return undefined;
  if (run.stepError) return run.stepError;
  // A loop on one call (CONFLICT) is the model's doing: judged by the checks. Anything else stopped the turn.
  const failed = [...rows].reverse().find((r) => r.role === 'notice' && r.error);
  if (failed?.error && failed.error.code !== 'CONFLICT') return failed.error;
  return undefined;
}

/**
 * The calls of the turn (each with how its card ended) and the model's final text, both whole.
 * A call that delegated a task (route_to_<agent>) is followed by the calls of the task's turn
 * (`taskRows`: a task conversation's rows), and of the tasks it delegated in turn.
 */
export function readTurn(
  rows: readonly TimelineRow[],
  canned: ReadonlySet<string>,
  store: Pick<ToolStore, 'bundleById'>,
  taskRows: (taskId: string) => readonly TimelineRow[] = () => [],
): { calls: EvalCall[]; answer: string } {
  const calls: EvalCall[] = [];
  const answer = readRows(rows, canned, store, taskRows, calls, new Set());
  return { calls, answer };
}

/** Adds the calls of `rows` (and of the tasks they delegated) to `calls`; answers the last assistant text. */
function readRows(rows: readonly TimelineRow[], canned: ReadonlySet<string>, store: Pick<ToolStore, 'bundleById'>, taskRows: (taskId: string) => readonly TimelineRow[], calls: EvalCall[], seen: Set<string>): string {
  const byCallId = new Map<string, ToolCard>();
  for (const r of rows) if (r.role === 'tool' && r.tool?.callId && r.tool.source === 'model') byCallId.set(r.tool.callId, r.tool);
  let answer = '';
  for (const r of rows) {
    if (r.role !== 'assistant') continue;
    answer = r.text;
    for (const tc of r.toolCalls ?? []) {
      const card = byCallId.get(tc.callId);
      const parsed = parseArgs(tc.argsText);
      const args = card && typeof card.args === 'object' && card.args !== null ? card.args : parsed.ok ? parsed.value : tc.argsText;
      const call: EvalCall = { name: tc.name, kind: 'unknown', args, status: card?.status ?? 'error', ...(card?.error ? { error: card.error } : {}) };
      if (card && card.bundleId === MODEL_TOOLS_BUNDLE) {
        call.kind = card.slug === TOOL_SEARCH_NAME ? 'search' : 'model-only';
        if (call.kind === 'search') {
          const query = (parsed.ok ? (parsed.value as { query?: unknown }).query : undefined) ?? '';
          const loaded = (card.value as { loaded?: unknown } | undefined)?.loaded;
          call.search = { query: String(query), loaded: Array.isArray(loaded) ? loaded.map(String) : [] };
        }
      } else if (card && card.bundleId) {
        const bundleSlug = store.bundleById(card.bundleId)?.slug ?? card.bundleId;
        Object.assign(call, { kind: 'tool', tool: `${bundleSlug}/${card.slug}@${card.version}`, bundleId: card.bundleId, slug: card.slug });
        if (canned.has(card.invocationId)) call.canned = true;
      }
      calls.push(call);
      const task = card?.task;
      if (task?.kind === 'agent' && !seen.has(task.id)) {
        seen.add(task.id);
        readRows(taskRows(task.id), canned, store, taskRows, calls, seen);
      }
    }
  }
  return answer;
}
