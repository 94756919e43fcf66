/**
 * One agent turn: render the timeline, stream a step of the model, store its reply, run its
 * tool calls concurrently (./tool-calls.ts), and go on until the model answers, the step
 * limit, a loop on one call, a failure, or stop. Every event is appended to the timeline
 * (the conversation's messages); nothing is ever rewritten.
 */
import { AppError, type ErrorInfo } from '../../../shared/errors';
import type { NewMessage } from '../timeline/conversation-store';
import type { ToolCard } from '../../../shared/model/conversation';
import { v7 as uuidv7 } from 'uuid';
import { toErrorInfo } from '../../../shared/errors';
import { evaluateContext, systemText } from './context';
import type { AgentLoopDeps } from './deps';
import { renderForModel, type Redact } from '../timeline/render';
import { STOPPED_NOTICE, loopCallError, loopNotice, modelFailedNotice, providerMissing, stepLimitNotice, taskStepLimit, turnFailedNotice } from './strings';
import { TOOL_OUTPUT_NAME } from '../tool-output/messages';
import { NON_FUNCTION_TOOLS, TOOL_OUTPUT_TOOL } from './tool-behavior';
import { ToolCallRunner, type ApprovalAnswer } from './tool-calls';
import { orchestrationTools, taskSystemText } from './task-calls';
import { toolsForModel, usableTools, windowOf } from './tools-for-model';
import type { ModelClient, ModelRequest, ModelStepResult, ModelToolCall, TurnRequest } from './types';
import type { ModelParams } from '../../../shared/model/model-params';

export const DEFAULT_MAX_STEPS = 12;
/** The same call (tool and arguments) this many times in a row ends the turn. */
export const LOOP_REPEATS = 3;

export type TurnState = 'done' | 'error' | 'stopped';

export class Turn {
  readonly id = uuidv7();
  private readonly abort = new AbortController();
  private readonly calls: ToolCallRunner;
  private readonly redact: Redact;
  private stopped = false;
  /** The keys of the latest calls, across steps, for loop detection. */
  private readonly recent: string[] = [];
  private client: ModelClient | undefined;
  /** The last step's input tokens: what the conversation takes of the model's window. */
  private usedTokens: number | undefined;
  /** Whether tool_output is offered on the current step. */
  private toolOutputOffered = false;
  /** The text the model has streamed so far into the current step's row, until the row is stored. */
  private live: { messageId: string; text: string } | undefined;

  constructor(
    private readonly deps: AgentLoopDeps,
    private readonly req: TurnRequest,
  ) {
    this.redact = deps.redact ?? ((t) => t);
    this.calls = new ToolCallRunner({
      deps,
      conversationId: req.conversationId,
      turnId: this.id,
      signal: this.abort.signal,
      append: (m) => this.append(m),
      model: req.model,
      client: () => this.client,
      usedTokens: () => this.usedTokens,
      toolOutputOffered: () => this.toolOutputOffered,
      ...(req.extraction ? { extraction: req.extraction } : {}),
      ...(req.task ? { task: req.task } : {}),
    });
  }

  get conversationId(): string {
    return this.req.conversationId;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort(new AppError('CANCELLED', 'stopped by the user'));
    this.calls.cancelAll();
  }

  respond(invocationId: string, answer: ApprovalAnswer): boolean {
    return this.calls.respond(invocationId, answer);
  }

  /** The text streamed so far into a row not stored yet, if one streams. */
  streaming(): { turnId: string; messageId: string; text: string } | undefined {
    return this.live && this.live.text ? { turnId: this.id, ...this.live } : undefined;
  }

  checkEdited(invocationId: string, args: unknown): readonly { path: string; message: string }[] | null {
    return this.calls.editedIssues(invocationId, args);
  }

  async run(): Promise<TurnState> {
    const { events } = this.deps;
    const base = { conversationId: this.req.conversationId, turnId: this.id };
    events.emit('chat.turn', { ...base, state: 'running' });
    let state: TurnState;
    try {
      state = await this.steps();
    } catch (e) {
      state = this.stopped ? 'stopped' : 'error';
      if (state === 'error') this.notice(turnFailedNotice(this.errorOf(e).message), this.errorOf(e));
    }
    if (this.stopped) state = 'stopped';
    if (state === 'stopped') this.notice(STOPPED_NOTICE);
    events.emit('chat.turn', { ...base, state });
    return state;
  }

  private async steps(): Promise<TurnState> {
    const { conversations, settings, registry, clients } = this.deps;
    const cid = this.req.conversationId;
    const conversation = conversations.get(cid);
    const context = await evaluateContext(this.deps, cid, this.abort.signal);
    // A task's model gets its profile's prompt; the conversation's, its context sections.
    const task = this.req.task;
    const system = task ? taskSystemText(task, conversations.taskOf(cid)?.number) : systemText(context.sections);
    const orchestration = orchestrationTools(this.deps.tasks, task);
    const tools = toolsForModel({
      usable: usableTools(registry.store),
      selection: conversation.tools,
      // The message's `@tools` lines come last: their routing wins over the sections'.
      directiveTools: [...context.tools, ...(this.req.directiveTools ?? [])],
      modelRouting: settings.get().modelRouting,
      modelOnly: [...NON_FUNCTION_TOOLS, TOOL_OUTPUT_TOOL, ...orchestration],
      toolSearch: {
        settings: settings.get().toolSearch,
        contextTokens: windowOf(settings.get().toolOutputs, this.req.model).contextTokens,
        semantic: this.deps.semantic,
      },
    });

    let client: ModelClient;
    try {
      client = clients.forProvider(this.req.model.providerId);
      this.client = client;
    } catch (e) {
      const error = this.errorOf(e);
      this.notice(providerMissing(error.message), error);
      return 'error';
    }

    const maxSteps = task?.profile.maxSteps ?? this.deps.maxSteps ?? DEFAULT_MAX_STEPS;
    for (let step = 0; step < maxSteps; step++) {
      if (this.stopped) return 'stopped';
      const outputs = this.deps.toolOutputs;
      const contributions = this.deps.contributions ?? [];
      const added = contributions
        .map((c) => c.context?.(cid))
        .filter((t): t is string => !!t)
        .join('\n\n');
      const earlier = contributions.filter((c) => c.earlierLoad);
      const messages = renderForModel({
        rows: conversations.timeline(cid),
        // The conversation's own prompt comes after the app's text and its context sections.
        system: joinSystem(system, added, conversation.systemPrompt),
        redact: this.redact,
        storedText: (h: string) => outputs.inlineText(h),
        ...(earlier.length ? { batch: { turnId: this.id, earlier: (card: ToolCard) => firstDefined(earlier, (c) => c.earlierLoad!(card)) } } : {}),
      });
      // tool_output is offered while the conversation has stored outputs, never on the last step.
      const offerToolOutput = outputs.hasOutputs(cid) && step < maxSteps - 1;
      this.toolOutputOffered = offerToolOutput;
      const specs = tools.specs().filter((t) => t.name !== TOOL_OUTPUT_NAME || offerToolOutput);
      const messageId = uuidv7();
      let streamed = '';
      this.live = { messageId, text: '' };
      let result: ModelStepResult;
      // Its own signal per step: a client library's abort listeners go with the step, not
      // pile up on the turn's signal step after step.
      const stepSignal = linkedSignal(this.abort.signal);
      try {
        result = await client.step(
          { model: this.req.model.model, messages, tools: specs, ...requestParams(conversation.params) },
          (chunk) => {
            if (this.stopped || !chunk) return;
            const at = streamed.length;
            streamed += chunk;
            this.live = { messageId, text: streamed };
            this.deps.events.emit('chat.delta', { conversationId: cid, turnId: this.id, messageId, text: chunk, at });
          },
          stepSignal.signal,
        );
      } catch (e) {
        // What arrived before the failure stays on the timeline.
        if (streamed) this.append({ id: messageId, role: 'assistant', text: streamed, model: this.req.model });
        if (this.stopped) return 'stopped';
        const error = this.errorOf(e);
        this.notice(modelFailedNotice(error.message), error);
        return 'error';
      } finally {
        stepSignal.unlink();
        this.live = undefined;
      }
      if (this.stopped) {
        const text = result.text || streamed;
        if (text) this.append({ id: messageId, role: 'assistant', text, model: this.req.model });
        return 'stopped';
      }

      if (result.usage?.inputTokens !== undefined) this.usedTokens = result.usage.inputTokens + (result.usage.outputTokens ?? 0);
      const calls = withCallIds(result.toolCalls, `${this.id.slice(-8)}_${step + 1}`);
      this.append({
        id: messageId,
        role: 'assistant',
        text: result.text,
        model: this.req.model,
        ...(result.usage ? { usage: result.usage } : {}),
        ...(calls.length ? { toolCalls: calls } : {}),
      });
      if (calls.length === 0) return 'done';

      const looping = this.looping(calls);
      if (looping) {
        for (const c of calls) this.calls.refuse(c, tools, { code: 'CONFLICT', message: loopCallError(LOOP_REPEATS) });
        this.notice(loopNotice(looping, LOOP_REPEATS), { code: 'CONFLICT', message: loopNotice(looping, LOOP_REPEATS) });
        return 'error';
      }

      const actions = await Promise.all(calls.map((c) => this.calls.run(c, tools)));
      if (this.stopped) return 'stopped';
      if (actions.includes('stop')) return 'done';
    }
    if (task) {
      // A task that runs out of steps has not done its work: its parent is told it failed.
      this.notice(stepLimitNotice(maxSteps), { code: 'TIMEOUT', message: taskStepLimit(maxSteps) });
      return 'error';
    }
    this.notice(stepLimitNotice(maxSteps));
    return 'done';
  }

  /** The name of the tool called the same way LOOP_REPEATS times in a row, counting these calls. */
  private looping(calls: ModelToolCall[]): string | null {
    for (const c of calls) {
      this.recent.push(callKey(c));
      if (this.recent.length > LOOP_REPEATS) this.recent.shift();
      if (this.recent.length === LOOP_REPEATS && this.recent.every((k) => k === this.recent[0])) return c.name;
    }
    return null;
  }

  private append(m: NewMessage): void {
    this.deps.conversations.addMessages(this.req.conversationId, [{ ...m, turnId: this.id }]);
  }

  private notice(text: string, error?: ErrorInfo): void {
    try {
      this.append({ role: 'notice', text, ...(error ? { error } : {}) });
    } catch {
      // The conversation was deleted while the turn ran: there is nowhere to say it.
    }
  }

  private errorOf(e: unknown): ErrorInfo {
    const info = toErrorInfo(e, 'chat.turn');
    return { ...info, message: this.redact(info.message) };
  }
}

/**
 * Every call gets an id unique in its step (some servers send none, or the same twice); a
 * made-up id names the turn and the step (`stepTag`), so it is never another turn's.
 */
export function withCallIds(calls: readonly ModelToolCall[], stepTag: string): ModelToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let callId = c.callId;
    if (!callId || seen.has(callId)) callId = `call_${stepTag}_${i + 1}`;
    seen.add(callId);
    return { ...c, callId };
  });
}

/** A signal aborted with `parent` until unlinked. */
export function linkedSignal(parent: AbortSignal): { signal: AbortSignal; unlink: () => void } {
  const child = new AbortController();
  const onAbort = () => child.abort(parent.reason);
  if (parent.aborted) child.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return { signal: child.signal, unlink: () => parent.removeEventListener('abort', onAbort) };
}

/** The system message's parts that have text, in order, a blank line apart. */
export function joinSystem(...parts: (string | undefined)[]): string {
  return parts
    .filter((p): p is string => !!p && p.trim() !== '')
    .map((p, i) => (i === 0 ? p : p.trim()))
    .join('\n\n');
}

/** The conversation's parameters as a step's request takes them; the unset ones are not there at all. */
export function requestParams(params: ModelParams | undefined): Pick<ModelRequest, 'temperature' | 'maxOutputTokens' | 'reasoning'> {
  if (!params) return {};
  return {
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.maxTokens !== undefined ? { maxOutputTokens: params.maxTokens } : {}),
    ...(params.reasoning !== undefined ? { reasoning: params.reasoning } : {}),
  };
}

/** The first answer that is not undefined, asking in order. */
function firstDefined<T, R>(items: readonly T[], f: (item: T) => R | undefined): R | undefined {
  for (const item of items) {
    const r = f(item);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** A call's tool and arguments, with the arguments' keys in a stable order. */
export function callKey(c: Pick<ModelToolCall, 'name' | 'argsText'>): string {
  let args = c.argsText.trim();
  try {
    args = JSON.stringify(sortKeys(JSON.parse(args || '{}')));
  } catch {
    // Malformed arguments compare as written.
  }
  return `${c.name}\u0000${args}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
