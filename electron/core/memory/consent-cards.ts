/**
 * The app's ConsentAsker: a consent question is a row on the call's card in the chat (the
 * card's status `awaiting-approval`, its `consent` the question: operation, block, and for
 * edits the content before and after with a unified diff). The call waits until the user
 * answers with `memory.consent.respond`; the answer is another row of the card (status
 * running again, `consent.answer`), so both are on the timeline and survive a reload of the
 * window. A timeout answers deny (the row says `timeout`); closing the app answers every open
 * question deny (`closed`); a call stopped meanwhile is cancelled by the agent loop as any
 * other call. A question left open by a crash is closed when the conversations next open
 * (the conversation store closes interrupted calls).
 *
 * "Allow for this conversation" is remembered by the memory service (conversation, block,
 * operation), not here.
 */
import { v7 as uuidv7 } from 'uuid';
import { AppError, isAppError } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import type { ConsentAnswer as ShownAnswer, ConsentChoice, ConsentInfo } from '../../../shared/model/memory';
import { consentRequired, type ConsentAnswer, type ConsentAsker, type ConsentRequest } from './consent';

export interface ConsentCardDeps {
  /** The latest card of a call in a conversation and its turn (absent: the call has no row yet, e.g. a `+` palette run). */
  cardOf(conversationId: string, invocationId: string): { card: ToolCard; turnId?: string | undefined } | undefined;
  /** Appends a tool row with the card to the conversation's timeline (in the call's turn). */
  append(conversationId: string, row: { card: ToolCard; text: string; turnId?: string | undefined }): void;
}

interface Waiting {
  conversationId: string;
  card: ToolCard;
  answer: (a: ConsentAnswer) => void;
}

/** The text of a question's row, and of its answer's. */
export const consentAskedText = (info: Pick<ConsentInfo, 'operation' | 'label' | 'permission'>) =>
  `consent asked: ${info.operation.replace('.', ' ')} on block '${info.label}' (${info.permission})`;
export const consentAnsweredText = (info: Pick<ConsentInfo, 'operation' | 'label'>, answer: ShownAnswer) =>
  `consent ${answer}: ${info.operation.replace('.', ' ')} on block '${info.label}'`;

export class ChatConsent implements ConsentAsker {
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(private readonly deps: ConsentCardDeps) {}

  ask(request: ConsentRequest, signal: AbortSignal): Promise<ConsentAnswer> {
    if (this.closed) return Promise.resolve('closed');
    const conversationId = request.conversationId;
    if (!conversationId) return Promise.reject(new AppError('FORBIDDEN', consentRequired(`${request.summary} needs the user's consent`), { layer: 'human consent', outcome: 'consent-required' }));
    if (signal.aborted) return Promise.reject(toError(signal.reason));
    const info: ConsentInfo = {
      id: uuidv7(),
      operation: request.operation,
      owner: request.owner,
      label: request.label,
      permission: request.permission,
      summary: request.summary,
      ...(request.before !== undefined ? { before: request.before } : {}),
      ...(request.after !== undefined ? { after: request.after } : {}),
      ...(request.diff !== undefined ? { diff: request.diff } : {}),
    };
    const found = request.invocationId ? this.deps.cardOf(conversationId, request.invocationId) : undefined;
    const turnId = found?.turnId;
    const card: ToolCard = { ...withoutResult(found?.card ?? cardFor(request, request.invocationId ?? info.id)), status: 'awaiting-approval', consent: info };
    this.deps.append(conversationId, { card, text: consentAskedText(info), turnId });

    return new Promise<ConsentAnswer>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(info.id);
        // A timeout is an answer (deny) the timeline keeps; a stopped call is the agent loop's to record.
        if (isAppError(signal.reason) && signal.reason.code === 'TIMEOUT') this.record(conversationId, card, turnId, 'timeout');
        reject(toError(signal.reason));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(info.id, {
        conversationId,
        card,
        answer: (a) => {
          signal.removeEventListener('abort', onAbort);
          this.waiting.delete(info.id);
          this.record(conversationId, card, turnId, a);
          resolve(a);
        },
      });
    });
  }

  /** The user's answer; false when the question no longer waits (answered, timed out, or the call stopped). */
  respond(id: string, answer: ConsentChoice): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    w.answer(answer);
    return true;
  }

  /** Questions waiting now (for tests and the app's close). */
  pending(): { id: string; conversationId: string }[] {
    return [...this.waiting].map(([id, w]) => ({ id, conversationId: w.conversationId }));
  }

  /** The app is closing: every open question is answered deny (`closed`), and new ones at once. */
  close(): void {
    this.closed = true;
    for (const w of [...this.waiting.values()]) w.answer('closed');
  }

  private record(conversationId: string, card: ToolCard, turnId: string | undefined, answer: ShownAnswer): void {
    const info: ConsentInfo = { ...card.consent!, answer };
    try {
      this.deps.append(conversationId, { card: { ...card, status: 'running', consent: info }, text: consentAnsweredText(info, answer), turnId });
    } catch {
      // The conversation was deleted meanwhile: the answer still goes to the call.
    }
  }
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new AppError('CANCELLED', 'cancelled while waiting for consent');
}

/** A row for the question carries the call, not a result. */
function withoutResult(card: ToolCard): ToolCard {
  const { value: _v, valueTruncated: _t, manifest: _m, error: _e, durationMs: _d, stored: _s, extraction: _x, ...rest } = card;
  return rest;
}

const TOOL_OF: Record<string, string> = { block: 'block', block_edit: 'block-edit', recall: 'recall' };

/** A card for a call that has none yet: the tool the operation belongs to. */
function cardFor(request: ConsentRequest, invocationId: string): ToolCard {
  const [tool = '', op = ''] = request.operation.split('.') as [string, string];
  const slug = TOOL_OF[tool] ?? tool;
  return { invocationId, bundleId: '', slug, version: '1', displayName: slug, args: { op, label: request.label }, status: 'running', source: 'user' };
}

