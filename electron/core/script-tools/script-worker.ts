/**
 * A sandbox worker: QuickJS (quickjs-emscripten, release build, compiled to WebAssembly) in a
 * worker thread, one call at a time (./sandbox-pool.ts hands them out). The core compiles the
 * WebAssembly module once and sends it in the first message, so the worker reads no file.
 *
 * Each script gets a runtime of its own (the memory limit and the interrupt handler are the
 * runtime's) and a context with the prelude (./prelude.ts) and the script evaluated in it. A
 * call that ends cleanly (its run settled, nothing of it still waiting on the host) leaves its
 * sandbox ready for the next call of the same script and limits, so a warm call is a function
 * call; one that ended otherwise (time limit, cancel, out of memory, host work still pending)
 * is thrown away. If throwing it away fails, the worker says so and is not used again.
 *
 * Stopping a script:
 * - while it computes: QuickJS calls the interrupt handler every few thousand instructions; it
 *   answers true past the deadline or when the core has put this call's id in the shared flag.
 *   The error it raises cannot be caught by the script.
 * - while it waits (a promise that never settles, timers, host work): a timer at the deadline
 *   and the `cancel` message end the call here.
 * - the core terminates the worker when neither answers in time (sandbox-pool.ts).
 *
 * Between calls the worker sleeps on the shared flag, not in its event loop: the core counts its
 * messages in the flag (protocol.ts) and wakes it, and it takes them from its port itself. Waking
 * a thread that waits on a word is quicker than a message through an event loop, and a warm call
 * is mostly such wakes. While a call waits (host work, timers), the worker is in its event loop.
 */
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import type { ErrorCode } from '../../../shared/errors';
import { SCRIPT_LIMITS, type ScriptLogLineShape as ScriptLogLine } from '../../../shared/model/script-limits';
import { PRELUDE } from './prelude';
import { FLAG_CANCEL, FLAG_POSTED, type FromWorker, type OpKind, type RunEnd, type ToWorker } from './protocol';

/** QuickJS's own stack limit for a script (deep recursion ends in its 'stack overflow' error well before the WebAssembly stack does). */
const STACK_BYTES = 256 * 1024;
/** Prepared sandboxes kept, the most recently used, and the most their memory limits may add up to. */
const KEEP_SANDBOXES = 8;
const KEEP_MEMORY_BYTES = 512 * 1024 * 1024;
/**
 * WebAssembly memory grows and never shrinks: a worker whose engine grew past this (a script that
 * used a lot of memory) retires after its call, and its memory goes with it.
 */
const RETIRE_HEAP_BYTES = 256 * 1024 * 1024;
/** Host requests (ctx.fetch, ctx.call) in one call. */
const MAX_OPS = 100;
/** Host requests waiting at once in one call: each may be a nested script, itself making as many. */
const MAX_OPS_WAITING = 8;
/** An error's name and message as the caller gets them, at most (cut, saying so, past it). */
const MAX_ERROR_NAME = 200;
const MAX_ERROR_MESSAGE = 4096;
/** Timers pending at once in one call. */
const MAX_TIMERS = 1000;
/** How long the signal's abort listeners may run after a cancel. */
const ABORT_LISTENERS_MS = 100;

// The CommonJS builds of the engine's packages, required by name so that a bundler takes them:
// their ES module builds read import.meta.url when loaded, which a worker bundled as CommonJS does
// not have (the engine is given its WebAssembly module, so it looks for no file anyway).
// They are quickjs-emscripten's own packages (its core and its release build), taken directly so that
// the other builds it ships (debug, asyncify) stay out of the worker (wasm.test.ts checks the versions).
/* eslint-disable @typescript-eslint/no-require-imports */
const { newQuickJSWASMModuleFromVariant, newVariant } = require('quickjs-emscripten-core') as typeof import('quickjs-emscripten');
const RELEASE_SYNC = (require('@jitl/quickjs-wasmfile-release-sync') as { default: typeof import('quickjs-emscripten').RELEASE_SYNC }).default;
const loadEngine = () => require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as unknown;
/* eslint-enable @typescript-eslint/no-require-imports */

const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

let QuickJS: QuickJSWASMModule | undefined;
let flag: Int32Array | undefined;
let retired = false;

/** The prelude's functions the worker calls (./prelude.ts), kept as handles. */
const INTERNALS = ['load', 'go', 'settle', 'error', 'fire', 'abort', 'end'] as const;
type Internal = (typeof INTERNALS)[number];

interface Sandbox {
  key: string;
  memoryBytes: number;
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  fns: Record<Internal, QuickJSHandle>;
}

interface Active {
  callId: number;
  sandbox: Sandbox | undefined;
  deadline: number;
  startedAt: number;
  timeLimitMs: number;
  memoryBytes: number;
  maxOutputBytes: number;
  live: boolean;
  logs: ScriptLogLine[];
  logBytes: number;
  dropped: number;
  ops: Map<number, QuickJSDeferredPromise>;
  opCount: number;
  nextOp: number;
  timers: Map<number, NodeJS.Timeout>;
  /** A timer was set in this call: the prelude's timer table is cleared at its end. */
  usedTimers: boolean;
  deadlineTimer: NodeJS.Timeout | undefined;
  ended: boolean;
  /** The VM must not be entered again (interrupted, out of memory): it is thrown away. */
  broken: boolean;
  /** While the signal's listeners run after a cancel: until when they may. */
  abortingUntil: number | undefined;
}

const kept = new Map<string, Sandbox>();
let active: Active | undefined;

// ---- logs -------------------------------------------------------------------------------------

function addLog(a: Active, level: ScriptLogLine['level'], text: string): void {
  if (a.ended) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (a.logs.length >= SCRIPT_LIMITS.logLines || a.logBytes + bytes > SCRIPT_LIMITS.logBytes) {
    a.dropped++;
    return;
  }
  const line: ScriptLogLine = { level, text, atMs: Math.max(0, Date.now() - a.startedAt) };
  a.logs.push(line);
  a.logBytes += bytes;
  if (a.live) post({ t: 'log', callId: a.callId, line });
}

function finalLogs(a: Active): ScriptLogLine[] {
  if (a.dropped === 0) return a.logs;
  const text = `${a.dropped} more log line(s) were not kept: a call keeps at most ${SCRIPT_LIMITS.logLines} lines and ${SCRIPT_LIMITS.logBytes / 1024} KiB`;
  return [...a.logs, { level: 'warn', text, atMs: Math.max(0, Date.now() - a.startedAt) }];
}

// ---- sandboxes --------------------------------------------------------------------------------

function isInterrupted(): boolean {
  const a = active;
  if (!a) return false;
  const now = Date.now();
  if (a.abortingUntil !== undefined) return now > a.abortingUntil || now > a.deadline;
  return now > a.deadline || (flag !== undefined && Atomics.load(flag, FLAG_CANCEL) === a.callId);
}

function hostFunctions(vm: QuickJSContext): QuickJSHandle[] {
  const logFn = vm.newFunction('log', (level, text) => {
    const a = active;
    if (a) addLog(a, vm.getString(level) as ScriptLogLine['level'], vm.getString(text));
  });
  const opFn = vm.newFunction('op', (kindH, payloadH) => {
    const a = active;
    if (!a || a.ended) throw new Error('this call has ended');
    if (a.opCount >= MAX_OPS) throw new Error(`a script may make at most ${MAX_OPS} ctx.fetch and ctx.call requests in one call`);
    if (a.ops.size >= MAX_OPS_WAITING) {
      throw new Error(`a script may have at most ${MAX_OPS_WAITING} ctx.fetch and ctx.call requests waiting at once: await some before making more`);
    }
    const kind = vm.getString(kindH) as OpKind;
    const payload = vm.getString(payloadH);
    const opId = a.nextOp++;
    a.opCount++;
    const deferred = vm.newPromise();
    a.ops.set(opId, deferred);
    post({ t: 'op', callId: a.callId, opId, kind, payload });
    // The returned handle is let go by the caller; the deferred keeps its own.
    return deferred.handle.dup();
  });
  const timerFn = vm.newFunction('timer', (idH, msH) => {
    const a = active;
    if (!a || a.ended) throw new Error('this call has ended');
    const id = vm.getNumber(idH);
    if (!a.timers.has(id) && a.timers.size >= MAX_TIMERS) throw new Error(`a script may have at most ${MAX_TIMERS} timers pending`);
    clearTimeout(a.timers.get(id));
    a.usedTimers = true;
    // Never later than the deadline: the call ends there anyway.
    const ms = Math.min(Math.max(0, vm.getNumber(msH)), Math.max(0, a.deadline - Date.now() + 1));
    a.timers.set(
      id,
      setTimeout(() => {
        a.timers.delete(id);
        if (a.ended || active !== a || !a.sandbox) return;
        const s = a.sandbox;
        try {
          call(s, 'fire', [s.vm.newNumber(id)]).dispose();
          pump(a);
        } catch (e) {
          fail(a, stopped(a, e));
        }
        idle();
      }, ms),
    );
  });
  const clearFn = vm.newFunction('clear', (idH) => {
    const a = active;
    if (!a) return;
    const id = vm.getNumber(idH);
    clearTimeout(a.timers.get(id));
    a.timers.delete(id);
  });
  return [logFn, opFn, timerFn, clearFn];
}

/** Calls a function of the prelude; the arguments are let go. Returns the result handle or throws the VM's error as `VmError`. */
function call(s: Sandbox, name: Internal, args: QuickJSHandle[] = []): QuickJSHandle {
  try {
    const r = s.vm.callFunction(s.fns[name], s.vm.undefined, ...args);
    if (r.error) throw new VmError(s.vm, r.error);
    return r.value;
  } finally {
    for (const h of args) if (h.alive) h.dispose();
  }
}

/** What `go` and `settle` answer: the result's JSON text, or 0 (pending) or 2 (failed). */
function outcomeOf(s: Sandbox, h: QuickJSHandle): string | number {
  try {
    return s.vm.typeof(h) === 'string' ? s.vm.getString(h) : s.vm.getNumber(h);
  } finally {
    h.dispose();
  }
}

/** An exception thrown out of the VM, read while the VM can still be read. */
class VmError extends Error {
  readonly value: unknown;
  constructor(vm: QuickJSContext, handle: QuickJSHandle) {
    let value: unknown;
    try {
      value = vm.dump(handle);
    } catch {
      value = undefined;
    } finally {
      handle.dispose();
    }
    const o = (value ?? {}) as { name?: unknown; message?: unknown };
    super(typeof o.message === 'string' ? o.message : String(value));
    this.name = typeof o.name === 'string' ? o.name : 'Error';
    this.value = value;
  }
}

function createSandbox(key: string, memoryBytes: number): Sandbox {
  const runtime = QuickJS!.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  runtime.setInterruptHandler(isInterrupted);
  const vm = runtime.newContext();
  const host = hostFunctions(vm);
  const made = vm.evalCode(PRELUDE, 'toolsmith:prelude', { type: 'global', strict: true });
  if (made.error) {
    const e = new VmError(vm, made.error);
    for (const h of host) h.dispose();
    throw e;
  }
  const r = vm.callFunction(made.value, vm.undefined, ...host);
  made.value.dispose();
  for (const h of host) h.dispose();
  if (r.error) throw new VmError(vm, r.error);
  const fns = Object.fromEntries(INTERNALS.map((name) => [name, vm.getProp(r.value, name)])) as Record<Internal, QuickJSHandle>;
  r.value.dispose();
  return { key, memoryBytes, runtime, vm, fns };
}

/** Lets a sandbox go; false when QuickJS could not free it (the worker then retires). */
function dispose(s: Sandbox): boolean {
  try {
    for (const h of Object.values(s.fns)) h.dispose();
    s.vm.dispose();
    s.runtime.dispose();
    return true;
  } catch {
    return false;
  }
}

function keep(s: Sandbox): void {
  kept.set(s.key, s);
  const held = () => [...kept.values()].reduce((n, k) => n + k.memoryBytes, 0);
  while (kept.size > KEEP_SANDBOXES || (kept.size > 1 && held() > KEEP_MEMORY_BYTES)) {
    const [oldKey, old] = kept.entries().next().value as [string, Sandbox];
    kept.delete(oldKey);
    if (!dispose(old)) retired = true;
  }
}

// ---- one call ---------------------------------------------------------------------------------

type Failure = { code: ErrorCode; message: string; details?: Record<string, unknown> };

/** Why the engine stopped the script, when it did (not a script's own error). */
function engineStop(a: Active, e: VmError): Failure | undefined {
  if (flag !== undefined && Atomics.load(flag, FLAG_CANCEL) === a.callId) return { code: 'CANCELLED', message: 'the script was cancelled' };
  if (e.name === 'InternalError' && /interrupted/.test(e.message)) return timeoutFailure(a, 'computing');
  if (/out of memory|string too long/i.test(e.message)) {
    const mb = Math.round(a.memoryBytes / (1024 * 1024));
    return { code: 'PAYLOAD_TOO_LARGE', message: `the script used more than its memory limit of ${mb} MB and was stopped; use less memory or raise the tool's memory limit`, details: { limit: 'memory' } };
  }
  if (/stack overflow|call stack size exceeded/i.test(e.message)) {
    return { code: 'VALIDATION_FAILED', message: 'the script recursed too deeply (stack overflow) and was stopped', details: { limit: 'stack' } };
  }
  return undefined;
}

function timeoutFailure(a: Active, doing: 'computing' | 'waiting'): Failure {
  const limit = `its time limit of ${a.timeLimitMs} ms`;
  if (doing === 'computing') return { code: 'TIMEOUT', message: `the script was still computing at ${limit} and was stopped (an endless loop?)`, details: { limit: 'time' } };
  const waiting =
    a.ops.size > 0
      ? `still waiting for ${a.ops.size} ctx.fetch/ctx.call request(s)`
      : a.timers.size > 0
        ? `still waiting for ${a.timers.size} timer(s)`
        : 'waiting for a promise that never settled';
  return { code: 'TIMEOUT', message: `the script's run did not finish within ${limit}: it was ${waiting}`, details: { limit: 'time' } };
}

/** How the run ended when it rejected or threw (described by the prelude). The engine's limits are told apart from the script's own errors. */
function scriptFailure(a: Active, raw: string): Failure {
  let d: { name?: string; message?: string; stack?: string; code?: string; notJson?: boolean } = {};
  try {
    d = JSON.parse(raw) as typeof d;
  } catch {
    d = { message: raw };
  }
  if (d.notJson) return { code: 'VALIDATION_FAILED', message: cut(d.message ?? 'the result is not JSON', MAX_ERROR_MESSAGE), details: { toolError: true } };
  const where = d.stack ? firstFrame(d.stack) : '';
  if (d.name === 'InternalError' || d.name === 'RangeError') {
    // The script let the engine's own error go by: the sandbox is not kept.
    const limit = engineStop(a, { name: 'InternalError', message: d.message ?? '' } as VmError);
    if (limit && limit.code !== 'CANCELLED') {
      a.broken = true;
      return { ...limit, message: `${limit.message}${where ? ` (${where})` : ''}` };
    }
  }
  const message = `${cut(d.name ?? 'Error', MAX_ERROR_NAME)}: ${cut(d.message ?? '', MAX_ERROR_MESSAGE)}${where ? ` (${where})` : ''}`;
  const code = d.code && KNOWN_CODES.has(d.code) ? (d.code as ErrorCode) : 'UNAVAILABLE';
  return { code, message, details: { toolError: true, ...(d.stack ? { stack: shortStack(d.stack) } : {}) } };
}

/** A name or message cut to `max` characters, saying so (one the prelude cut already, with its note, is left as it is). */
function cut(text: string, max: number): string {
  return text.length <= max + 100 ? text : `${text.slice(0, max)}… (cut: ${text.length} characters in all)`;
}

/** A stack as shown: repeated frames (deep recursion) folded, at most 40 lines. */
function shortStack(stack: string): string {
  const out: string[] = [];
  let last = '';
  let repeats = 0;
  for (const line of stack.split('\n')) {
    if (line === last) {
      repeats++;
      continue;
    }
    if (repeats > 0) out.push(`    … the line above ${repeats} more time(s)`);
    repeats = 0;
    last = line;
    out.push(line);
  }
  if (repeats > 0) out.push(`    … the line above ${repeats} more time(s)`);
  return out.slice(0, 40).join('\n').slice(0, 4000);
}

const KNOWN_CODES = new Set(['VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'NOT_IMPLEMENTED', 'CANCELLED', 'TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE']);

/** "at run (weather.js:12)" from a QuickJS stack. */
function firstFrame(stack: string): string {
  const m = /at [^\n]*\(([^)\n]*:\d+(?::\d+)?)\)|at ([^\s(]+:\d+(?::\d+)?)/.exec(stack);
  return m ? `at ${m[1] ?? m[2]}` : '';
}

function end(a: Active, outcome: RunEnd): void {
  if (a.ended) return;
  a.ended = true;
  clearTimeout(a.deadlineTimer);
  for (const t of a.timers.values()) clearTimeout(t);
  a.timers.clear();
  const s = a.sandbox;
  if (s) {
    // Kept only when nothing of this call can run later (no host work, no job queued by it).
    let clean = !a.broken && a.ops.size === 0 && !s.runtime.hasPendingJob();
    if (clean && a.usedTimers) {
      try {
        call(s, 'end').dispose();
      } catch {
        clean = false;
      }
    }
    for (const d of a.ops.values()) {
      try {
        d.dispose();
      } catch {
        clean = false;
      }
    }
    a.ops.clear();
    if (clean && !retired) keep(s);
    else if (!dispose(s)) retired = true;
  }
  if (active === a) active = undefined;
  if (heapBytes() > RETIRE_HEAP_BYTES) retired = true;
  post({ t: 'done', callId: a.callId, ...outcome, ...(retired ? { retire: true } : {}) });
}

/** The engine's WebAssembly memory, as grown so far. */
function heapBytes(): number {
  try {
    return QuickJS?.getWasmMemory().buffer.byteLength ?? 0;
  } catch {
    return 0;
  }
}

function fail(a: Active, f: Failure): void {
  end(a, { ok: false, error: f, logs: finalLogs(a) });
}

/** Runs what is due in the VM, then ends the call if its run has settled. */
function pump(a: Active): void {
  if (a.ended || !a.sandbox) return;
  const s = a.sandbox;
  try {
    const r = s.runtime.executePendingJobs();
    if (r.error) throw new VmError(r.error.context, r.error);
    settled(a, outcomeOf(s, call(s, 'settle')));
  } catch (e) {
    fail(a, stopped(a, e));
  }
}

/** Ends the call when `outcome` says its run settled: its JSON text, or 2 for an error (0: still pending). */
function settled(a: Active, outcome: string | number): void {
  const s = a.sandbox!;
  if (outcome === 0) return;
  if (typeof outcome === 'string') {
    const bytes = Buffer.byteLength(outcome, 'utf8');
    if (bytes > a.maxOutputBytes) return fail(a, tooLarge(a, bytes));
    return end(a, { ok: true, json: outcome, logs: finalLogs(a) });
  }
  const h = call(s, 'error');
  const raw = s.vm.getString(h);
  h.dispose();
  const big = /"tooLarge":(\d+)/.exec(raw);
  if (big) return fail(a, tooLarge(a, Number(big[1])));
  return fail(a, scriptFailure(a, raw));
}

function tooLarge(a: Active, size: number): Failure {
  return {
    code: 'PAYLOAD_TOO_LARGE',
    message: `the script's result is ${size} bytes as JSON; this tool returns at most ${a.maxOutputBytes} bytes (its output limit): return less, or raise the limit`,
    details: { limit: 'output', bytes: size },
  };
}

/** An error out of the VM while running: the engine's stop, or (should the prelude itself fail) the error as it is. */
function stopped(a: Active, e: unknown): Failure {
  a.broken = true;
  if (e instanceof VmError) {
    return engineStop(a, e) ?? { code: 'UNAVAILABLE', message: `${cut(e.name, MAX_ERROR_NAME)}: ${cut(e.message, MAX_ERROR_MESSAGE)}`, details: { toolError: true } };
  }
  return { code: 'INTERNAL', message: `the sandbox failed: ${(e as Error).message}` };
}

function run(m: Extract<ToWorker, { t: 'run' }>): void {
  const a: Active = {
    callId: m.callId,
    sandbox: undefined,
    deadline: Date.now() + m.limits.timeLimitMs,
    startedAt: Date.now(),
    timeLimitMs: m.limits.timeLimitMs,
    memoryBytes: m.limits.memoryBytes,
    maxOutputBytes: m.limits.maxOutputBytes,
    live: m.live,
    logs: [],
    logBytes: 0,
    dropped: 0,
    ops: new Map(),
    opCount: 0,
    nextOp: 1,
    timers: new Map(),
    usedTimers: false,
    deadlineTimer: undefined,
    ended: false,
    broken: false,
    abortingUntil: undefined,
  };
  active = a;

  let s = kept.get(m.key);
  if (s) kept.delete(m.key);
  try {
    if (!s) {
      s = createSandbox(m.key, m.limits.memoryBytes);
      a.sandbox = s;
      const loaded = s.vm.evalCode(m.source, m.filename, { type: 'global' });
      if (loaded.error) {
        const e = new VmError(s.vm, loaded.error);
        const stop = engineStop(a, e);
        a.broken = true;
        return fail(a, stop ?? loadFailure(e));
      }
      loaded.value.dispose();
      const found = s.vm.evalCode('typeof run === "function" ? run : undefined', 'toolsmith:find-run', { type: 'global' });
      if (found.error) throw new VmError(s.vm, found.error);
      if (s.vm.typeof(found.value) !== 'function') {
        found.value.dispose();
        a.broken = true;
        return fail(a, { code: 'VALIDATION_FAILED', message: 'the script defines no function run(args, ctx): write e.g. `async function run(args, ctx) { return { ok: true }; }`' });
      }
      // The prelude keeps it: a call passes only its arguments.
      call(s, 'load', [found.value]).dispose();
    }
    a.sandbox = s;
    const outcome = outcomeOf(s, call(s, 'go', [s.vm.newString(m.argsJson), s.vm.newString(m.invocationId), s.vm.newNumber(m.limits.maxOutputBytes)]));
    // A run that returned a value is done without running jobs; one that returned a promise is pumped.
    if (outcome !== 0) return settled(a, outcome);
  } catch (e) {
    return fail(a, stopped(a, e));
  }
  // It waits (a promise): the deadline ends it if the interrupt handler does not (it runs only while the script computes).
  a.deadlineTimer = setTimeout(() => {
    if (!a.ended) {
      a.broken = true;
      fail(a, timeoutFailure(a, 'waiting'));
    }
    idle();
  }, Math.max(0, a.deadline - Date.now()) + 1);
  pump(a);
}

/** The script did not load: a syntax error, or its top level threw. */
function loadFailure(e: VmError): Failure {
  const v = (e.value ?? {}) as { stack?: unknown };
  const stack = typeof v.stack === 'string' ? v.stack : '';
  const where = firstFrame(stack);
  const hint = e.name === 'SyntaxError' && /export|import/.test(e.message) ? '; a script is not a module: write function run(args, ctx) { … } without export or import' : '';
  return {
    code: 'VALIDATION_FAILED',
    message: `the script does not load: ${cut(e.name, MAX_ERROR_NAME)}: ${cut(e.message, MAX_ERROR_MESSAGE)}${where ? ` (${where})` : ''}${hint}`,
    details: { toolError: true, phase: 'load', ...(stack ? { stack: stack.slice(0, 4000) } : {}) },
  };
}

function opResult(m: Extract<ToWorker, { t: 'op-result' }>): void {
  const a = active;
  if (!a || a.callId !== m.callId || a.ended || !a.sandbox) return;
  const d = a.ops.get(m.opId);
  if (!d) return;
  a.ops.delete(m.opId);
  const vm = a.sandbox.vm;
  const text = m.ok ? `{"ok":true,"value":${m.json}}` : JSON.stringify({ ok: false, error: m.error });
  try {
    const h = vm.newString(text);
    d.resolve(h);
    h.dispose();
    d.dispose();
  } catch (e) {
    return fail(a, stopped(a, e));
  }
  pump(a);
}

function cancel(m: Extract<ToWorker, { t: 'cancel' }>): void {
  const a = active;
  if (!a || a.callId !== m.callId || a.ended) return;
  // The signal's listeners run, briefly (a script may tidy up), then the call ends: the caller has its answer already.
  if (a.sandbox && !a.broken) {
    a.abortingUntil = Date.now() + ABORT_LISTENERS_MS;
    try {
      call(a.sandbox, 'abort', [a.sandbox.vm.newString('the call was cancelled')]).dispose();
      a.sandbox.runtime.executePendingJobs().dispose();
    } catch {
      // Whatever the listeners did, the call ends below.
    }
  }
  a.broken = true;
  fail(a, { code: 'CANCELLED', message: 'the script was cancelled' });
}

async function init(m: Extract<ToWorker, { t: 'init' }>): Promise<void> {
  try {
    const variant = { ...RELEASE_SYNC, importModuleLoader: () => Promise.resolve(loadEngine()) } as typeof RELEASE_SYNC;
    QuickJS = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: m.wasm }));
    flag = new Int32Array(m.flag);
    post({ t: 'ready' });
    // From a task of its own: not from inside this promise's continuation.
    setImmediate(idle);
  } catch (e) {
    post({ t: 'init-failed', message: (e as Error).message });
  }
}

function serve(m: ToWorker): void {
  if (m.t === 'init') void init(m);
  else if (m.t === 'run') run(m);
  else if (m.t === 'op-result') opResult(m);
  else if (m.t === 'cancel') cancel(m);
}

/**
 * While no call is running: waits on the flag for the core's next message and serves it here,
 * until a call is left waiting (then the event loop runs its timers and host answers, and the
 * message or timer that ends it comes back here). Called last by everything the event loop runs.
 * A worker that retires stays in its event loop (the core terminates it; either way works).
 */
function idle(): void {
  const f = flag;
  if (f === undefined) return;
  while (active === undefined && !retired) {
    const seen = Atomics.load(f, FLAG_POSTED);
    const got = receiveMessageOnPort(port);
    if (got) {
      serve(got.message as ToWorker);
      servedAt = performance.now();
      continue;
    }
    // Calls come in bursts (a model's several calls, a sequence, a test run): for a moment after
    // a call the worker keeps looking instead of sleeping, as a thread put to sleep takes tens of
    // microseconds to wake. Bounded, so an idle worker uses no processor.
    const until = servedAt + IDLE_SPIN_MS;
    while (Atomics.load(f, FLAG_POSTED) === seen && performance.now() < until);
    // Returns at once when the core posted since `seen` was read.
    Atomics.wait(f, FLAG_POSTED, seen);
  }
}

/** How long after a call an idle worker looks for the next one before it sleeps. */
const IDLE_SPIN_MS = 0.5;
/** When the last message was served (performance.now()). */
let servedAt = 0;

port.on('message', (m: ToWorker) => {
  serve(m);
  idle();
});
