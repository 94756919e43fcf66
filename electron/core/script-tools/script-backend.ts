/**
 * The `script` back-end of the dispatcher: a script tool's call run in a sandbox
 * (./sandbox-pool.ts), with what its ctx asks for done here, on the core's side:
 * - ctx.fetch through the HTTP transport (./script-fetch.ts);
 * - ctx.call through the dispatcher's nested invoke, so the called tool's argSchema, limits,
 *   switches and log apply as for a sequence's step. A tool that asks before it runs may be
 *   called only by a script tool that asks itself (its approval covers what it calls, as a
 *   sequence's does); calls nest at most MAX_SEQUENCE_DEPTH deep;
 * - log lines, redacted, with the answer (and live as `invocation.event` kind 'log').
 * A saved script runs only when it was written in this app or the user allowed it (trust,
 * bundles/script-trust.ts); the editor's draft is the user's own and always runs.
 */
import { AppError, type ErrorCode } from '../../../shared/errors';
import { effectiveLimits, SCRIPT_LOG_EVENT, SCRIPT_NOT_TRUSTED_RULE, type ScriptSettings } from '../../../shared/model/script-tool';
import type { ToolView } from '../../../shared/model/tool';
import { approvalOf } from '../../../shared/model/tool-approval';
import type { ToolStore } from '../bundles/tool-store';
import { draftScriptSource, type Backend, type BackendCall } from '../invoke/dispatcher';
import { MAX_SEQUENCE_DEPTH } from '../invoke/sequence';
import type { OpKind, RunEnd } from './protocol';
import type { OpAnswer, SandboxPool } from './sandbox-pool';
import { parseFetchRequest, scriptFetch, type ScriptFetchDeps } from './script-fetch';
import { resolveToolRef } from './tool-ref';

export interface ScriptBackendDeps {
  store: ToolStore;
  pool: SandboxPool;
  /** Settings → Script tools: the limits of a tool that sets none. */
  settings: () => ScriptSettings;
  fetch: ScriptFetchDeps;
}

/** The largest result of a ctx.call a script is given (as JSON). */
export const SCRIPT_CALL_MAX_RESULT_BYTES = 16 * 1024 * 1024;

export function notTrusted(tool: Pick<ToolView, 'slug' | 'version'>, sha256: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `'${tool.slug}' version '${tool.version}' is a script tool that was not written in this app (it came with an imported bundle, the drop-in folder or a copied data folder); read its script and trust it before it runs: "Trust and run" in the app, or toolsmith invoke --trust on the command line`,
    { rule: SCRIPT_NOT_TRUSTED_RULE, sha256 },
  );
}

export function scriptBackend(deps: ScriptBackendDeps): Backend {
  return async (call) => {
    const { tool } = call;
    const spec = tool.script;
    if (!spec) throw new AppError('VALIDATION_FAILED', `'${tool.slug}' is a script tool without its script spec`);
    const draft = draftScriptSource(tool);
    if (draft === undefined && !deps.store.isScriptTrusted(spec.sha256)) throw notTrusted(tool, spec.sha256);
    // Checked against its SHA-256 as every call's is; a promise only when the file is looked at again.
    const source = draft ?? deps.store.scriptIfFresh(tool) ?? (await deps.store.scriptForCall(tool));
    const limits = effectiveLimits(spec, deps.settings());
    // ctx.fetch gets what is left of the time limit, counted as the worker counts it: from when the
    // call is handed to it (not from before a worker was free or started).
    let deadline = Date.now() + limits.timeLimitMs;
    const depth = call.depth ?? 0;
    const onEvent = call.onEvent;
    // What the script asked of the host (ctx.fetch, ctx.call and so their nested calls) ends with
    // its run: returned, threw, timed out or cancelled. Made at its first request (most make none).
    const work: HostWork = { controller: undefined, unsubscribe: undefined, ended: false };
    let end: RunEnd;
    try {
      end = await deps.pool.run(
        {
          // The tool's identity too: tools with the same source never share a sandbox (its state, its file name).
          key: `${tool.bundleId}/${tool.slug}@${tool.version}:${spec.sha256}:${limits.memoryLimitMb}`,
          source,
          filename: `${tool.slug}.js`,
          argsJson: JSON.stringify(call.args),
          invocationId: call.invocationId ?? '',
          limits: { timeLimitMs: limits.timeLimitMs, memoryBytes: limits.memoryLimitMb * 1024 * 1024, maxOutputBytes: limits.maxOutputBytes },
          live: onEvent !== undefined,
        },
        {
          started: () => (deadline = Date.now() + limits.timeLimitMs),
          op: (kind, payload) => hostOp(deps, call, work, kind, payload, deadline),
          ...(onEvent ? { onLog: (line) => onEvent({ kind: SCRIPT_LOG_EVENT, data: { ...line, text: deps.fetch.redact(line.text) } }) } : {}),
        },
        // The dispatcher's abort hook when it has one: it costs a quick call less than an AbortSignal's listener.
        call.onAbort ? { onAbort: (f: () => void) => call.onAbort!(f) } : call.signal,
        { nested: depth > 0 },
      );
    } finally {
      endHostWork(work);
    }
    if (!end.ok) throw new AppError(end.error.code, `'${tool.slug}': ${end.error.message}`, { ...end.error.details, logs: end.logs });
    return { value: JSON.parse(end.json) as unknown, logs: end.logs };
  };
}

/** The host work of one script's run: aborted when the run ends or the call is aborted. */
interface HostWork {
  controller: AbortController | undefined;
  unsubscribe: (() => void) | undefined;
  ended: boolean;
}

function hostWorkSignal(call: BackendCall, work: HostWork): AbortSignal {
  if (work.controller) return work.controller.signal;
  const controller = new AbortController();
  work.controller = controller;
  const abort = () => controller.abort(new AppError('CANCELLED', 'the script that made this request has ended'));
  if (call.onAbort) work.unsubscribe = call.onAbort(abort);
  else {
    const outer = call.signal;
    if (outer.aborted) abort();
    else {
      outer.addEventListener('abort', abort, { once: true });
      work.unsubscribe = () => outer.removeEventListener('abort', abort);
    }
  }
  return controller.signal;
}

function endHostWork(work: HostWork): void {
  work.ended = true;
  work.unsubscribe?.();
  work.controller?.abort(new AppError('CANCELLED', 'the script that made this request has ended'));
}

/** A ctx.fetch or ctx.call: its answer, or the error the script's promise rejects with. */
async function hostOp(deps: ScriptBackendDeps, call: BackendCall, work: HostWork, kind: OpKind, payload: string, deadline: number): Promise<OpAnswer> {
  try {
    if (work.ended) throw new AppError('CANCELLED', 'the script that made this request has ended');
    const signal = hostWorkSignal(call, work);
    const request = JSON.parse(payload) as unknown;
    // Each request gets what is left of the script's time, no more.
    const left = Math.max(1, deadline - Date.now());
    if (kind === 'fetch') {
      const response = await scriptFetch(parseFetchRequest(request), deps.fetch, signal, left);
      return { ok: true, json: JSON.stringify(response) };
    }
    return { ok: true, json: await callTool(deps, call, request, signal, left) };
  } catch (e) {
    const code: ErrorCode = e instanceof AppError ? e.code : 'INTERNAL';
    return { ok: false, error: { code, message: deps.fetch.redact(e instanceof Error ? e.message : String(e)) } };
  }
}

async function callTool(deps: ScriptBackendDeps, call: BackendCall, request: unknown, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const { tool: ref, args } = (request ?? {}) as { tool?: unknown; args?: unknown };
  const depth = call.depth ?? 0;
  if (depth + 1 >= MAX_SEQUENCE_DEPTH) throw new AppError('VALIDATION_FAILED', `ctx.call: calls nest more than ${MAX_SEQUENCE_DEPTH} deep (does a script call itself?)`);
  const target = resolveToolRef(deps.store, ref, call.tool.bundleId);
  const asks = approvalOf(target, deps.store.approvals());
  if (asks && !call.tool.requiresApproval) {
    throw new AppError(
      'FORBIDDEN',
      `ctx.call: '${target.slug}' asks before it runs, so a script may call it only if the script tool asks too (switch on "asks before it runs" for '${call.tool.slug}': the user then approves the script and what it calls at once)`,
      { rule: 'approval', tool: `${target.slug}@${target.version}` },
    );
  }
  const o = await call.invoke({
    bundleId: target.bundleId,
    slug: target.slug,
    version: target.version,
    args: args ?? {},
    source: 'step',
    signal,
    timeoutMs,
    depth: depth + 1,
    ...(call.ownerId ? { ownerId: call.ownerId } : {}),
    keepInMemory: true,
  });
  if (!o.ok) throw new AppError(o.error.code, `ctx.call('${target.slug}') failed: ${o.error.message}`);
  const json = JSON.stringify(o.value ?? null);
  if (Buffer.byteLength(json, 'utf8') > SCRIPT_CALL_MAX_RESULT_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `ctx.call('${target.slug}'): its result is over ${SCRIPT_CALL_MAX_RESULT_BYTES / (1024 * 1024)} MiB, more than a script is given`);
  }
  return json;
}
