/**
 * The chat's operations: a message sent from the composer (its directives run:
 * docs/design/routing.md), a tool run from the `+` palette (its result, or its manifest when
 * routed, becomes a card), and the evaluation of a conversation's context sections.
 */
import { parseDirectives } from '../../../shared/directives/parser';
import type { ParsedText } from '../../../shared/directives/types';
import { AppError, isAppError } from '../../../shared/errors';
import type { DirectiveOutcome, Message, ToolCard } from '../../../shared/model/conversation';
import type { WriteMode } from '../../../shared/model/routing';
import { v7 as uuidv7 } from 'uuid';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { Registry } from '../registry/registry';
import { toErrorInfo } from '../../../shared/errors';
import type { RoutingServices } from '../routing';
import { destinationFromText } from '../routing/destination';
import type { DirectiveRunResult } from '../routing/types';
import type { ConversationStore, NewMessage } from '../timeline/conversation-store';
import { directiveRefusal, refusalErrors } from '../timeline/directive-errors';
import {
  DIRECTIVES_ONLY_NOTICE,
  NOTHING_TO_REGENERATE,
  NO_MODEL_NOTICE,
  REGENERATE_MODEL_NONE,
  REGENERATE_NO_MODEL,
  conversationGone,
  directivesFailed,
  editWhileRunning,
  messageNotFound,
  notAUserMessage,
  switchWhileRunning,
  turnNotStarted,
} from '../timeline/strings';
import { directivesTitle, toolRunTitle } from '../timeline/titles';
import { directiveTool, evaluateSections, type EvaluatedSection } from '../agent/context';
import type { AgentLoopService, TurnReservation } from '../agent/loop';
import type { ModelRef } from '../../../shared/model/provider';
import { cardOf, routeOntoCard } from '../timeline/tool-card';
import type { AttachmentInput } from '../../../shared/contract/chat';
import type { StoredAttachment } from '../timeline/attachments';
import { checkAttachments } from './attachments';

export interface ChatServiceDeps {
  conversations: ConversationStore;
  routing: RoutingServices;
  dispatcher: Pick<InvokeDispatcher, 'invoke'>;
  registry: Pick<Registry, 'store'>;
  now: () => Date;
  /** Oversized tool outputs: the gate a `+` run's result passes before a model may see it. */
  toolOutputs?: Pick<import('../tool-output/service').ToolOutputService, 'gateCard'>;
  /** The agent loop: a message for a model starts a turn (absent: the no-model notice). */
  agent?: Pick<AgentLoopService, 'reserve'> & Partial<Pick<AgentLoopService, 'isRunning'>>;
}

export interface RunToolRequest {
  conversationId: string;
  bundleId: string;
  slug: string;
  version: string;
  args: unknown;
  output?: string;
  writeMode?: WriteMode;
  invocationId?: string;
}

export type { EvaluatedSection };

/** The model of this message: the conversation's, or `@model NAME` of the same provider. */
function modelFor(conversationModel: ModelRef | undefined, named: string | undefined): ModelRef | undefined {
  if (!conversationModel) return undefined;
  return named ? { providerId: conversationModel.providerId, model: named } : conversationModel;
}

export class ChatService {
  constructor(private readonly deps: ChatServiceDeps) {}

  /**
   * Directive errors (the parser's, or the runner's: an unknown tool) refuse the message
   * before anything is stored or written. Otherwise the message is kept with what its
   * directives did (and the prompt they made, for the model). Without `@model none`, the
   * conversation's model (or `@model NAME` of its provider) starts a turn in the background;
   * with no model, a notice says how to connect one. A message that is only directives
   * (no text of its own, nothing inlined, nothing attached) asks no model: a notice says so.
   * Its attachments (./attachments.ts) are checked first: a bad one refuses it, nothing stored.
   */
  async send(conversationId: string, text: string, attachments?: readonly AttachmentInput[]): Promise<Message[]> {
    const files = checkAttachments(attachments);
    return this.sendReplacing(conversationId, text, undefined, files);
  }

  /**
   * Edit and resend: the user message `messageId` and everything after it are kept as a branch
   * (a version of the message), and `text` is sent as send() would, as the new version shown;
   * the model is given the version shown only; the files attached to the message stay attached
   * to the new version. Answers the conversation's messages shown then. Refused, with nothing changed, when `text` has directive errors, when a turn runs in the
   * conversation (CONFLICT), or when the message is not a user message of it.
   */
  async edit(conversationId: string, messageId: string, text: string): Promise<Message[]> {
    const target = this.deps.conversations.timeline(conversationId).find((r) => r.id === messageId);
    if (!target) throw new AppError('NOT_FOUND', messageNotFound(messageId), { id: messageId });
    if (target.role !== 'user') throw new AppError('VALIDATION_FAILED', notAUserMessage(messageId), { field: 'messageId' });
    // The new version keeps the files attached to the one it replaces.
    await this.sendReplacing(conversationId, text, messageId, target.attachmentFiles ?? []);
    return this.deps.conversations.messages(conversationId);
  }

  /**
   * Shows another version of an edited message (`messageId`: the first row of the version shown
   * now; `branch` from 0): what follows it and what the model is given change with it. CONFLICT
   * while a turn runs. Answers the conversation's messages shown then.
   */
  switchBranch(conversationId: string, messageId: string, branch: number): Message[] {
    const { conversations, agent } = this.deps;
    conversations.get(conversationId);
    if (agent?.isRunning?.(conversationId)) throw new AppError('CONFLICT', switchWhileRunning(), { conversationId });
    return conversations.switchBranch(conversationId, messageId, branch);
  }

  /**
   * Regenerate: the model is asked again for the answer to a user message. `messageId` names
   * the user message, or any row after it (the answer to retry): every row after that user
   * message is removed (cut, not forked) and a turn starts with the user message as stored
   * (its directives' prompt; its `@tools` lines resolved again, its `@input` lines not run
   * again). Refused with nothing removed when no model is set or a turn runs (CONFLICT).
   */
  async regenerate(conversationId: string, messageId: string): Promise<{ removed: number; turnId: string }> {
    const { conversations, agent, routing } = this.deps;
    const conversation = conversations.get(conversationId);
    const rows = conversations.timeline(conversationId);
    const at = rows.findIndex((m) => m.id === messageId);
    if (at === -1) throw new AppError('NOT_FOUND', messageNotFound(messageId), { id: messageId });
    const user = rows.slice(0, at + 1).findLast((m) => m.role === 'user');
    if (!user) throw new AppError('VALIDATION_FAILED', NOTHING_TO_REGENERATE, { field: 'messageId' });
    const parsed = parseDirectives(user.text);
    if (parsed.modelNone) throw new AppError('VALIDATION_FAILED', REGENERATE_MODEL_NONE, { field: 'messageId' });
    const model = modelFor(conversation.model, parsed.model);
    if (!model || !agent) throw new AppError('VALIDATION_FAILED', REGENERATE_NO_MODEL, { field: 'model' });
    const reservation = agent.reserve(conversationId);
    try {
      // Only the @tools lines: they resolve, nothing is read or written again.
      const onlyTools: ParsedText = { ...parsed, directives: parsed.directives.filter((d) => d.kind === 'tools') };
      const tools = onlyTools.directives.length > 0 ? (await routing.directives.run(onlyTools, { ownerId: conversationId })).tools : [];
      const removed = conversations.truncate(conversationId, user.id, { inclusive: false });
      try {
        const turnId = reservation.start({ model, prompt: user.prompt ?? user.text, directiveTools: tools.map(directiveTool) });
        return { removed, turnId };
      } catch (e) {
        // The old answer is gone: the timeline says why no new one started, as a send would.
        const error = toErrorInfo(e, 'chat.regenerate');
        await this.store(conversationId, [{ role: 'notice', text: turnNotStarted(error.message), error }]);
        throw e;
      }
    } finally {
      reservation.release();
    }
  }

  /** send(), and with `replacing`: that message and the rows after it become a branch kept aside once nothing can refuse the new one. */
  private async sendReplacing(conversationId: string, text: string, replacing?: string, files: StoredAttachment[] = []): Promise<Message[]> {
    const { conversations, agent } = this.deps;
    const conversation = conversations.get(conversationId);
    const parsed = parseDirectives(text);
    if (parsed.errors.length > 0) throw directiveRefusal('the message', parsed.errors);
    // A message for a model holds the conversation's turn before anything runs or is stored:
    // a second one sent meanwhile is refused (CONFLICT) with nothing of it written.
    const reservation = !parsed.modelNone && conversation.model && agent ? agent.reserve(conversationId) : undefined;
    try {
      // An edit never forks under a running turn, whether or not the new text asks a model.
      if (replacing !== undefined && !reservation && agent?.isRunning?.(conversationId)) throw new AppError('CONFLICT', editWhileRunning(), { conversationId });
      // The old rows move aside once the new message's directives ran (a refusal leaves them), as it is stored.
      return await this.sendWith(conversationId, text, parsed, reservation, replacing, files);
    } finally {
      reservation?.release();
    }
  }

  private async sendWith(
    conversationId: string,
    text: string,
    parsed: ParsedText,
    reservation: TurnReservation | undefined,
    forkAt?: string,
    files: StoredAttachment[] = [],
  ): Promise<Message[]> {
    const { conversations, routing } = this.deps;
    const conversation = conversations.get(conversationId);
    const createdAt = this.deps.now().toISOString();

    let outcomes: DirectiveOutcome[];
    let modelNone = parsed.modelNone;
    let prompt = parsed.prompt;
    let tools: DirectiveRunResult['tools'] = [];
    try {
      const r = await routing.directives.run(parsed, { ownerId: conversationId });
      outcomes = r.outcomes;
      modelNone = r.modelNone;
      prompt = r.prompt;
      tools = r.tools;
    } catch (e) {
      const errors = refusalErrors(e);
      if (errors) throw directiveRefusal('the message', errors);
      if (isAppError(e) && e.code === 'VALIDATION_FAILED') throw e;
      // The message is kept all the same, with why its directives did not run.
      const info = toErrorInfo(e, 'chat.send');
      outcomes = [{ directive: parsed.directives.map((d) => d.raw).join('\n'), error: { ...info, message: directivesFailed(info.message) } }];
    }

    let fork = forkAt;
    const store = (rows: NewMessage[], titleFrom?: string) => {
      const at = fork;
      fork = undefined;
      return this.store(conversationId, rows, titleFrom, at);
    };
    const user: NewMessage = { role: 'user', text, createdAt, prompt, ...(outcomes.length ? { outcomes } : {}), ...(files.length ? { attachmentFiles: files } : {}) };
    const titleFrom = parsed.prompt.trim() ? parsed.prompt : directivesTitle(parsed);
    const model = modelNone ? undefined : modelFor(conversation.model, parsed.model);
    if (modelNone) return store([user], titleFrom);
    if (!model || !reservation) return store([user, { role: 'notice', text: NO_MODEL_NOTICE }], titleFrom);
    // Only directives, with nothing inlined: there is nothing to ask the model.
    const forModel = parsed.prompt.trim() !== '' || outcomes.some((o) => o.inlineText !== undefined) || files.length > 0;
    if (!forModel) return store([user, { role: 'notice', text: DIRECTIVES_ONLY_NOTICE }], titleFrom);

    const stored = await store([user], titleFrom);
    try {
      reservation.start({ model, prompt, directiveTools: tools.map(directiveTool) });
    } catch (e) {
      // The message is kept; the timeline says why no turn started.
      const error = toErrorInfo(e, 'chat.send');
      stored.push(...(await this.store(conversationId, [{ role: 'notice', text: turnNotStarted(error.message), error }])));
    }
    return stored;
  }

  /**
   * Runs a tool with no model involved. A bad destination is refused before the tool runs;
   * a failing tool is a card with status error (or cancelled), not a refusal.
   */
  async runTool(req: RunToolRequest): Promise<Message> {
    const { conversations, routing, dispatcher, registry } = this.deps;
    conversations.get(req.conversationId);
    // Read (and refused) as a directive's output= would be, before the tool runs.
    const destination = destinationFromText(req.output);
    const tool = registry.store.getTool(req.bundleId, req.slug, req.version);

    const outcome = await dispatcher.invoke({
      bundleId: tool.bundleId,
      slug: tool.slug,
      version: tool.version,
      args: req.args,
      source: 'user',
      ownerId: req.conversationId,
      invocationId: req.invocationId ?? uuidv7(),
      ...(destination.kind !== 'inline' ? { keepInMemory: true } : {}),
    });
    let card: ToolCard = cardOf(tool, req.args, outcome, 'user');
    let text = outcome.ok ? '' : outcome.error.message;
    if (outcome.ok && destination.kind === 'inline' && this.deps.toolOutputs) {
      const model = conversations.get(req.conversationId).model;
      card = await this.deps.toolOutputs.gateCard(card, { conversationId: req.conversationId, tool, args: req.args, value: outcome.value, ...(model ? { model } : {}) });
      text = card.manifest?.text ?? '';
    }

    if (outcome.ok && destination.kind !== 'inline') {
      card = await routeOntoCard(card, outcome.value, tool, { router: routing.router, ownerId: req.conversationId, destination, writeMode: req.writeMode }, (e) => toErrorInfo(e, 'chat.runTool'));
      text = card.manifest?.text ?? card.error?.message ?? '';
    }
    const [message] = await this.store(req.conversationId, [{ role: 'tool', text, tool: card }], toolRunTitle(tool.displayName, req.args, tool.argSchema));
    return message!;
  }

  /** Each enabled section's directives, run now: what a model would be given, per section. */
  evaluateContext(conversationId: string): Promise<EvaluatedSection[]> {
    return evaluateSections(this.deps, conversationId);
  }

  private async store(conversationId: string, messages: NewMessage[], titleFrom?: string, forkAt?: string): Promise<Message[]> {
    try {
      return this.deps.conversations.addMessages(conversationId, messages, { titleFrom, ...(forkAt !== undefined ? { forkAt } : {}) });
    } catch (e) {
      if (isAppError(e) && e.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', conversationGone(conversationId), { id: conversationId });
      throw e;
    }
  }
}

