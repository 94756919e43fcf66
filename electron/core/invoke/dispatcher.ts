/**
 * The invocation flow of seed 004: find the tool, check it and its bundle are enabled,
 * validate the args against argSchema, dispatch to its back-end with a timeout and the
 * caller's cancellation, validate the result against outputSchema, answer
 * {ok, value} | {ok: false, error}, log a record, and count the call asynchronously.
 */
import { AppError, type ErrorInfo } from '../../../shared/errors';
import type { HttpExchange, InvocationRecord, InvocationSource } from '../../../shared/model/invocation';
import { ToolPutBodySchema, type ToolView } from '../../../shared/model/tool';
import { checkSchemaCompiles } from '../store/schema-check';
import { uuidv7 } from '../ids';
import { toErrorInfo } from '../router';
import type { ToolStore } from '../store/tool-store';
import type { InvocationLog } from './invocation-log';
import { Deadlines } from './deadlines';
import { runSequence } from './sequence';
import { SchemaCache, describeIssues } from './schema-cache';
import type { LocalFunction, LocalToolContext, Redact } from './types';

export interface InvokeRequest {
  bundleId: string;
  slug: string;
  version: string;
  args: unknown;
  source: InvocationSource;
  /** Chosen by the caller so it can cancel before the answer arrives. */
  invocationId?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  onEvent?: (event: { kind: string; data: unknown }) => void;
  /** How many sequences deep this call is (0 for a direct call). */
  depth?: number;
}

interface OutcomeBase {
  invocationId: string;
  durationMs: number;
  attempts: number;
  http?: HttpExchange;
}
export type InvokeOutcome = (OutcomeBase & { ok: true; value: unknown }) | (OutcomeBase & { ok: false; error: ErrorInfo });

/** What a back-end returns; `attempts` and `http` are for HTTP tools. */
export interface BackendResult {
  value: unknown;
  attempts?: number;
  http?: HttpExchange;
}

export interface BackendCall {
  tool: ToolView;
  args: Record<string, unknown>;
  signal: AbortSignal;
  onEvent?: InvokeRequest['onEvent'];
  depth?: number;
  /** For composite tools: invoke another tool through this same dispatcher. */
  invoke: (req: InvokeRequest) => Promise<InvokeOutcome>;
}

/** A back-end for one tool type. A failure carrying `attempts`/`http` in its details keeps them in the record. */
export type Backend = (call: BackendCall) => Promise<BackendResult>;

export interface DispatcherOptions {
  store: ToolStore;
  log: InvocationLog;
  redact: Redact;
  localFunctions: { get(id: string): LocalFunction | undefined };
  localContext: () => Omit<LocalToolContext, 'signal'>;
  /** Back-ends other than `local`, by tool type. */
  backends?: Partial<Record<ToolView['type'], Backend>>;
  now?: () => Date;
  defaultTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class InvokeDispatcher {
  private readonly schemas = new SchemaCache();
  private readonly deadlines = new Deadlines();
  private readonly running = new Map<string, AbortController>();
  private readonly now: () => Date;

  constructor(private readonly opts: DispatcherOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** Cancels a running invocation; false if it is not running (any more). */
  cancel(invocationId: string): boolean {
    const c = this.running.get(invocationId);
    if (!c) return false;
    c.abort(new AppError('CANCELLED', 'cancelled by the user'));
    return true;
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  invoke(req: InvokeRequest): Promise<InvokeOutcome> {
    return this.run(req, () => this.usableTool(req), true);
  }

  /**
   * Runs a tool that is not saved (the editor's draft): the body is validated as a save
   * would, the switches are not consulted, usage is not counted; the log keeps the call
   * under the tool id 'draft'.
   */
  invokeDraft(req: InvokeRequest & { body: unknown }): Promise<InvokeOutcome> {
    return this.run(req, () => draftTool(req, this.now()), false);
  }

  private async run(req: InvokeRequest, resolve: () => ToolView, saved: boolean): Promise<InvokeOutcome> {
    const invocationId = req.invocationId ?? uuidv7();
    if (this.running.has(invocationId)) throw new AppError('CONFLICT', `invocation ${invocationId} is already running`);
    const startedAt = this.now();
    const t0 = performance.now();
    const controller = new AbortController();
    this.running.set(invocationId, controller);
    const timeoutMs = req.timeoutMs ?? this.opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.deadlines.add(controller, timeoutMs, () => controller.abort(new AppError('TIMEOUT', `the tool did not finish within ${timeoutMs} ms`)));
    const onOuterAbort = () => controller.abort(new AppError('CANCELLED', 'cancelled'));
    req.signal?.addEventListener('abort', onOuterAbort, { once: true });

    let tool: ToolView | undefined;
    let result: BackendResult | undefined;
    let error: ErrorInfo | undefined;
    try {
      tool = resolve();
      const args = this.checkArgs(tool, req.args);
      result = await raceAbort(this.backend(tool)({ tool, args, signal: controller.signal, onEvent: req.onEvent, depth: req.depth, invoke: (r) => this.invoke(r) }), controller.signal);
      this.checkOutput(tool, result.value);
    } catch (e) {
      error = toErrorInfo(controller.signal.aborted && !(e instanceof AppError) ? controller.signal.reason : e, 'invoke');
    } finally {
      this.deadlines.clear(controller);
      req.signal?.removeEventListener('abort', onOuterAbort);
      this.running.delete(invocationId);
    }

    const durationMs = performance.now() - t0;
    const details = (error?.details ?? {}) as { attempts?: number; http?: HttpExchange };
    const attempts = result?.attempts ?? details.attempts ?? (tool ? 1 : 0);
    const http = result?.http ?? details.http;
    const outcome: InvokeOutcome = error
      ? { ok: false, error: this.redactError(error), invocationId, durationMs, attempts, http }
      : { ok: true, value: result!.value, invocationId, durationMs, attempts, http };
    if (tool) {
      if (saved) this.opts.store.recordUsage(tool.id);
      this.record(tool, req, outcome, startedAt);
    }
    return outcome;
  }

  /** Address -> tool id, so a repeated call skips re-validating the address (ids never change). */
  private readonly toolIds = new Map<string, string>();

  private findTool(req: InvokeRequest): ToolView {
    const key = `${req.bundleId}\u0000${req.slug}\u0000${req.version}`;
    const id = this.toolIds.get(key);
    const cached = id === undefined ? undefined : this.opts.store.toolById(id);
    if (cached && cached.bundleId === req.bundleId && cached.slug === req.slug && cached.version === req.version) return cached;
    const tool = this.opts.store.getTool(req.bundleId, req.slug, req.version);
    if (this.toolIds.size > 10_000) this.toolIds.clear();
    this.toolIds.set(key, tool.id);
    return tool;
  }

  private usableTool(req: InvokeRequest): ToolView {
    const tool = this.findTool(req);
    const bundle = this.opts.store.bundleById(tool.bundleId);
    if (!bundle || bundle.softDeletedAt) throw new AppError('FORBIDDEN', `bundle '${bundle?.slug ?? tool.bundleId}' is deleted; its tools cannot run`);
    if (!bundle.isEnabled) throw new AppError('FORBIDDEN', `bundle '${bundle.slug}' is switched off; switch it on in Tools to run '${tool.slug}'`);
    if (tool.unavailableReason) throw new AppError('UNAVAILABLE', `'${tool.slug}' cannot run: ${tool.unavailableReason}`);
    if (!tool.isEnabled) throw new AppError('FORBIDDEN', `tool '${tool.slug}' version '${tool.version}' is switched off; switch it on in Tools to run it`);
    return tool;
  }

  /** Saved tool versions never change, so their id keys the cache; a draft's schema text does. */
  private schemaKey(tool: ToolView, which: 'args' | 'output'): string {
    return tool.id === DRAFT_ID ? `draft:${JSON.stringify(which === 'args' ? tool.argSchema : tool.outputSchema)}` : `${tool.id}:${which}`;
  }

  private checkArgs(tool: ToolView, args: unknown): Record<string, unknown> {
    const issues = this.schemas.check(this.schemaKey(tool, 'args'), tool.argSchema, args);
    if (issues.length) {
      throw new AppError('VALIDATION_FAILED', `the arguments do not match ${tool.slug}'s argSchema: ${describeIssues(issues)}`, { phase: 'args', issues });
    }
    return args as Record<string, unknown>;
  }

  private checkOutput(tool: ToolView, value: unknown): void {
    const issues = this.schemas.check(this.schemaKey(tool, 'output'), tool.outputSchema, value);
    if (issues.length) {
      throw new AppError('VALIDATION_FAILED', `${tool.slug} returned a result that does not match its outputSchema: ${describeIssues(issues)}`, {
        phase: 'output',
        issues,
      });
    }
  }

  private backend(tool: ToolView): Backend {
    if (tool.type === 'local') return (call) => this.runLocal(call);
    if (tool.type === 'sequence') return runSequence;
    const b = this.opts.backends?.[tool.type];
    if (!b) throw new AppError('NOT_IMPLEMENTED', `tools of type '${tool.type}' cannot run here`);
    return b;
  }

  private async runLocal({ tool, args, signal, onEvent }: BackendCall): Promise<BackendResult> {
    const id = tool.local?.functionId ?? '';
    const fn = this.opts.localFunctions.get(id);
    if (!fn) throw new AppError('UNAVAILABLE', `the function '${id}' of '${tool.slug}' is not part of this version of Toolsmith`);
    const ctx: LocalToolContext = { ...this.opts.localContext(), signal, emit: onEvent };
    return { value: await fn(ctx, args, signal) };
  }

  private redactError(e: ErrorInfo): ErrorInfo {
    const r = this.opts.redact;
    const details = e.details === undefined ? undefined : JSON.parse(r(JSON.stringify(e.details))) as unknown;
    return details === undefined ? { code: e.code, message: r(e.message) } : { code: e.code, message: r(e.message), details };
  }

  private record(tool: ToolView, req: InvokeRequest, o: InvokeOutcome, startedAt: Date): void {
    const build = (): InvocationRecord => ({
      id: o.invocationId,
      toolId: tool.id,
      bundleId: tool.bundleId,
      slug: tool.slug,
      version: tool.version,
      source: req.source,
      args: req.args,
      ok: o.ok,
      ...(o.ok ? { value: o.value } : { error: o.error }),
      startedAt: startedAt.toISOString(),
      durationMs: o.durationMs,
      attempts: o.attempts,
      ...(o.http ? { http: o.http } : {}),
    });
    try {
      // Built and redacted when written, in a batch, off the call's path.
      this.opts.log.add(build, this.opts.redact);
    } catch (e) {
      console.warn('could not log an invocation:', (e as Error).message);
    }
  }

}

/** A back-end that ignores its signal still cannot hold the caller past a timeout or a cancel. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

const DRAFT_ID = 'draft';

/** A draft as a tool: checked exactly as a save would check it. */
function draftTool(req: InvokeRequest & { body: unknown }, now: Date): ToolView {
  const body = ToolPutBodySchema.safeParse(req.body);
  if (!body.success) {
    const issue = body.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(body)';
    throw new AppError('VALIDATION_FAILED', `the draft is not a valid tool: ${field}: ${issue?.message ?? 'invalid'}`, {
      phase: 'draft',
      issues: body.error.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
  checkSchemaCompiles(body.data.argSchema, 'argSchema');
  checkSchemaCompiles(body.data.outputSchema, 'outputSchema');
  const stamp = now.toISOString();
  return { ...body.data, id: DRAFT_ID, bundleId: req.bundleId, slug: req.slug, version: req.version, isEnabled: true, isBuiltIn: false, createdAt: stamp, modifiedAt: stamp } as ToolView;
}
