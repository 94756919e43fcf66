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
 * - the dispatcher answers a tool with a canned result without running it (after checking
 *   the arguments as a real call would), and refuses a tool without one when the case says so;
 * - Settings' tool search mode is the case's when it forces search on or off;
 * - a call that waits for approval is answered at once: allowed once when nothing will run
 *   (a canned or refused call), else as the case says (denied by default, the model is told why);
 * - an attempt past its time limit, or of a cancelled run, is stopped like the chat's Stop.
 */
import { v7 as uuidv7 } from 'uuid';
import { toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import type { EvalCall, EvalCannedResult } from '../../../shared/model/evals';
import type { ModelRef, ToolSelection, Usage } from '../../../shared/model/provider';
import type { Settings } from '../../../shared/model/settings';
import type { AgentLoopDeps } from '../agent/deps';
import { createAgentLoop, type AgentLoopService } from '../agent/loop';
import { MODEL_TOOLS_BUNDLE, NON_FUNCTION_TOOLS, TOOL_OUTPUT_TOOL } from '../agent/tool-behavior';
import { parseArgs } from '../agent/tool-calls';
import { toolsForModel, usableTools, windowOf, type ModelToolSet } from '../agent/tools-for-model';
import { TOOL_SEARCH_NAME } from '../agent/deferred-tools';
import type { ToolStore } from '../bundles/tool-store';
import { EventBus } from '../events';
import type { InvokeDispatcher, InvokeOutcome, InvokeRequest } from '../invoke/dispatcher';
import type { ModelClient, ModelClientFactory, ModelToolSpec } from '../llm/types';
import { ConversationStore, type TimelineRow } from '../timeline/conversation-store';
import { toolKeyOf } from './score';

/** What the model is told of a call denied because nobody watches the run. */
export const UNATTENDED_DENIAL = 'this is an unattended eval run and the tool asks for approval, so the call was not run';
/** What the model is told of a call the case refuses (otherCalls: refuse). */
export const REFUSED_CALL = 'not run: this eval case runs only the tools it has canned results for';
/** The most of a call's arguments an attempt keeps, as JSON text. */
const MAX_ARGS_CHARS = 64 * 1024;
/** The most of the answer an attempt keeps. */
const MAX_ANSWER_CHARS = 16 * 1024;
/** Times an approval is answered before the call is found waiting. */
const APPROVAL_TRIES = 20;
/** How long closing waits for a stopped turn. */
const SETTLE_MS = 2_000;

/** The app's services an eval run stands on: the agent loop's, less what the session makes its own. */
export type EvalPlatform = Omit<AgentLoopDeps, 'conversations' | 'events' | 'clients' | 'dispatcher' | 'settings' | 'registry' | 'maxSteps'> & {
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel' | 'checkArgs' | 'argIssues'>;
  settings: { get(): Settings };
  store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById' | 'getTool' | 'toolsOf'>;
  /** A finished attempt's conversation is gone: what features kept for it (stored outputs, memory) goes too. */
  forget(conversationId: string): void;
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
  calls: EvalCall[];
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
      dispatcher: { invoke: (r) => this.invoke(r), cancel: (id) => p.dispatcher.cancel(id), checkArgs: (t, a, o) => p.dispatcher.checkArgs(t, a, o) },
      settings,
      registry: { store: p.store },
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
    this.conversations.delete(cid);
    this.p.forget(cid);
    const { calls, answer } = readTurn(rows, run.canned, this.p.store);
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

  private async invoke(req: InvokeRequest): Promise<InvokeOutcome> {
    const run = this.current;
    const canned = run?.plan.canned.get(toolKeyOf(req.bundleId, req.slug));
    if (!run || (!canned && !run.plan.refuseOthers)) return this.p.dispatcher.invoke(req);
    const invocationId = req.invocationId ?? uuidv7();
    const answer = (o: { ok: true; value: unknown } | { ok: false; error: ErrorInfo }): InvokeOutcome => ({ ...o, invocationId, durationMs: 0, attempts: 0 });
    if (!canned) return answer({ ok: false, error: { code: 'FORBIDDEN', message: REFUSED_CALL } });
    // The arguments are checked as the real call would check them: a model that gets them wrong is told so.
    try {
      this.p.dispatcher.checkArgs(this.p.store.getTool(req.bundleId, req.slug, req.version), req.args, req.ownerId);
    } catch (e) {
      return answer({ ok: false, error: toErrorInfo(e, 'evals.run') });
    }
    run.canned.add(invocationId);
    return 'error' in canned ? answer({ ok: false, error: { code: canned.error.code as ErrorInfo['code'], message: canned.error.message } }) : answer({ ok: true, value: canned.value });
  }

  /** A call waiting for approval is answered at once (after the turn starts waiting for it). */
  private onRows(rows: readonly { conversationId: string; role: string; tool?: ToolCard }[]): void {
    const run = this.current;
    if (!run) return;
    for (const m of rows) {
      const card = m.tool;
      if (m.role !== 'tool' || m.conversationId !== run.conversationId || card?.status !== 'awaiting-approval' || card.consent) continue;
      const silent = run.plan.canned.has(toolKeyOf(card.bundleId, card.slug)) || run.plan.refuseOthers;
      const allow = silent || run.plan.allowApprovals;
      // The row is written just before the call starts waiting: answer once it waits (a few turns of the loop at most).
      const answer = (tries: number) => {
        const done = this.loop.respond(run.conversationId, card.invocationId, allow ? 'allow-once' : 'deny', undefined, allow ? undefined : UNATTENDED_DENIAL);
        if (!done && tries > 0 && this.current === run) setImmediate(() => answer(tries - 1));
      };
      setImmediate(() => answer(APPROVAL_TRIES));
    }
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

/** The calls of the turn (each with how its card ended) and the model's final text. */
export function readTurn(rows: readonly TimelineRow[], canned: ReadonlySet<string>, store: Pick<ToolStore, 'bundleById'>): { calls: EvalCall[]; answer: string } {
  const byCallId = new Map<string, ToolCard>();
  for (const r of rows) if (r.role === 'tool' && r.tool?.callId && r.tool.source === 'model') byCallId.set(r.tool.callId, r.tool);
  const calls: EvalCall[] = [];
  let answer = '';
  for (const r of rows) {
    if (r.role !== 'assistant') continue;
    answer = r.text;
    for (const tc of r.toolCalls ?? []) {
      const card = byCallId.get(tc.callId);
      const parsed = parseArgs(tc.argsText);
      const args = keptArgs(card && typeof card.args === 'object' && card.args !== null ? card.args : parsed.ok ? parsed.value : tc.argsText);
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
    }
  }
  return { calls, answer: answer.length > MAX_ANSWER_CHARS ? `${answer.slice(0, MAX_ANSWER_CHARS)}…` : answer };
}

/** Arguments kept whole up to MAX_ARGS_CHARS of JSON; past it, the start of their text. */
function keptArgs(args: unknown): unknown {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    return String(args);
  }
  return text.length <= MAX_ARGS_CHARS ? args : `${text.slice(0, MAX_ARGS_CHARS)}…`;
}
