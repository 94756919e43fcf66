/** The `http` back-end of the dispatcher: the tool's spec executed under the host rules. */
import { FullHttpSpecSchema } from '../../../shared/model/http-spec';
import type { Backend } from './dispatcher';
import { executeHttpTool } from './http/http-tool';
import type { RateLimiter } from './http/rate-limit';
import type { ResponseSpill } from './stored-ref';
import type { AllowedHosts, Redact, SecretResolver, Transport } from './types';

export interface HttpBackendDeps {
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  secrets: SecretResolver;
  redact: Redact;
  rateLimiter: RateLimiter;
  /** For a call of a conversation: where a body too large for memory goes (the tool-output store). */
  spillFor?: (ownerId: string, meta: { toolName: string; toolId: string; argsJson: string }) => ResponseSpill | undefined;
}

export function httpBackend(deps: HttpBackendDeps): Backend {
  return async ({ tool, args, signal, onEvent, ownerId, depth, keepInMemory }) => {
    // Stored specs were checked when saved; parsing again fills defaults of older files.
    const spec = FullHttpSpecSchema.parse(tool.http);
    const o = await executeHttpTool(spec, args, {
      transport: deps.transport,
      allowedHosts: deps.allowedHosts(),
      secrets: deps.secrets,
      redact: deps.redact,
      rateLimiter: deps.rateLimiter,
      signal,
      toolId: tool.id,
      onEvent,
      // Only a result shown in a conversation goes to its store: not a sequence's step, not a routed one.
      ...(keepInMemory || (depth ?? 0) > 0 ? {} : spillOf(deps, ownerId, tool.slug, tool.id, args)),
    });
    return { value: o.value, attempts: o.attempts, http: o.http };
  };
}

function spillOf(deps: HttpBackendDeps, ownerId: string | undefined, toolName: string, toolId: string, args: unknown): { spill?: ResponseSpill } {
  if (!ownerId || !deps.spillFor) return {};
  const spill = deps.spillFor(ownerId, { toolName, toolId, argsJson: JSON.stringify(args ?? {}) ?? '{}' });
  return spill ? { spill } : {};
}
