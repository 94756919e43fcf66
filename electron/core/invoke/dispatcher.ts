/**
 * The invocation flow (docs/design/registry.md): find the tool, check it and its bundle are
 * enabled (the bundle's switch on disk too, so switching it off in one process stops its tools in
 * every other at once, before their watchers reload: store/bundle-switch.ts), validate the args
 * against argSchema, dispatch to its back-end with a timeout and the caller's cancellation,
 * validate the result against outputSchema, answer {ok, value} | {ok: false, error}, log a
 * record, and count the call asynchronously.
 */
import { createHash } from 'node:crypto';
import { resolveHandleArgs, type HandleResolver } from './handle-args';
import { isStoredOutputRef } from './stored-ref';
import { AppError, type ErrorInfo } from '../../../shared/errors';
import type { HttpExchange, InvocationProgress, InvocationSource } from '../../../shared/model/invocation';
import { withoutBom, type ScriptLogLine } from '../../../shared/model/script-tool';
import { ToolPutBodySchema, type ToolView } from '../../../shared/model/tool';
import { checkSchemaCompiles } from '../bundles/schema-check';
import { redactDeep } from '../secrets/redact';
import { fastUuidv7 } from '../lib/ids';
import { toErrorInfo } from '../../../shared/errors';
import type { ToolStore } from '../bundles/tool-store';
import type { InvocationLog } from './invocation-log';
import { Call, isThenable, localContext, type CallEnds } from './call';
import { Deadlines } from './deadlines';
import { CallProgress, cleanReport, PROGRESS_INTERVAL_MS, PROGRESS_TIMEOUT_FACTOR, type ProgressListener, type ProgressReport } from './progress';
import { runSequence } from './sequence';
import { SchemaCache, describeIssues, type SchemaIssue } from './schema-cache';
import type { LocalFunction, LocalToolContext, Redact, WaitingLocalFunction } from './types';

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
  /** Whose buffers the call may use (a conversation or a workflow run): buffer_ops needs it. */
  ownerId?: string;
  /** The result is routed or passed on, not shown: a large HTTP body is held in memory, never written to the tool-output store. */
  keepInMemory?: boolean;
}

interface OutcomeBase {
  invocationId: string;
  durationMs: number;
  attempts: number;
  http?: HttpExchange;
  /** A script tool's log lines. */
  logs?: ScriptLogLine[];
}
export type InvokeOutcome = (OutcomeBase & { ok: true; value: unknown }) | (OutcomeBase & { ok: false; error: ErrorInfo });

/** What a back-end returns; `attempts` and `http` are for HTTP tools, `logs` for script tools. */
export interface BackendResult {
  value: unknown;
  attempts?: number;
  http?: HttpExchange;
  logs?: ScriptLogLine[];
}

export interface BackendCall {
  /** The call's invocation id (what the app names it by: its card, its log record). */
  readonly invocationId?: string;
  tool: ToolView;
  args: Record<string, unknown>;
  signal: AbortSignal;
  onEvent?: InvokeRequest['onEvent'];
  depth?: number;
  ownerId?: string;
  /** The result is routed or passed on, not shown: a large HTTP body is held in memory, never written to the tool-output store. */
  keepInMemory?: boolean;
  /** For composite tools: invoke another tool through this same dispatcher. */
  invoke: (req: InvokeRequest) => Promise<InvokeOutcome>;
  /**
   * Tells `listener` when the call is aborted (timeout, cancel, the caller's signal; at once when
   * it already is), without making an AbortSignal; returns the function that stops telling it.
   */
  onAbort?(listener: (reason: unknown) => void): () => void;
  /**
   * Reports how far the call is (an MCP server's notifications/progress): passed on to the
   * dispatcher's progress listeners (at most ten a second, the last one always), and each report
   * starts the call's time limit again, up to PROGRESS_TIMEOUT_FACTOR times the limit in all.
   */
  progress?(report: ProgressReport): void;
}

/**
 * A call as a back-end sees it. The signal is made when a back-end first reads it: an
 * AbortController costs Node more than a quick call to a running MCP server does on our side.
 */
class CallForBackend implements BackendCall {
  readonly onEvent: InvokeRequest['onEvent'];
  readonly depth: number | undefined;
  readonly ownerId: string | undefined;
  readonly keepInMemory: boolean | undefined;
  constructor(
    private readonly call: Call,
    readonly tool: ToolView,
    readonly args: Record<string, unknown>,
    readonly invoke: (req: InvokeRequest) => Promise<InvokeOutcome>,
    private readonly onProgress: (call: Call, report: ProgressReport) => void,
  ) {
    const req = call.req;
    this.onEvent = req.onEvent;
    this.depth = req.depth;
    this.ownerId = req.ownerId;
    this.keepInMemory = req.keepInMemory;
  }

  get signal(): AbortSignal {
    return this.call.signal;
  }

  get invocationId(): string {
    return this.call.id;
  }

  progress(report: ProgressReport): void {
    this.onProgress(this.call, report);
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return this.call.onAbort(listener);
  }
}

/** A back-end for one tool type. A failure carrying `attempts`/`http`/`logs` in its details keeps them in the record. */
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
  /** Pass by handle: resolves `{"$handle": "<uuid>"}` arguments to a stored output's text (./handle-args.ts). */
  resolveHandle?: HandleResolver;
  /** At most one progress report per call this often (default PROGRESS_INTERVAL_MS, ten a second). */
  progressIntervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class InvokeDispatcher {
  private readonly schemas = new SchemaCache();
  private readonly deadlines = new Deadlines();
  private readonly running = new Map<string, Call>();
  /** Made once, not per call: what calls use to end themselves and what sequences invoke through. */
  private readonly ends: CallEnds = { abort: (call, reason) => this.fail(call, reason) };
  private readonly invokeNested = (r: InvokeRequest) => this.invoke(r);
  private readonly resolveSaved = (r: InvokeRequest) => this.usableTool(r);
  private readonly progressListeners = new Set<ProgressListener>();
  private readonly reportProgress = (call: Call, report: ProgressReport) => this.progressOf(call, report);
  private readonly deliverProgress = (p: InvocationProgress) => {
    for (const listener of this.progressListeners) {
      try {
        listener(p);
      } catch (e) {
        console.warn('a progress listener failed:', (e as Error).message);
      }
    }
  };

  constructor(private readonly opts: DispatcherOptions) {}

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

  /**
   * Tells `listener` of every running call's progress, in order, at most one report per call per
   * PROGRESS_INTERVAL_MS; the last report of a call always comes, before the call's answer.
   * Returns the function that stops telling it.
   */
  onProgress(listener: ProgressListener): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  invoke(req: InvokeRequest): Promise<InvokeOutcome> {
    return this.run(req, this.resolveSaved, true);
  }

  /**
   * Runs a tool that is not saved (the editor's draft): the body is validated as a save
   * would, the switches are not consulted, usage is not counted; the log keeps the call
   * under the tool id 'draft'.
   */
  invokeDraft(req: InvokeRequest & { body: unknown }): Promise<InvokeOutcome> {
    return this.run(req, () => draftTool(req, this.opts.now?.() ?? new Date()), false);
  }

  /**
   * The whole call, with one promise of our own: the outcome's. The back-end's promise ends
   * the call when it settles; a timeout, a cancel or the caller's signal end it at once, so a
   * back-end that ignores its signal still cannot hold the caller. Whichever comes first wins.
   */
  private run(req: InvokeRequest, resolve: (req: InvokeRequest) => ToolView, saved: boolean): Promise<InvokeOutcome> {
    const startedMs = Date.now();
    const invocationId = req.invocationId ?? fastUuidv7(startedMs);
    if (this.running.has(invocationId)) return Promise.reject(new AppError('CONFLICT', `invocation ${invocationId} is already running`));
    const t0 = performance.now();
    const timeoutMs = req.timeoutMs ?? this.opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const call = new Call(this.ends, req, invocationId, saved, timeoutMs, t0, this.opts.now?.() ?? startedMs);
    const outcome = new Promise<InvokeOutcome>((res, rej) => {
      call.resolve = res;
      call.reject = rej;
    });
    this.running.set(invocationId, call);
    this.deadlines.add(call, timeoutMs, t0);
    const outer = req.signal;
    if (outer) outer.addEventListener('abort', call, { once: true });
    try {
      const tool = resolve(req);
      call.tool = tool;
      const args = this.checkArgs(tool, req.args, req.ownerId);
      if (outer?.aborted) call.handleEvent();
      else this.start(call, tool, args);
    } catch (e) {
      this.fail(call, e);
    }
    return outcome;
  }

  /** Hands the call to its back-end; the back-end's promise ends the call. */
  private start(call: Call, tool: ToolView, args: Record<string, unknown>): void {
    const req = call.req;
    let pending: unknown;
    if (tool.type === 'local') {
      const id = tool.local?.functionId ?? '';
      const fn = this.opts.localFunctions.get(id);
      if (!fn) throw new AppError('UNAVAILABLE', `the function '${id}' of '${tool.slug}' is not part of this version of Toolsmith`);
      call.local = true;
      const longer = (fn as WaitingLocalFunction).timeoutMs;
      if (longer !== undefined && req.timeoutMs === undefined && longer > call.timeoutMs) {
        this.deadlines.clear(call);
        call.timeoutMs = longer;
        this.deadlines.add(call, longer, call.t0);
      }
      // A function that declares fewer than three parameters cannot see the third argument:
      // it reads the signal (if ever) from its context, where it is made on first read.
      pending = fn(localContext(this.opts.localContext(), call), args, fn.length === 1 || fn.length === 2 ? (undefined as unknown as AbortSignal) : call.signal);
    } else {
      const backend = tool.type === 'sequence' ? runSequence : this.opts.backends?.[tool.type];
      if (!backend) throw new AppError('NOT_IMPLEMENTED', `tools of type '${tool.type}' cannot run here`);
      pending = backend(new CallForBackend(call, tool, args, this.invokeNested, this.reportProgress));
    }
    if (isThenable(pending)) pending.then((v) => this.succeed(call, v), (e: unknown) => this.fail(call, e));
    else this.succeed(call, pending);
  }

  /** The back-end answered: for a local function its value, for other back-ends a BackendResult. */
  private succeed(call: Call, answer: unknown): void {
    if (call.done) return;
    let value: unknown;
    try {
      if (call.local) value = answer;
      else {
        const r = answer as BackendResult;
        value = r.value;
        call.attempts = r.attempts;
        call.http = r.http;
        call.logs = r.logs;
      }
      this.checkOutput(call.tool!, value);
      // A secret a tool read or received (a file, a response) goes no further: not to the
      // window, a buffer, a file it is routed to, or a model.
      value = redactDeep(value, this.opts.redact);
    } catch (e) {
      this.fail(call, e);
      return;
    }
    const logs = call.logs ? { logs: call.logs.map((l) => redactLine(l, this.opts.redact)) } : {};
    this.end(call, { ok: true, value, invocationId: call.id, durationMs: performance.now() - call.t0, attempts: call.attempts ?? 1, http: call.http, ...logs });
  }

  private fail(call: Call, e: unknown): void {
    if (call.done) return;
    try {
      const error = toErrorInfo(call.aborted && !(e instanceof AppError) ? call.reason : e, 'invoke');
      const details = (error.details ?? {}) as { attempts?: number; http?: HttpExchange; logs?: ScriptLogLine[] };
      const attempts = call.attempts ?? details.attempts ?? (call.tool ? 1 : 0);
      const http = call.http ?? details.http;
      const lines = call.logs ?? (Array.isArray(details.logs) ? details.logs : undefined);
      const logs = lines ? { logs: lines.map((l) => redactLine(l, this.opts.redact)) } : {};
      this.end(call, { ok: false, error: this.redactError(error), invocationId: call.id, durationMs: performance.now() - call.t0, attempts, http, ...logs });
    } catch (err) {
      this.release(call);
      call.reject(err);
    }
  }

  /** Ends the call once: releases it, counts it, logs it, answers. */
  private end(call: Call, outcome: InvokeOutcome): void {
    this.release(call);
    // The log keeps the call until its batch is written: it should not keep the caller's promise too.
    const { resolve, reject } = call;
    call.forgetCaller();
    try {
      const tool = call.tool;
      if (tool) {
        if (call.saved) this.opts.store.recordUsage(tool.id);
        call.outcome = outcome;
        this.record(call);
      }
      resolve(outcome);
    } catch (e) {
      reject(e);
    }
  }

  private release(call: Call): void {
    call.done = true;
    this.deadlines.clear(call);
    call.req.signal?.removeEventListener('abort', call);
    this.running.delete(call.id);
    // The report held back by the interval goes out before the answer.
    call.progress?.end();
  }

  /**
   * A back-end's progress report: the call's time limit starts again (up to its cap), and the
   * report goes to the listeners, paced per call.
   */
  private progressOf(call: Call, report: ProgressReport): void {
    if (call.done) return;
    const p = cleanReport(call.id, report, this.opts.redact);
    if (!p) return;
    const now = performance.now();
    const progress = (call.progress ??= new CallProgress(this.deliverProgress, this.opts.progressIntervalMs ?? PROGRESS_INTERVAL_MS));
    if (!progress.capped && !call.aborted) {
      const capAt = call.t0 + call.timeoutMs * PROGRESS_TIMEOUT_FACTOR;
      if (now + call.timeoutMs <= capAt) this.deadlines.add(call, call.timeoutMs, now);
      else {
        progress.capped = true;
        this.deadlines.add(call, Math.max(0, Math.ceil(capAt - now)), now);
      }
    }
    if (this.progressListeners.size > 0) progress.report(p, now);
  }

  /**
   * Bundle id -> slug -> version -> tool id, so a repeated call skips re-validating the address
   * (ids never change). Nested, so a lookup hashes the caller's strings (often the same string
   * objects each call, whose hashes V8 keeps) instead of building a key.
   */
  private readonly toolIds = new Map<string, Map<string, Map<string, string>>>();
  private toolIdCount = 0;

  private findTool(req: InvokeRequest): ToolView {
    const id = this.toolIds.get(req.bundleId)?.get(req.slug)?.get(req.version);
    const cached = id === undefined ? undefined : this.opts.store.toolById(id);
    if (cached && cached.bundleId === req.bundleId && cached.slug === req.slug && cached.version === req.version) return cached;
    const tool = this.opts.store.getTool(req.bundleId, req.slug, req.version);
    if (this.toolIdCount > 10_000) {
      this.toolIds.clear();
      this.toolIdCount = 0;
    }
    let slugs = this.toolIds.get(req.bundleId);
    if (!slugs) this.toolIds.set(req.bundleId, (slugs = new Map()));
    let versions = slugs.get(req.slug);
    if (!versions) slugs.set(req.slug, (versions = new Map()));
    if (!versions.has(req.version)) this.toolIdCount++;
    versions.set(req.version, tool.id);
    return tool;
  }

  private usableTool(req: InvokeRequest): ToolView {
    const tool = this.findTool(req);
    const bundle = this.opts.store.bundleById(tool.bundleId);
    // The catalog may be a moment behind another process's write: the switch on disk has the last word on off.
    const onDisk = bundle && !bundle.softDeletedAt && bundle.isEnabled ? this.opts.store.switchOnDisk(bundle.id) : undefined;
    if (!bundle || bundle.softDeletedAt || onDisk?.deleted) throw new AppError('FORBIDDEN', `bundle '${bundle?.slug ?? tool.bundleId}' is deleted; its tools cannot run`);
    if (!bundle.isEnabled || onDisk?.isEnabled === false) throw new AppError('FORBIDDEN', `bundle '${bundle.slug}' is switched off; switch it on in Tools to run '${tool.slug}'`);
    if (tool.unavailableReason) throw new AppError('UNAVAILABLE', `'${tool.slug}' cannot run: ${tool.unavailableReason}`);
    if (!tool.isEnabled) throw new AppError('FORBIDDEN', `tool '${tool.slug}' version '${tool.version}' is switched off; switch it on in Tools to run it`);
    return tool;
  }

  /**
   * Checks arguments against a tool's argSchema as a call would, without running anything;
   * answers them with the schema's defaults filled in (the caller's object is left as it was)
   * and handle references (`{"$handle": …}`) replaced by the stored output they name.
   * VALIDATION_FAILED names each path that does not match.
   */
  checkArgs(tool: ToolView, given: unknown, ownerId?: string): Record<string, unknown> {
    const args = resolveHandleArgs(given, ownerId, this.opts.resolveHandle);
    // Saved tool versions never change, so their validators are kept with them; a draft's are keyed by its schema text.
    const r = tool.id !== DRAFT_ID ? this.schemas.checkToolArgs(tool, args) : this.schemas.checkArgs(`draft:${JSON.stringify(tool.argSchema)}`, tool.argSchema, args);
    if (r.issues.length) {
      throw new AppError('VALIDATION_FAILED', `the arguments do not match ${tool.slug}'s argSchema: ${describeIssues(r.issues)}`, { phase: 'args', issues: r.issues });
    }
    return r.value as Record<string, unknown>;
  }

  /**
   * The issues of arguments against an argSchema not tied to a tool (a form's), as a call
   * would find them; a schema that does not compile is one issue at (root).
   */
  argIssues(argSchema: unknown, args: unknown): readonly SchemaIssue[] {
    if (typeof argSchema !== 'object' || argSchema === null || Array.isArray(argSchema)) return [{ path: '(root)', message: 'the argSchema is not a JSON object' }];
    try {
      return this.schemas.checkArgs(`form:${JSON.stringify(argSchema)}`, argSchema, args).issues;
    } catch (e) {
      return [{ path: '(root)', message: `the argSchema cannot be used: ${(e as Error).message}` }];
    }
  }

  private checkOutput(tool: ToolView, value: unknown): void {
    // A body written to the tool-output store as it arrived: nothing is held to check.
    if (isStoredOutputRef(value)) return;
    const issues = tool.id !== DRAFT_ID ? this.schemas.checkOutput(tool, value) : this.schemas.check(`draft:${JSON.stringify(tool.outputSchema)}`, tool.outputSchema, value);
    if (issues.length) {
      throw new AppError('VALIDATION_FAILED', `${tool.slug} returned a result that does not match its outputSchema: ${describeIssues(issues)}`, {
        phase: 'output',
        issues,
      });
    }
  }

  private redactError(e: ErrorInfo): ErrorInfo {
    const r = this.opts.redact;
    const details = e.details === undefined ? undefined : JSON.parse(r(JSON.stringify(e.details))) as unknown;
    return details === undefined ? { code: e.code, message: r(e.message) } : { code: e.code, message: r(e.message), details };
  }

  private record(call: Call): void {
    try {
      // The call builds its record when the log writes it: in a batch, off the call's path.
      this.opts.log.add(call, this.opts.redact);
    } catch (e) {
      console.warn('could not log an invocation:', (e as Error).message);
    }
  }
}

const DRAFT_ID = 'draft';

/** A log line with secrets redacted (a script never reads one, but what it computed may hold one that a response echoed). */
function redactLine(l: ScriptLogLine, redact: Redact): ScriptLogLine {
  const text = redact(l.text);
  return text === l.text ? l : { ...l, text };
}

/** The source of a draft script tool (the editor's), kept beside its view: a saved one's is read from its file. */
const draftSources = new WeakMap<ToolView, string>();

/** The source a draft script tool runs, or undefined for a saved tool. */
export function draftScriptSource(tool: ToolView): string | undefined {
  return draftSources.get(tool);
}

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
  const { script, ...definition } = body.data;
  const view = { ...definition, id: DRAFT_ID, bundleId: req.bundleId, slug: req.slug, version: req.version, isEnabled: true, isBuiltIn: false, createdAt: stamp, modifiedAt: stamp } as ToolView;
  if (script) {
    // The view carries what a saved one does: the source's SHA-256, not the source.
    // Hashed and run as a saved one would be: without a leading BOM.
    const { source: sent, ...limits } = script;
    const source = withoutBom(sent);
    view.script = { sha256: createHash('sha256').update(source, 'utf8').digest('hex'), ...limits };
    draftSources.set(view, source);
  }
  return view;
}
