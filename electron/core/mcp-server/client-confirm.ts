/**
 * A served tool that requires approval, when no Toolsmith window can answer: the client's own
 * user is asked instead (MCP elicitation, a form with one "run" box), where the client offers
 * form elicitation and Settings → MCP server allows it. At 2025-11-25 the question is a request
 * to the client in the middle of the call; at 2026-07-28 the call answers `input_required` and
 * the client calls again with the answer (the SDK's multi-round-trip); in a 2026 task (the tasks
 * extension) the task waits for its client (`input_required`), which answers with `tasks/update`.
 */
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from './approval-queue';
import type { ClientConfirmation, McpSession } from './call';
import type { AskClient } from './tasks';

/** The key of the answer in a 2026 retry's `inputResponses`. */
export const CONFIRM_KEY = 'toolsmith.approve';

/** A 2026 call that needs the client's answer first: the handler answers `input_required` with it. */
export class ClientInputNeeded extends Error {
  constructor(
    readonly question: ClientConfirmation,
    /** Names this question, for this tool and these arguments: the answer counts only with it. */
    readonly requestState: string,
  ) {
    super('the client is asked to confirm the call');
  }
}

/**
 * A 2026 answer comes back in the client's retry, which the client writes itself: it counts only
 * beside the state Toolsmith minted for that question (signed with a key of this process, for
 * this tool and these arguments, once, within the approval time). An answer the client made up,
 * or one replayed for other arguments, is not an answer: the question is asked.
 */
const STATE_KEY = randomBytes(32);
const usedStates = new Map<string, number>();

function argsHash(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\u0000').update(JSON.stringify(args ?? {})).digest('base64url');
}

function sign(body: string): string {
  return createHmac('sha256', STATE_KEY).update(body).digest('base64url');
}

export function mintConfirmState(tool: string, args: unknown, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ h: argsHash(tool, args), n: randomBytes(16).toString('base64url'), e: now + DEFAULT_APPROVAL_TIMEOUT_MS })).toString('base64url');
  return `${body}.${sign(body)}`;
}

/** The state is one Toolsmith minted for this tool and these arguments, not expired and not used before (it is used now). */
export function takeConfirmState(state: unknown, tool: string, args: unknown, now = Date.now()): boolean {
  if (typeof state !== 'string' || state.length > 1024) return false;
  const [body, mac] = state.split('.');
  if (!body || !mac) return false;
  const want = Buffer.from(sign(body));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return false;
  let claim: { h?: unknown; n?: unknown; e?: unknown };
  try {
    claim = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claim;
  } catch {
    return false;
  }
  if (claim.h !== argsHash(tool, args) || typeof claim.n !== 'string' || typeof claim.e !== 'number' || claim.e < now) return false;
  for (const [n, e] of usedStates) if (e < now) usedStates.delete(n);
  if (usedStates.has(claim.n)) return false;
  usedStates.set(claim.n, claim.e);
  return true;
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
      try {
        // As long as an approval waits in the window; a cancelled call takes its question with it.
        const r = await ctx.mcpReq.elicitInput({ mode: 'form', message: q.message, requestedSchema: q.requestedSchema }, { timeout: DEFAULT_APPROVAL_TIMEOUT_MS, signal: ctx.mcpReq.signal });
        return r.action === 'accept' && r.content?.run === true;
      } catch {
        // No answer in time, the call cancelled, or the client failed to ask: not confirmed.
        return false;
      }
    };
  }
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  if (!offersForms(caps)) return undefined;
  return async (q) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
    if (answer.kind === 'elicit' && takeConfirmState(ctx.mcpReq.requestState<string>(), q.tool, q.args)) return answer.action === 'accept' && answer.content?.run === true;
    throw new ClientInputNeeded(q, mintConfirmState(q.tool, q.args));
  };
}

/**
 * How a 2026 task asks its client's user: the question waits in the task (`inputRequests` of
 * tasks/get) for as long as an approval waits in the window; no answer in that time, or the task
 * ended, is not confirmed.
 */
export function taskConfirm(ask: AskClient): NonNullable<McpSession['confirm']> {
  return async (q) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), DEFAULT_APPROVAL_TIMEOUT_MS);
      timer.unref?.();
    });
    const asked = ask(CONFIRM_KEY, inputRequired.elicit({ mode: 'form', message: q.message, requestedSchema: q.requestedSchema }) as { method: string; params: Record<string, unknown> });
    const value = await Promise.race([asked, late]).finally(() => clearTimeout(timer));
    const answer = inputResponse({ [CONFIRM_KEY]: value } as Parameters<typeof inputResponse>[0], CONFIRM_KEY);
    return answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.run === true;
  };
}

/** A 2026 call's result: the question to the client when the call needs its answer first. */
export function answeredOrAsk<T>(call: Promise<T>): Promise<T | ReturnType<typeof inputRequired>> {
  return call.catch((e: unknown) => {
    if (!(e instanceof ClientInputNeeded)) throw e;
    return inputRequired({
      inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ mode: 'form', message: e.question.message, requestedSchema: e.question.requestedSchema }) },
      requestState: e.requestState,
    });
  });
}
