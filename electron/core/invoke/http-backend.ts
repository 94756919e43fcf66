/** The `http` back-end of the dispatcher: the tool's spec executed under the host rules. */
import { FullHttpSpecSchema } from '../../../shared/model/http-spec';
import type { Backend } from './dispatcher';
import { executeHttpTool } from './http/http-tool';
import type { RateLimiter } from './http/rate-limit';
import type { AllowedHosts, Redact, SecretResolver, Transport } from './types';

export interface HttpBackendDeps {
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  secrets: SecretResolver;
  redact: Redact;
  rateLimiter: RateLimiter;
}

export function httpBackend(deps: HttpBackendDeps): Backend {
  return async ({ tool, args, signal, onEvent }) => {
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
    });
    return { value: o.value, attempts: o.attempts, http: o.http };
  };
}
