/**
 * A served tool that requires approval, when no Toolsmith window can answer: the client's own
 * user is asked instead (MCP elicitation, a form with one "run" box), where the client offers
 * form elicitation and Settings → MCP server allows it. At 2025-11-25 the question is a request
 * to the client in the middle of the call; at 2026-07-28 the call answers `input_required` and
 * the client calls again with the answer (the SDK's multi-round-trip).
 */
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import type { ClientConfirmation, McpSession } from './call';

/** The key of the answer in a 2026 retry's `inputResponses`. */
export const CONFIRM_KEY = 'toolsmith.approve';

/** A 2026 call that needs the client's answer first: the handler answers `input_required` with it. */
export class ClientInputNeeded extends Error {
  constructor(readonly question: ClientConfirmation) {
    super('the client is asked to confirm the call');
  }
}

/** The client offers form questions: `elicitation: {}` (form by default) or `{form: {}}`. */
export function offersForms(caps: ClientCapabilities | undefined): boolean {
  const e = caps?.elicitation as Record<string, unknown> | undefined;
  if (!e || typeof e !== 'object') return false;
  return e.form !== undefined || e.url === undefined;
}

/** How this call asks its client's user, or undefined when it cannot. */
export function clientConfirm(legacy: boolean, legacyCaps: ClientCapabilities | undefined, ctx: ServerContext): McpSession['confirm'] | undefined {
  if (legacy) {
    if (!offersForms(legacyCaps)) return undefined;
    return async (q) => {
      const r = await ctx.mcpReq.elicitInput({ mode: 'form', message: q.message, requestedSchema: q.requestedSchema });
      return r.action === 'accept' && r.content?.run === true;
    };
  }
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  if (!offersForms(caps)) return undefined;
  return async (q) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
    if (answer.kind === 'elicit') return answer.action === 'accept' && answer.content?.run === true;
    throw new ClientInputNeeded(q);
  };
}

/** A 2026 call's result: the question to the client when the call needs its answer first. */
export function answeredOrAsk<T>(call: Promise<T>): Promise<T | ReturnType<typeof inputRequired>> {
  return call.catch((e: unknown) => {
    if (!(e instanceof ClientInputNeeded)) throw e;
    return inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ mode: 'form', message: e.question.message, requestedSchema: e.question.requestedSchema }) } });
  });
}
