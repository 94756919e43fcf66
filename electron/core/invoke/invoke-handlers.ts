/** Invoking tools and reading the invocation log. */
import { AppError } from '../../../shared/errors';
import type { EventBus } from '../events';
import { v7 as uuidv7 } from 'uuid';
import type { InvokeResult } from '../../../shared/contract';
import type { InvokeDispatcher, InvokeOutcome } from './dispatcher';
import type { InvocationLog } from './invocation-log';
import type { Redact } from './types';
import type { Handler } from '../router';
import { redactDeep } from '../secrets/redact';

type InvokeOps = 'tools.invoke' | 'tools.tryDraft' | 'tools.checkArgs' | 'invocations.list' | 'invocations.get' | 'invocations.cancel';

/** The contract's answer: the value with its timings, or an error carrying them in details. */
export function answer(o: InvokeOutcome): InvokeResult {
  const meta = { invocationId: o.invocationId, durationMs: o.durationMs, attempts: o.attempts, ...(o.http ? { http: o.http } : {}), ...(o.logs ? { logs: o.logs } : {}) };
  if (!o.ok) {
    const details = o.error.details && typeof o.error.details === 'object' ? o.error.details : {};
    throw new AppError(o.error.code, o.error.message, { ...details, ...meta });
  }
  return { ...meta, value: o.value };
}

export function invokeHandlers(dispatcher: InvokeDispatcher, log: InvocationLog, events: EventBus, redact: Redact): { [N in InvokeOps]: Handler<N> } {
  return {
    'tools.invoke': async ({ bundleId, slug, version, args, invocationId, timeoutMs, source }, ctx) => {
      const id = invocationId ?? uuidv7();
      const o = await dispatcher.invoke({
        bundleId,
        slug,
        version,
        args,
        invocationId: id,
        timeoutMs,
        signal: ctx.signal,
        source: source ?? (ctx.transport === 'http' ? 'api' : 'user'),
        onEvent: (e) => events.emit('invocation.event', { invocationId: id, kind: e.kind, data: redactDeep(e.data, redact) }),
      });
      return answer(o);
    },
    'tools.tryDraft': async ({ bundleId, slug, version, body, args, invocationId, timeoutMs }, ctx) => {
      const id = invocationId ?? uuidv7();
      const o = await dispatcher.invokeDraft({
        bundleId,
        slug,
        version,
        body,
        args,
        invocationId: id,
        timeoutMs,
        signal: ctx.signal,
        source: 'tester',
        onEvent: (e) => events.emit('invocation.event', { invocationId: id, kind: e.kind, data: redactDeep(e.data, redact) }),
      });
      return answer(o);
    },
    'tools.checkArgs': ({ argSchema, args }) => ({ issues: [...dispatcher.argIssues(argSchema, args)] }),
    'invocations.list': ({ toolId, limit }) => log.list({ toolId, limit }),
    'invocations.get': ({ invocationId }) => {
      const r = log.get(invocationId);
      if (!r) throw new AppError('NOT_FOUND', `no invocation ${invocationId} in the log`);
      return r;
    },
    'invocations.cancel': ({ invocationId }) => ({ cancelled: dispatcher.cancel(invocationId) }),
  };
}
