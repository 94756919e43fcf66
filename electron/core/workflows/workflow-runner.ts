/**
 * Lists and runs workflows (Markdown files of steps in `<workspace>/workflows`), with
 * progress events and cancellation. A run answers at once and goes on in the background,
 * one step after another: each step's directives run through the DirectiveRunner with the
 * run's buffers (its conversation's, else its own, keyed by the run id). A step without
 * `@model none` then asks a model: its prompt becomes a user message of the run's
 * conversation and a model turn answers it (./model-steps.ts), with the step's `@tools`
 * and their output=. A run started on its own that has such steps gets a conversation of
 * its own when a default model is set. With no model, such a step is skipped after its
 * directives ran, with a note saying how to set one up. A step whose directives fail, or
 * whose turn fails, ends the run (later steps usually build on it); the steps after it
 * stay pending.
 *
 * Cancel aborts the step's signal (the directive runner stops reading and the router refuses
 * to write); the run is reported cancelled only once the step's runner has settled, so
 * nothing of a cancelled run is written after it says it ended.
 */
import { AppError } from '../../../shared/errors';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import type { ModelRef } from '../../../shared/model/provider';
import type { WorkflowRun, WorkflowSummary } from '../../../shared/model/workflow';
import type { ConversationStore } from '../timeline/conversation-store';
import { describeDirectiveErrors, refusalErrors } from '../timeline/directive-errors';
import type { EventBus } from '../events';
import { v7 as uuidv7 } from 'uuid';
import { toErrorInfo } from '../../../shared/errors';
import type { RoutingServices } from '../routing';
import { WORKFLOW_FINISHED_RUNS_KEPT } from './limits';
import type { DirectiveRunResult } from '../routing/types';
import type { RunStepTurn } from './model-steps';
import { parseWorkflow, summaryOf, type WorkflowFile, type WorkflowFileError, type WorkflowStepSource } from './workflow-file';
import { listWorkflowFiles, readWorkflowFile } from './workflow-files';
import { CANCELLED_BY_USER, NO_MODEL_STEP, NO_STEPS, moreErrors, runNotFound, stepDirectiveError, stepNotice } from './strings';

export interface WorkflowRunnerDeps {
  workspaceDir: () => string;
  routing: RoutingServices;
  conversations: ConversationStore;
  events: EventBus;
  now: () => Date;
  /** Runs a model turn for a step (workflows/module.ts builds it from the agent loop); absent: steps for a model are skipped. */
  runTurn?: RunStepTurn;
  /** The model of a run started on its own (Settings' default model). */
  defaultModel?: () => ModelRef | null | undefined;
}

type Step = WorkflowRun['steps'][number];

interface RunState {
  run: WorkflowRun;
  sources: WorkflowStepSource[];
  /** The front matter's extraction thresholds, for every model step. */
  extraction?: import('../../../shared/model/settings').ExtractionOverrides;
  controller: AbortController;
  settled: Promise<void>;
  /** Cancel was asked: the run ends cancelled as soon as the current step's runner settles. */
  cancelling: boolean;
  /** When the current step started (Date.now()). */
  stepStartedAt: number;
}

export class WorkflowRunner {
  private readonly runs = new Map<string, RunState>();
  /** Finished run ids, oldest first. */
  private readonly finished: string[] = [];

  constructor(private readonly deps: WorkflowRunnerDeps) {
    // A deleted conversation takes its runs with it.
    deps.events.on('conversations.changed', (c) => {
      if (c.kind !== 'deleted') return;
      for (const s of this.runs.values()) if (s.run.conversationId === c.conversationId) this.cancel(s.run.runId);
    });
  }

  /** Every `workflows/*.md`, by name; a file that cannot run carries its error. */
  async list(): Promise<WorkflowSummary[]> {
    const out: WorkflowSummary[] = [];
    for (const entry of await listWorkflowFiles(this.deps.workspaceDir())) {
      if ('error' in entry) out.push({ path: entry.path, title: entry.title, steps: [], error: entry.error });
      else out.push(summaryOf(entry.path, await this.checked(parseWorkflow(entry.text, entry.path))));
    }
    return out;
  }

  /** Refuses a file that cannot run (no steps, a directive error) before anything runs; answers the run as it starts. */
  async start(workflowPath: string, conversationId?: string): Promise<WorkflowRun> {
    const { path: rel, text } = await readWorkflowFile(this.deps.workspaceDir(), workflowPath);
    const file = await this.checked(parseWorkflow(text, rel));
    if (file.steps.length === 0) throw new AppError('VALIDATION_FAILED', NO_STEPS, { path: rel });
    if (file.error) throw new AppError('VALIDATION_FAILED', file.error, { path: rel, errors: file.errors });
    if (conversationId !== undefined) this.deps.conversations.get(conversationId);
    // A run on its own whose steps ask a model runs in a conversation of its own, with the default model.
    const defaultModel = this.deps.defaultModel?.();
    if (conversationId === undefined && this.deps.runTurn && defaultModel && file.steps.some((s) => !s.parsed.modelNone)) {
      conversationId = this.deps.conversations.create(file.title, defaultModel).id;
    }

    const runId = uuidv7({ msecs: this.deps.now().getTime() });
    const run: WorkflowRun = {
      runId,
      path: rel,
      title: file.title,
      ownerId: conversationId ?? runId,
      ...(conversationId !== undefined ? { conversationId } : {}),
      status: 'running',
      startedAt: this.deps.now().toISOString(),
      steps: file.steps.map((s) => ({ title: s.title, status: 'pending', outcomes: [] })),
    };
    const state: RunState = { run, sources: file.steps, ...(file.extraction ? { extraction: file.extraction } : {}), controller: new AbortController(), settled: Promise.resolve(), cancelling: false, stepStartedAt: 0 };
    this.runs.set(runId, state);
    const initial = structuredClone(run);
    this.emit(state);
    state.settled = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.execute(state));
    return initial;
  }

  /** NOT_FOUND for a run this process does not know (or no longer keeps). */
  get(runId: string): WorkflowRun {
    return structuredClone(this.state(runId).run);
  }

  /** Resolves when the run has ended (for callers that need to wait, and tests). */
  async settled(runId: string): Promise<WorkflowRun> {
    await this.state(runId).settled;
    return this.get(runId);
  }

  /**
   * Aborts the current step; once its runner has settled, it and every step after it are
   * marked cancelled and the run ends cancelled (see the file comment). false when the run
   * had already ended or was already being cancelled.
   */
  cancel(runId: string): boolean {
    const state = this.state(runId);
    if (state.run.status !== 'running' || state.cancelling) return false;
    state.cancelling = true;
    state.controller.abort(new AppError('CANCELLED', CANCELLED_BY_USER));
    return true;
  }

  /** Marks the current step (if any) and the pending ones cancelled, and ends the run. */
  private endCancelled(state: RunState): void {
    const { run } = state;
    const current = run.steps.findIndex((s) => s.status === 'running' || s.status === 'waiting-for-model');
    for (const s of run.steps) {
      if (s.status === 'running' || s.status === 'waiting-for-model' || s.status === 'pending') s.status = 'cancelled';
    }
    if (current >= 0) {
      const step = run.steps[current]!;
      step.outcomes = [];
      delete step.error;
      step.durationMs = Date.now() - state.stepStartedAt;
    }
    this.finish(state, 'cancelled');
    if (current >= 0) this.notice(state, current);
  }

  /** Cancels every running run (the core is closing). */
  cancelAll(): void {
    for (const s of [...this.runs.values()]) if (s.run.status === 'running') this.cancel(s.run.runId);
  }

  /**
   * Adds what the directive runner refuses in each step (an unknown or ambiguous tool, an
   * unknown input source or placeholder) to the parser's errors, so a run is refused before
   * its first step; nothing is read or written to judge it.
   */
  private async checked(file: WorkflowFile): Promise<WorkflowFile> {
    if (file.error) return file;
    const errors: WorkflowFileError[] = [];
    for (const step of file.steps) {
      for (const err of this.deps.routing.directives.check(step.parsed)) {
        errors.push({ step: step.title, line: step.line + err.line, column: err.column, message: err.message });
      }
    }
    const first = errors[0];
    if (!first) return file;
    return { ...file, errors, error: stepDirectiveError(first.step, first.line, first.column, first.message) + moreErrors(errors.length - 1) };
  }

  private state(runId: string): RunState {
    const s = this.runs.get(runId);
    if (!s) throw new AppError('NOT_FOUND', runNotFound(runId), { runId });
    return s;
  }

  private async execute(state: RunState): Promise<void> {
    const { run, sources, controller } = state;
    try {
      for (let i = 0; i < sources.length; i++) {
        if (run.status !== 'running') return;
        if (state.cancelling) return this.endCancelled(state);
        const step = run.steps[i]!;
        step.status = 'running';
        const t0 = (state.stepStartedAt = Date.now());
        this.emit(state);
        const result = await this.runStep(state, sources[i]!);
        // A cancel while the step ran: its runner has settled now, so the run can say it ended.
        if (state.cancelling) return this.endCancelled(state);
        Object.assign(step, result, { durationMs: Date.now() - t0 });
        this.emit(state);
        this.notice(state, i);
        if (result.status === 'error') return this.finish(state, 'error');
      }
      this.finish(state, 'done');
    } catch (e) {
      if (run.status === 'running' && state.cancelling) this.endCancelled(state);
      else if (run.status === 'running') {
        const current = run.steps.find((s) => s.status === 'running' || s.status === 'waiting-for-model');
        if (current) Object.assign(current, { status: 'error', error: toErrorInfo(e, 'workflows.run') });
        this.finish(state, 'error');
      }
    } finally {
      if (!controller.signal.aborted) controller.abort();
    }
  }

  private async runStep(state: RunState, source: WorkflowStepSource): Promise<Pick<Step, 'status' | 'outcomes' | 'error'>> {
    const signal = state.controller.signal;
    try {
      // Awaited to the end even when cancelled: the run reports cancelled only once nothing more can be written.
      const r = await this.deps.routing.directives.run(source.parsed, { ownerId: state.run.ownerId, signal });
      const failed = r.outcomes.find((o) => o.error);
      if (failed) return { status: 'error', outcomes: r.outcomes, error: failed.error! };
      if (r.modelNone) return { status: 'done', outcomes: r.outcomes };
      return await this.modelStep(state, source, r);
    } catch (e) {
      if (signal.aborted) return { status: 'cancelled', outcomes: [] };
      const errors = refusalErrors(e);
      const error = errors
        ? { code: 'VALIDATION_FAILED' as const, message: `step "${source.title}": ${describeDirectiveErrors(errors)}`, details: { errors } }
        : toErrorInfo(e, 'workflows.run');
      return { status: 'error', outcomes: [], error };
    }
  }

  /** The model's part of a step, once its directives ran: a turn in the run's conversation. */
  private async modelStep(state: RunState, source: WorkflowStepSource, r: DirectiveRunResult): Promise<Pick<Step, 'status' | 'outcomes' | 'error'>> {
    const { run } = state;
    const cid = run.conversationId;
    const base = cid !== undefined ? (this.deps.conversations.get(cid).model ?? this.deps.defaultModel?.()) : undefined;
    // `@model NAME` picks another model of the same provider.
    const model = base && (r.model ? { providerId: base.providerId, model: r.model } : base);
    if (!this.deps.runTurn || cid === undefined || !model) {
      const noModel: DirectiveOutcome = { directive: '@model', error: { code: 'UNAVAILABLE', message: NO_MODEL_STEP } };
      return { status: 'skipped', outcomes: [...r.outcomes, noModel] };
    }
    // Only directives, nothing inlined: there is nothing to ask (as for a chat message).
    if (source.parsed.prompt.trim() === '' && !r.outcomes.some((o) => o.inlineText !== undefined)) return { status: 'done', outcomes: r.outcomes };

    const step = run.steps.find((s) => s.status === 'running')!;
    step.status = 'waiting-for-model';
    this.emit(state);
    const directiveTools = r.tools.map((t) => ({ toolId: t.tool.id, ...(t.output ? { output: t.output } : {}), ...(t.writeMode ? { writeMode: t.writeMode } : {}) }));
    const turn = await this.deps.runTurn({
      conversationId: cid,
      model,
      text: source.body,
      prompt: r.prompt,
      outcomes: r.outcomes,
      directiveTools,
      ...(state.extraction ? { extraction: state.extraction } : {}),
      signal: state.controller.signal,
    });
    if (turn.state === 'done') return { status: 'done', outcomes: r.outcomes };
    if (state.controller.signal.aborted) return { status: 'cancelled', outcomes: [] };
    return { status: 'error', outcomes: r.outcomes, error: turn.error };
  }

  private finish(state: RunState, status: WorkflowRun['status']): void {
    state.run.status = status;
    state.run.finishedAt = this.deps.now().toISOString();
    this.emit(state);
    this.finished.push(state.run.runId);
    while (this.finished.length > WORKFLOW_FINISHED_RUNS_KEPT) this.runs.delete(this.finished.shift()!);
  }

  private emit(state: RunState): void {
    this.deps.events.emit('workflow.progress', structuredClone(state.run));
  }

  /** Tells the conversation a step finished; a conversation deleted meanwhile just misses it. */
  private notice(state: RunState, index: number): void {
    const { run } = state;
    if (run.conversationId === undefined) return;
    const step = run.steps[index]!;
    try {
      this.deps.conversations.addMessages(run.conversationId, [
        { role: 'notice', text: stepNotice(run, index), ...(step.outcomes.length ? { outcomes: step.outcomes } : {}) },
      ]);
    } catch {
      // The conversation is gone (its runs are being cancelled) or the store is closed.
    }
  }
}
