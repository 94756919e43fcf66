/**
 * The tool calls of a model's step, each handled as TOOL_BEHAVIOR says for its kind:
 * - function: the arguments are parsed; a call the deps answer without running (an eval's
 *   canned result) is answered inline at once; else approval asked when the tool asks, itself or through
 *   what it runs (shared/model/tool-approval.ts), and no remembered rule allows it; routing split off (routing/model-routing.ts), the tool run
 *   through the dispatcher, the result routed or kept inline;
 * - non-function: logged, answered at once;
 * - any kind without a handler: answered with an error the model can act on.
 * Each call appends a row when it starts (running, or awaiting-approval) and one when it
 * ends, both with the call's invocationId; the latest row is the call's state.
 */
import { AppError, isAppError, type ErrorInfo } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import type { ApprovalDecision } from '../../../shared/model/provider';
import type { NewMessage } from '../timeline/conversation-store';
import { cardOf, routeOntoCard } from '../timeline/tool-card';
import { v7 as uuidv7 } from 'uuid';
import type { InvokeOutcome } from '../invoke/dispatcher';
import { toErrorInfo } from '../../../shared/errors';
import { splitModelArgs } from '../routing/model-routing';
import type { AgentLoopDeps } from './deps';
import { approvalCancelled, argsNotObject, malformedArgs, unknownToolError } from './strings';
import { MODEL_TOOLS_BUNDLE, kindNotHandled, turnGoesOn, type ToolKind } from './tool-behavior';
import type { ModelTool, ModelToolSet } from './tools-for-model';
import { TOOL_OUTPUT_NAME } from '../tool-output/messages';
import { TOOL_SEARCH_NAME, notLoadedError, type DeferredTools } from './deferred-tools';
import { extractionInfo } from '../tool-output/tool-output-tool';
import type { ModelRef } from '../../../shared/model/provider';
import { approvalOf } from '../../../shared/model/tool-approval';
import type { ModelClient, ModelToolCall } from './types';
import { TaskCalls, type TaskTurn } from './task-calls';

export type CallAction = 'continue' | 'stop';

/** What the model is told when it calls tool_output on the last step of a turn (it is not offered there). */
export const TOOL_OUTPUT_NOT_OFFERED = 'tool_output is not available now (this is the last step of the turn, or nothing is stored): answer with what you have';
/**
 * What the model is told when it calls tool_output for a handle the conversation no longer has
 * (the history still names it, but stored outputs end with the app's session: a restart, or
 * the conversation's outputs were removed).
 */
export const toolOutputExpired = (handle: string | undefined) =>
  `the stored output${handle ? ` '${handle}'` : ''} has expired: stored outputs are kept only while the app runs, and it was restarted (or they were removed) since the result was stored. Call the tool again if you need its result, or answer with what you have`;

/** The user's answer to an approval request; `cancelled` when the turn stopped first. */
export type ApprovalAnswer = { decision: ApprovalDecision; args?: unknown; reason?: string } | { decision: 'cancelled' };

interface CallContext {
  deps: AgentLoopDeps;
  conversationId: string;
  turnId: string;
  signal: AbortSignal;
  append: (m: NewMessage) => void;
  /** The turn's model and client: the gate sizes results by its window; tool_output extracts with it. */
  model?: ModelRef;
  client?: () => ModelClient | undefined;
  /** Tokens the conversation takes now (the last step's input figure). */
  usedTokens?: () => number | undefined;
  /** Whether tool_output is offered on this step (not on the last one, not while nothing is stored). */
  toolOutputOffered?: () => boolean;
  /** The turn's extraction thresholds over the conversation's (a workflow's front matter). */
  extraction?: import('../../../shared/model/settings').ExtractionOverrides;
  /** The task the turn runs (absent: the conversation itself). */
  task?: TaskTurn;
}

type KindHandler = (mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string) => Promise<void>;

interface Waiting {
  resolve: (a: ApprovalAnswer) => void;
  /** Throws VALIDATION_FAILED when edited arguments do not match the tool's argSchema. */
  check: (args: unknown) => void;
}

export class ToolCallRunner {
  private readonly waiting = new Map<string, Waiting>();
  private readonly running = new Set<string>();
  /** The handlers by tool kind; the kinds without one are answered with kindNotHandled. */
  private readonly handlers: Partial<Record<ToolKind, KindHandler>> = {
    function: (mt, call, args, id) => this.runFunction(mt, call, args, id),
    'non-function': async (mt, call, args, id) => this.log(mt, call, args, id),
    'agent-as-tool': (mt, call, args, id) => this.tasks.delegate(mt, call, args, id),
    handoff: (mt, call, args, id) => this.tasks.handoff(mt, call, args, id),
    'ask-master': (mt, call, args, id) => this.tasks.askMaster(mt, call, args, id),
  };
  /** Orchestration (docs/design/orchestration.md): delegation, handoff, questions. */
  private readonly tasks: TaskCalls;

  constructor(private readonly ctx: CallContext) {
    this.tasks = new TaskCalls(ctx, { card: (mt, call, args, id, state) => this.card(mt, call, args, id, state), finish: (c) => this.finish(c) });
  }

  /** Runs one call; answers whether the turn goes on after it. Never throws for the call's own failures. */
  async run(call: ModelToolCall, tools: ModelToolSet): Promise<CallAction> {
    const invocationId = uuidv7();
    const mt = tools.byName(call.name);
    if (!mt) {
      this.refuse(call, tools, { code: 'NOT_FOUND', message: unknownToolError(call.name, tools.names()) }, invocationId);
      return 'continue';
    }
    if (tools.deferred && !tools.deferred.visible(mt.name)) {
      this.refuse(call, tools, { code: 'NOT_FOUND', message: notLoadedError(mt.name) }, invocationId);
      return 'continue';
    }
    const args = parseArgs(call.argsText);
    if (!args.ok) {
      this.finish(this.card(mt, call, call.argsText, invocationId, { status: 'error', error: args.error }));
      return 'continue';
    }
    const handler = mt.modelOnly && mt.kind === 'function' ? this.modelOnlyHandler(mt, tools) : this.handlers[mt.kind];
    if (!handler) {
      this.finish(this.card(mt, call, args.value, invocationId, { status: 'error', error: { code: 'NOT_IMPLEMENTED', message: kindNotHandled(mt.name, mt.kind) } }));
      return 'continue';
    }
    try {
      await handler(mt, call, args.value, invocationId);
    } catch (e) {
      const error = this.errorOf(e);
      this.finish(this.card(mt, call, args.value, invocationId, { status: error.code === 'CANCELLED' ? 'cancelled' : 'error', error }));
      // A handoff that failed (bad arguments) did not end the task: the model may correct it.
      return 'continue';
    }
    return turnGoesOn(mt.kind) ? 'continue' : 'stop';
  }

  /** Answers a call with an error without running it (an unknown tool, a loop). */
  refuse(call: ModelToolCall, tools: ModelToolSet, error: ErrorInfo, invocationId = uuidv7()): void {
    const mt = tools.byName(call.name);
    const args = parseArgs(call.argsText);
    const shown = args.ok ? args.value : call.argsText;
    if (mt) {
      this.finish(this.card(mt, call, shown, invocationId, { status: 'error', error }));
      return;
    }
    this.finish({
      invocationId,
      bundleId: '',
      slug: call.name,
      version: '',
      displayName: call.name,
      args: shown,
      status: 'error',
      error,
      source: 'model',
      callId: call.callId,
    });
  }

  /**
   * Answers a call waiting for approval. Edited arguments going with an allowing answer are
   * checked first: ones that do not match the tool's argSchema throw VALIDATION_FAILED and
   * the call keeps waiting, so the user can correct them on the card.
   */
  respond(invocationId: string, answer: ApprovalAnswer): boolean {
    const w = this.waiting.get(invocationId);
    if (!w) return false;
    if (answer.decision !== 'cancelled' && answer.decision !== 'deny' && answer.args !== undefined) w.check(answer.args);
    this.waiting.delete(invocationId);
    w.resolve(answer);
    return true;
  }

  /** The issues Allow would refuse these edited arguments for (empty when none), or null when nothing waits under that id. */
  editedIssues(invocationId: string, args: unknown): readonly { path: string; message: string }[] | null {
    const w = this.waiting.get(invocationId);
    if (!w) return null;
    try {
      w.check(args);
      return [];
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION_FAILED') throw e;
      const issues = (e.details as { issues?: unknown } | undefined)?.issues;
      if (Array.isArray(issues) && issues.length > 0) return issues as { path: string; message: string }[];
      return [{ path: '(root)', message: e.message }];
    }
  }

  /** The turn stopped: running calls are cancelled, waiting ones answered as cancelled. */
  cancelAll(): void {
    for (const id of this.running) this.ctx.deps.dispatcher.cancel(id);
    for (const id of [...this.waiting.keys()]) this.respond(id, { decision: 'cancelled' });
  }

  private async runFunction(mt: ModelTool, call: ModelToolCall, modelArgs: unknown, invocationId: string): Promise<void> {
    const { deps, conversationId, signal } = this.ctx;
    const tool = mt.tool!;
    if (deps.answerWithoutRunning) {
      // Answered without running (an eval's canned or refused call): nothing to approve, route or gate.
      const plain = splitModelArgs(modelArgs, mt.routing).args;
      const outcome = deps.answerWithoutRunning({ bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args: plain, ownerId: conversationId, invocationId });
      if (outcome) {
        this.finish({ ...cardOf(tool, plain, outcome, 'model'), callId: call.callId });
        return;
      }
    }
    let args = modelArgs;
    let decision: ApprovalDecision | undefined;
    // "Allow for this conversation" covers the tasks it delegated (their hidden conversations).
    const scopeId = deps.conversations.taskOf(conversationId)?.rootId ?? conversationId;
    // Asks when the tool does, or when what it runs does (shared/model/tool-approval.ts).
    const approvals = deps.registry.store.approvals();
    const approval = approvalOf(tool, approvals);
    if (approval && !deps.approvals.allows(tool.id, scopeId)) {
      this.finish(this.card(mt, call, args, invocationId, { status: 'awaiting-approval', approval }));
      const answer = signal.aborted ? ({ decision: 'cancelled' } as const) : await this.approval(invocationId, (edited) => this.checkEdited(mt, edited));
      if (answer.decision === 'cancelled') {
        this.finish(this.card(mt, call, args, invocationId, { status: 'cancelled', error: { code: 'CANCELLED', message: approvalCancelled } }));
        return;
      }
      decision = answer.decision;
      if (answer.args !== undefined) args = answer.args;
      if (decision === 'deny') {
        this.finish(this.card(mt, call, args, invocationId, { status: 'denied', decision, ...(answer.reason ? { denyReason: answer.reason } : {}) }));
        return;
      }
      // A script not written in this app that the user allowed (its own, shown on the card) runs without asking from now on.
      await deps.registry.store.trustAllowedScript?.(tool);
      if (decision === 'allow-conversation' || decision === 'allow-always') {
        const toolName = `${mt.bundleSlug ?? ''}/${tool.slug}`;
        await deps.approvals.add({ toolId: tool.id, toolName, scope: decision === 'allow-always' ? 'always' : 'conversation', conversationId: scopeId });
      }
    }

    const split = splitModelArgs(args, mt.routing);
    this.finish(this.card(mt, call, split.args, invocationId, { status: 'running', ...(decision ? { decision } : {}) }));
    this.running.add(invocationId);
    let outcome: InvokeOutcome;
    try {
      outcome = await deps.dispatcher.invoke({
        bundleId: tool.bundleId,
        slug: tool.slug,
        version: tool.version,
        args: split.args,
        source: 'model',
        ownerId: conversationId,
        invocationId,
        signal,
        ...(split.destination.kind !== 'inline' ? { keepInMemory: true } : {}),
      });
    } finally {
      this.running.delete(invocationId);
    }

    let card: ToolCard = { ...cardOf(tool, split.args, outcome, 'model'), callId: call.callId, ...(decision ? { decision } : {}) };
    if (outcome.ok && split.destination.kind === 'inline') card = await this.gate(card, tool, split.args, outcome.value);
    else if (outcome.ok) {
      card = await routeOntoCard(card, outcome.value, tool, { router: deps.routing.router, ownerId: conversationId, destination: split.destination, writeMode: split.writeMode, signal }, (e) => this.errorOf(e));
    }
    this.finish(card);
  }

  /**
   * The gate (docs/design/tool-outputs.md): a result that fits stays whole on its card; an oversized one is
   * stored behind a handle, routed to a buffer, dropped or kept inline, as the tool's choice says.
   */
  private async gate(card: ToolCard, tool: NonNullable<ModelTool['tool']>, args: unknown, value: unknown): Promise<ToolCard> {
    const { deps, conversationId, signal } = this.ctx;
    const used = this.ctx.usedTokens?.();
    try {
      return await deps.toolOutputs.gateCard(card, { conversationId, tool, args, value, ...(this.ctx.model ? { model: this.ctx.model } : {}), ...(used !== undefined ? { usedTokens: used } : {}) }, signal);
    } catch (e) {
      const error = this.errorOf(e);
      return { ...card, status: error.code === 'CANCELLED' ? 'cancelled' : 'error', error };
    }
  }

  private modelOnlyHandler(mt: ModelTool, tools: ModelToolSet): KindHandler | undefined {
    const deferred = tools.deferred;
    if (mt.name === TOOL_SEARCH_NAME && deferred) return async (m, call, args, id) => this.runToolSearch(deferred, m, call, args, id);
    if (mt.name !== TOOL_OUTPUT_NAME) return undefined;
    if (this.ctx.toolOutputOffered && !this.ctx.toolOutputOffered()) {
      // Nothing stored now: the handle the model names (from the history) is gone, not merely unavailable on this step.
      const expired = !this.ctx.deps.toolOutputs.hasOutputs(this.ctx.conversationId);
      return async (m, call, args, id) => {
        const handle = typeof (args as { handle?: unknown } | null)?.handle === 'string' ? ((args as { handle: string }).handle.slice(0, 100)) : undefined;
        const error = expired ? { code: 'NOT_FOUND' as const, message: toolOutputExpired(handle) } : { code: 'CONFLICT' as const, message: TOOL_OUTPUT_NOT_OFFERED };
        this.finish(this.card(m, call, args, id, { status: 'error', error }));
      };
    }
    return (m, call, args, id) => this.runToolOutput(m, call, args, id);
  }

  /** `tool_output`: extracts from a stored output with the turn's model; the answer is the exact success or failure text (docs/design/tool-outputs.md). */
  private async runToolOutput(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): Promise<void> {
    const { deps, conversationId, signal } = this.ctx;
    const outputs = deps.toolOutputs;
    this.finish(this.card(mt, call, args, invocationId, { status: 'running' }));
    const started = performance.now();
    const model = outputs.extractionModel(this.ctx.client?.(), this.ctx.model);
    let answer;
    try {
      const conv = deps.conversations.has(conversationId) ? deps.conversations.get(conversationId) : undefined;
      answer = await outputs.run(conversationId, args, model, signal, conv?.extraction, this.ctx.extraction);
    } catch (e) {
      const error = this.errorOf(e);
      this.finish(this.card(mt, call, args, invocationId, { status: error.code === 'CANCELLED' ? 'cancelled' : 'error', error, durationMs: performance.now() - started }));
      return;
    }
    const r = answer.report;
    const extraction = r ? extractionInfo(answer.handle!, r) : undefined;
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    if (answer.isError) {
      this.finish(this.card(mt, call, args, invocationId, { status: 'error', error: { code: 'VALIDATION_FAILED', message: answer.text }, durationMs }));
      return;
    }
    this.finish(this.card(mt, call, args, invocationId, { status: 'ok', value: answer.text, durationMs, ...(extraction ? { extraction } : {}) }));
  }

  /** `tool_search`: ranks the conversation's tools and loads the best for the following steps (./deferred-tools.ts). */
  private async runToolSearch(deferred: DeferredTools, mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): Promise<void> {
    const started = performance.now();
    await deferred.prepare();
    const value = await deferred.find(args, this.ctx.signal);
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    this.finish(this.card(mt, call, args, invocationId, { status: 'ok', value, durationMs }));
  }

  /** A non-function tool: the input is logged, nothing runs. */
  private log(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string): void {
    this.finish(this.card(mt, call, args, invocationId, { status: 'ok', durationMs: 0 }));
  }

  private approval(invocationId: string, check: Waiting['check']): Promise<ApprovalAnswer> {
    return new Promise((resolve) => this.waiting.set(invocationId, { resolve, check }));
  }

  /** Edited arguments as the call would check them: an object, a valid routing choice, the tool's argSchema. */
  private checkEdited(mt: ModelTool, edited: unknown): void {
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) throw new AppError('VALIDATION_FAILED', argsNotObject, { phase: 'args' });
    const split = splitModelArgs(edited, mt.routing);
    this.ctx.deps.dispatcher.checkArgs(mt.tool!, split.args, this.ctx.conversationId);
  }

  private card(mt: ModelTool, call: ModelToolCall, args: unknown, invocationId: string, state: Partial<ToolCard> & Pick<ToolCard, 'status'>): ToolCard {
    const t = mt.tool;
    return {
      invocationId,
      bundleId: t?.bundleId ?? MODEL_TOOLS_BUNDLE,
      slug: t?.slug ?? mt.name,
      version: t?.version ?? '1',
      displayName: t?.displayName ?? mt.modelOnly?.displayName ?? mt.name,
      args,
      source: 'model',
      callId: call.callId,
      ...(t?.mcp?.ui?.resourceUri ? { hasApp: true as const } : {}),
      ...state,
    };
  }

  /** Appends the call's row; the row's text is what the chat shows under the card. */
  private finish(card: ToolCard): void {
    const text = card.manifest?.text ?? (card.status === 'error' || card.status === 'cancelled' ? (card.error?.message ?? '') : '');
    this.ctx.append({ role: 'tool', text, tool: card });
  }

  private errorOf(e: unknown): ErrorInfo {
    const info = isAppError(e) ? e.toInfo() : toErrorInfo(e, 'chat.turn');
    const redact = this.ctx.deps.redact;
    return redact ? { ...info, message: redact(info.message) } : info;
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

/** A call's arguments: a JSON object (empty text is `{}`). */
export function parseArgs(text: string): Parsed {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    return { ok: false, error: { code: 'VALIDATION_FAILED', message: malformedArgs((e as Error).message) } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: new AppError('VALIDATION_FAILED', argsNotObject).toInfo() };
  return { ok: true, value };
}
