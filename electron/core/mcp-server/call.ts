/**
 * One `tools/call` of a served tool, with our rules: approval (asked in the app, or refused
 * with why), the dispatcher (argument validation, secrets bound to hosts, limits, the log and
 * usage metrics), then the oversized-output gate (a handle, and `tool_output` to read it).
 * Answers an MCP CallToolResult; a failure of the tool is a result with isError, so the
 * client's model can read it and correct itself.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { ApprovalStore } from '../agent/approvals';
import type { InvokeDispatcher, InvokeOutcome } from '../invoke/dispatcher';
import { isStoredOutputRef } from '../invoke/stored-ref';
import { fastUuidv7 } from '../lib/ids';
import { routedText } from '../routing/tool-text';
import { droppedMessage, tooLargeMessage } from '../tool-output/messages';
import type { ToolOutputService } from '../tool-output/service';
import type { ExtractionModel } from '../tool-output/types';
import type { McpApprovalQueue } from './approval-queue';
import type { ServedTool } from './served-tools';

export interface CallDeps {
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel'>;
  toolOutputs: ToolOutputService;
  approvals: Pick<ApprovalStore, 'allows' | 'add'>;
  queue: McpApprovalQueue;
  /** The model `tool_output` extracts with (Settings' default model); none: it truncates. */
  extractionModel: () => ExtractionModel | undefined;
  /** Settings' bytes cap for a result (Settings → Tool outputs). */
  maxResultBytes: () => number;
  /** Where each running call's progress goes, by invocation (a client that asked for progress). */
  progressTo?: Map<string, (report: ServedProgress) => void>;
  /**
   * The user allowed a call in Toolsmith's window: the tool's own script, if it was not written in
   * this app, is trusted from now on (ToolStore.trustAllowedScript). Never called for an answer
   * given in the client: only the app's own approval trusts.
   */
  trustAllowedScript?: (tool: ServedTool['tool']) => Promise<unknown>;
  /**
   * Lets the call `invocationId` run the script `sha256` once without trusting it (the client's
   * user confirmed it, told it is a script from outside): answers the function that takes the
   * leave back. Absent: such a call is refused, with how to trust the script.
   */
  allowScriptOnce?: (invocationId: string, sha256: string) => () => void;
}

export interface ServedProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** One client's connection: its stored outputs and its "allow for this session" answers are its own. */
export interface McpSession {
  /** The owner of its stored outputs and buffers. */
  readonly ownerId: string;
  /** The name and version the client gave itself in initialize, cleaned for display (./client-name.ts); '' when none. */
  client(): string;
  /** Tools the user allowed for this session. */
  readonly allowed: Set<string>;
  /** Tools tool_search found and added to this client's list (./discovery.ts), by served name. */
  readonly found: Set<string>;
  /** This call's client asked for progress (a progressToken): each report of the call goes to it. */
  progress?: (report: ServedProgress) => void;
  /**
   * Asks the client's user to confirm (MCP elicitation), for a client that offers it and when
   * Settings → MCP server lets Toolsmith ask there: used when no Toolsmith window can answer an
   * approval. True when the user accepted with "run" ticked.
   */
  confirm?: (question: ClientConfirmation) => Promise<boolean>;
}

/** What a served tool asks the client's user when no Toolsmith window is open to approve it. */
export interface ClientConfirmation {
  /** The tool and arguments confirmed: an answer counts for these only. */
  tool: string;
  args: unknown;
  /** The question says the tool is a script not written in this app, run once without trusting it. */
  outsideScript?: true;
  message: string;
  requestedSchema: { type: 'object'; properties: { run: { type: 'boolean'; title: string; description: string; default: boolean } }; required: ['run'] };
}

/** How much of a call's arguments the client's question shows. */
export const CONFIRM_ARGS_SHOWN = 2000;

export const deniedByClient = (tool: string) => `the user did not confirm '${tool}' when asked by the MCP client; the call was not run`;

/** How to trust a script not written in this app: where it can be read first. */
const howToTrust = (tool: string) => `read its source in Toolsmith and trust it there ("Trust and run" in the tester or the + palette, or allow a call of it in Toolsmith's window), or read its .js and run toolsmith invoke ${tool} --trust`;

/**
 * The question a client's user answers for a tool that requires approval. For a script not
 * written in this app (`outsideScript`), the question says so, and that the answer runs it once
 * without trusting it.
 */
export function clientConfirmation(toolName: string, args: unknown, outsideScript = false): ClientConfirmation {
  const whole = JSON.stringify(args ?? {});
  // Long arguments are shown in part, and the question says so: what is not shown may matter.
  const shown = whole.length > CONFIRM_ARGS_SHOWN ? `${whole.slice(0, CONFIRM_ARGS_SHOWN)}… (${whole.length} characters in all, only the first ${CONFIRM_ARGS_SHOWN} shown: open Toolsmith to see them whole)` : whole;
  if (outsideScript) {
    return {
      tool: toolName,
      args: args ?? {},
      outsideScript: true,
      message:
        `Toolsmith: '${toolName}' is a script that was not written in Toolsmith (it came with an imported bundle, the drop-in folder or a copied data folder) and is not trusted; its source is not shown here, and no Toolsmith window is open to show it. ` +
        `Run this script from outside once with ${shown}? It stays untrusted: to trust it, ${howToTrust(toolName)}.`,
      requestedSchema: {
        type: 'object',
        properties: { run: { type: 'boolean', title: `Run the script ${toolName} once`, description: 'Tick to run this script from outside Toolsmith once with these arguments, without trusting it.', default: false } },
        required: ['run'],
      },
    };
  }
  return {
    tool: toolName,
    args: args ?? {},
    message: `Toolsmith: '${toolName}' requires approval before it runs, and no Toolsmith window is open to ask. Run it with ${shown}?`,
    requestedSchema: {
      type: 'object',
      properties: { run: { type: 'boolean', title: `Run ${toolName}`, description: 'Tick to run the tool once with these arguments.', default: false } },
      required: ['run'],
    },
  };
}

export const needsApprovalNoWindow = (tool: string) =>
  `'${tool}' requires approval before it runs, and no Toolsmith window is open to ask: open Toolsmith and call it again (it will ask there), or allow it always in Toolsmith (answer "Always allow" once in the app; Settings → Approvals lists it)`;
/** A script not written in this app, not trusted, that the client cannot be asked to run once. */
export const scriptNeedsTrust = (tool: string) =>
  `'${tool}' is a script that was not written in Toolsmith and is not trusted yet, and no Toolsmith window is open to show it: it runs only once it is trusted: ${howToTrust(tool)}`;
export const deniedInApp = (tool: string) => `the user denied '${tool}' in Toolsmith; the call was not run`;

export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

function errorResult(e: ErrorInfo): CallToolResult {
  return textResult(`${e.code}: ${e.message}`, true);
}

/**
 * A served tool's call. A tool that asks first waits for its answer; every other call goes
 * straight to the dispatcher, in as few promise steps as the answer needs (a call that ends
 * quickly is most of what MCP clients make).
 */
export function callServedTool(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
  const { tool } = served;
  try {
    if (served.approval && !session.allowed.has(tool.id) && !deps.approvals.allows(tool.id, session.ownerId)) return askThenRun(deps, session, served, args, signal);
  } catch (e) {
    return Promise.resolve(errorResult(toErrorInfo(e, 'mcp')));
  }
  return run(deps, session, served, args, signal);
}

/**
 * Asks where it can. Toolsmith's window first: allowing there trusts the tool's own script from
 * outside (the window shows its source). With no window, the client's user, where the client can
 * ask: an answer there never trusts a script. A script from outside runs once on it, and only when
 * the question said what it is; without a question that can say so, it is refused with how to
 * trust it.
 */
async function askThenRun(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
  const { tool } = served;
  const toolName = `${served.bundleSlug}/${tool.slug}`;
  // The tool's own script, not written here and not trusted (it is the first reason a tool asks).
  const outside = served.approval?.reason.kind === 'script' && tool.script ? tool.script.sha256 : undefined;
  const noWindow = outside ? scriptNeedsTrust(toolName) : needsApprovalNoWindow(toolName);
  const answer = deps.queue.windowOpen()
    ? await deps.queue.ask({ toolId: tool.id, toolName, displayName: tool.displayName, args: args ?? {}, client: session.client(), ...(served.approval ? { approval: served.approval } : {}) }, signal)
    : { refused: noWindow };
  // No window can answer: the client's own user is asked, where the client can ask (elicitation).
  if ('refused' in answer && answer.refused === noWindow && session.confirm && (!outside || deps.allowScriptOnce)) {
    if (!(await session.confirm(clientConfirmation(toolName, args, outside !== undefined)))) return textResult(deniedByClient(toolName), true);
    return run(deps, session, served, args, signal, outside);
  }
  if ('refused' in answer) return textResult(answer.refused, true);
  if (answer.decision === 'deny') return textResult(deniedInApp(toolName), true);
  await deps.trustAllowedScript?.(tool);
  if (answer.decision === 'allow-session') session.allowed.add(tool.id);
  if (answer.decision === 'allow-always') await deps.approvals.add({ toolId: tool.id, toolName, scope: 'always' });
  return run(deps, session, served, args, signal);
}

/** Runs the call; `scriptOnce`: the SHA-256 of the tool's own script, allowed to run for this call only. */
function run(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, signal?: AbortSignal, scriptOnce?: string): Promise<CallToolResult> {
  if (signal?.aborted) return Promise.resolve(errorResult({ code: 'CANCELLED', message: 'the client cancelled the call' }));
  const invocationId = fastUuidv7();
  if (scriptOnce !== undefined) {
    const release = deps.allowScriptOnce!(invocationId, scriptOnce);
    return runOnce(deps, session, served, args, invocationId, signal).finally(release);
  }
  return runOnce(deps, session, served, args, invocationId, signal);
}

function runOnce(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, invocationId: string, signal?: AbortSignal): Promise<CallToolResult> {
  const { tool } = served;
  const watch = signal ? cancelWatch.add(signal, deps.dispatcher, invocationId) : undefined;
  const progressTo = session.progress ? deps.progressTo : undefined;
  progressTo?.set(invocationId, session.progress!);
  let outcome: Promise<InvokeOutcome>;
  try {
    outcome = deps.dispatcher.invoke({ bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args: args ?? {}, source: 'api', ownerId: session.ownerId, invocationId });
  } catch (e) {
    if (watch) cancelWatch.remove(watch);
    progressTo?.delete(invocationId);
    return Promise.resolve(errorResult(toErrorInfo(e, 'mcp')));
  }
  return outcome.then(
    (o) => {
      if (watch) cancelWatch.remove(watch);
      progressTo?.delete(invocationId);
      if (!o.ok) return errorResult(o.error);
      const r = gateResult(deps, session, served, args, o.value, signal);
      return served.outputSchema ? (r instanceof Promise ? r.then(conforming) : conforming(r)) : r;
    },
    (e: unknown) => {
      if (watch) cancelWatch.remove(watch);
      progressTo?.delete(invocationId);
      return errorResult(toErrorInfo(e, 'mcp'));
    },
  );
}

/**
 * A tool that declares an output schema answers structured content that matches it (the
 * dispatcher checked the value); a result that cannot carry it (stored behind a handle,
 * dropped, sent to a buffer) is marked isError, so a client that checks results against the
 * schema reads its text (what to do next) instead of refusing it.
 */
function conforming(r: CallToolResult): CallToolResult {
  if (r.isError || r.structuredContent !== undefined) return r;
  // An image or a sound is content of its own kind, not a result left without its value.
  if (r.content.some((c) => c.type === 'image' || c.type === 'audio')) return r;
  return { ...r, isError: true };
}

/** A result that fits goes back whole (at once); an oversized one as the tool's choice says (a handle by default). */
function gateResult(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, value: unknown, signal?: AbortSignal): CallToolResult | Promise<CallToolResult> {
  // An HTTP body too large for memory was written to the store as it arrived: already a handle.
  if (isStoredOutputRef(value)) {
    const ref = value.$storedOutput;
    return textResult(tooLargeMessage(ref, ref.handle));
  }
  const content = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  // A result within both the bytes cap and the window's free tokens passes without being
  // counted: a token is never less than a byte.
  const w = deps.toolOutputs.windowFor(undefined);
  const limit = Math.min(deps.maxResultBytes(), w.contextTokens - w.maxOutputTokens);
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a text that short fits without being counted.
  if (content.length * 3 <= limit || Buffer.byteLength(content) <= limit) return whole(value, content);
  return gateOversized(deps, session, served, args, value, content, signal);
}

async function gateOversized(deps: CallDeps, session: McpSession, served: ServedTool, args: unknown, value: unknown, content: string, signal?: AbortSignal): Promise<CallToolResult> {
  const { tool } = served;
  const text = routedText(value, tool);
  let g;
  try {
    g = await deps.toolOutputs.gate({ conversationId: session.ownerId, toolId: tool.id, toolName: tool.slug, args, text }, signal);
  } catch (e) {
    return errorResult(toErrorInfo(e, 'mcp'));
  }
  if (g.kind === 'pass') return whole(value, content);
  if (g.kind === 'drop') return textResult(droppedMessage(g.info));
  if (g.kind === 'buffer') {
    const manifest = await deps.toolOutputs.routeToBuffer(session.ownerId, tool.slug, text, signal);
    return textResult(manifest?.text ?? droppedMessage(g.info));
  }
  if (g.info.choice === 'inline') return whole(value, text);
  return textResult(tooLargeMessage(g.info, g.info.handle!));
}

/**
 * The client's cancel stops the call. The first listener on a fresh AbortSignal costs Node
 * tens of microseconds (more than a whole local call), so a call that ends within this turn of
 * the event loop never adds one: calls are watched from the next turn on, all those still
 * running at once, and a cancel that came before is acted on then.
 */
class CancelWatch {
  private waiting = new Set<Watch>();
  private scheduled = false;
  private readonly turn = () => {
    this.scheduled = false;
    const due = this.waiting;
    this.waiting = new Set();
    for (const w of due) w.listen();
  };

  add(signal: AbortSignal, dispatcher: CallDeps['dispatcher'], invocationId: string): Watch {
    const w = new Watch(signal, dispatcher, invocationId);
    this.waiting.add(w);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.turn);
    }
    return w;
  }

  remove(w: Watch): void {
    if (w.listening) w.signal.removeEventListener('abort', w);
    else this.waiting.delete(w);
  }
}

/** One call's watch: the listener itself (`handleEvent`), so it is the only object a watch needs. */
class Watch {
  listening = false;
  constructor(
    readonly signal: AbortSignal,
    private readonly dispatcher: CallDeps['dispatcher'],
    private readonly invocationId: string,
  ) {}

  listen(): void {
    if (this.signal.aborted) return this.handleEvent();
    this.listening = true;
    this.signal.addEventListener('abort', this, { once: true });
  }

  handleEvent(): void {
    this.dispatcher.cancel(this.invocationId);
  }
}

const cancelWatch = new CancelWatch();

/**
 * An HTTP tool's binary answer (`{ contentType, sizeBytes, base64 }`, responseMode binary) that
 * MCP has a content type for: an image or a sound goes to the client as one, not as JSON text.
 */
export function mediaContent(value: unknown): { type: 'image' | 'audio'; data: string; mimeType: string; sizeBytes: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { contentType?: unknown; sizeBytes?: unknown; base64?: unknown };
  if (typeof v.contentType !== 'string' || typeof v.base64 !== 'string' || typeof v.sizeBytes !== 'number' || Object.keys(v).length !== 3) return undefined;
  const mimeType = v.contentType.split(';')[0]!.trim().toLowerCase();
  const kind = /^image\/[\w.+-]+$/.test(mimeType) ? 'image' : /^audio\/[\w.+-]+$/.test(mimeType) ? 'audio' : undefined;
  return kind ? { type: kind, data: v.base64, mimeType, sizeBytes: v.sizeBytes } : undefined;
}

/** A result that fits: its text, and the value itself as structured content when it is an object; an image or a sound as such. */
function whole(value: unknown, content: string): CallToolResult {
  const media = mediaContent(value);
  if (media) {
    return { content: [{ type: media.type, data: media.data, mimeType: media.mimeType }, { type: 'text', text: `${media.type === 'image' ? 'An image' : 'A sound'} (${media.mimeType}, ${media.sizeBytes} bytes).` }] };
  }
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
  return structured ? { content: [{ type: 'text', text: content }], structuredContent: value as Record<string, unknown> } : textResult(content);
}

/** `tool_output` over a handle this session holds. */
export async function callToolOutput(deps: CallDeps, session: McpSession, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
  try {
    const answer = await deps.toolOutputs.run(session.ownerId, args, deps.extractionModel(), signal ?? new AbortController().signal);
    return textResult(answer.text, answer.isError);
  } catch (e) {
    return errorResult(toErrorInfo(e, 'mcp'));
  }
}
