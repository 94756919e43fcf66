/**
 * What the model is given, rendered from the timeline (the conversation's messages, in
 * order): the context sections as the system message, then
 * - a user row: the prompt its directives produced (inlined inputs, manifests), or its text,
 *   with its attached files (./attachments.ts: text files as fenced blocks, images beside it);
 * - a tool the user ran from the `+` palette: a user-side note with the call and its result;
 * - an assistant row: its text and the tool calls it made; right after it, one tool message
 *   per call: the latest row of that call (its value, manifest or error; a call that never
 *   finished is told as such);
 * - a value that is content (an MCP result's parts, an HTTP tool's image) is text that says what
 *   each part is, with its images beside it (llm/result-content.ts): never base64 as text;
 * - notices are the app's, never the model's.
 * Everything rendered passes through the redactor: no secret value reaches the model.
 */
import type { ToolCard } from '../../../shared/model/conversation';
import type { TimelineRow } from './conversation-store';
import { droppedMessage, expiredMessage, tooLargeMessage } from '../tool-output/messages';
import type { ModelImage, ModelMessage } from '../llm/types';
import { modelContent } from '../llm/result-content';
import { withAttachments } from './attachments';

export type Redact = (text: string) => string;

export const DENIED_TEXT = 'the user denied this call';
/** A denial with the user's reason, as the model is given it. */
export const deniedWithReason = (reason: string) => `${DENIED_TEXT}. The user's reason: ${reason}`;
export const UNFINISHED_TEXT = 'this call did not finish (the turn was stopped or the app closed)';
export const CANCELLED_TEXT = 'this call was cancelled';

export interface RenderInput {
  rows: readonly TimelineRow[];
  /** The context sections' text (empty: no system message). */
  system: string;
  redact: Redact;
  /** The whole text of a stored output (an oversized result the user chose to give inline). */
  storedText?: StoredText;
  /**
   * The turn being rendered: a call of an earlier turn whose result `earlier` answers for (a
   * memory block an earlier batch loaded) is rendered as that text instead of its result.
   */
  batch?: { turnId: string; earlier: (card: ToolCard) => string | undefined };
}

export type StoredText = (handle: string) => string | undefined;

export function renderForModel({ rows, system, redact, storedText, batch }: RenderInput): ModelMessage[] {
  const out: ModelMessage[] = [];
  if (system.trim()) out.push({ role: 'system', text: redact(system) });

  // The latest row of each model call, by its turn and the id the model gave it (a model may
  // reuse an id in another turn, and fallback ids restart with every turn).
  const latest = new Map<string, ToolCard>();
  for (const r of rows) if (r.role === 'tool' && r.tool?.source === 'model' && r.tool.callId) latest.set(callKeyOf(r.turnId, r.tool.callId), r.tool);

  // A call the user ran may have later rows (the gate's choice changed on its card): only its latest counts.
  const lastUserRow = new Map<string, number>();
  rows.forEach((r, i) => {
    if (r.role === 'tool' && r.tool && r.tool.source !== 'model') lastUserRow.set(r.tool.invocationId, i);
  });

  const pushUser = (text: string, images?: ModelImage[]) => {
    const last = out.at(-1);
    if (last?.role === 'user') {
      last.text = `${last.text}\n\n${text}`;
      if (images?.length) last.images = [...(last.images ?? []), ...images];
    } else out.push({ role: 'user', text, ...(images?.length ? { images } : {}) });
  };

  for (const [i, r] of rows.entries()) {
    if (r.role === 'user') {
      const { text, images } = withAttachments(r.prompt ?? r.text, r.attachmentFiles);
      if (text.trim() || images.length) pushUser(redact(text), images);
    } else if (r.role === 'tool' && r.tool && r.tool.source !== 'model') {
      if (lastUserRow.get(r.tool.invocationId) !== i) continue;
      const note = userToolNote(r.tool, storedText);
      if (note) pushUser(redact(note.text), note.images);
    } else if (r.role === 'assistant') {
      const calls = r.toolCalls ?? [];
      if (!r.text && calls.length === 0) continue;
      out.push({
        role: 'assistant',
        text: redact(r.text),
        ...(calls.length ? { toolCalls: calls.map((c) => ({ callId: c.callId, name: c.name, argsText: redact(c.argsText) })) } : {}),
      });
      for (const c of calls) {
        const card = latest.get(callKeyOf(r.turnId, c.callId));
        const earlier = card && batch && r.turnId !== batch.turnId ? batch.earlier(card) : undefined;
        const { text, isError, images } = earlier !== undefined ? { text: earlier, isError: false } : card ? resultText(card, storedText) : { text: UNFINISHED_TEXT, isError: true };
        out.push({ role: 'tool', callId: c.callId, name: c.name, text: redact(text), ...(isError ? { isError: true } : {}), ...(images?.length ? { images } : {}) });
      }
    }
  }
  return out;
}

const callKeyOf = (turnId: string | undefined, callId: string): string => `${turnId ?? ''}\u0000${callId}`;

/** What a call's latest row tells the model: its text, and the images its value holds (content only). */
export function resultText(card: ToolCard, storedText?: StoredText): { text: string; isError: boolean; images?: ModelImage[] } {
  switch (card.status) {
    case 'ok': {
      if (card.manifest) return { text: card.manifest.text, isError: false };
      if (card.stored) return { text: oversizedText(card.stored, storedText), isError: false };
      const content = card.valueTruncated ? undefined : modelContent(card.value);
      if (content) return { text: content.text || 'ok', isError: false, ...(content.images.length ? { images: content.images } : {}) };
      return { text: valueText(card), isError: false };
    }
    case 'error':
      return { text: card.error?.message ?? 'the call failed', isError: true };
    case 'denied':
      return { text: card.denyReason ? deniedWithReason(card.denyReason) : DENIED_TEXT, isError: true };
    case 'cancelled':
      return { text: CANCELLED_TEXT, isError: true };
    default:
      return { text: UNFINISHED_TEXT, isError: true };
  }
}

/** An oversized result as the gate left it (docs/design/tool-outputs.md). */
function oversizedText(s: NonNullable<ToolCard['stored']>, storedText?: StoredText): string {
  if (s.choice === 'drop' || !s.handle) return droppedMessage(s);
  if (s.choice === 'inline') return storedText?.(s.handle) ?? expiredMessage(s.handle);
  return tooLargeMessage(s, s.handle);
}

function valueText(card: ToolCard): string {
  if (card.value === undefined) return 'ok';
  const text = typeof card.value === 'string' ? card.value : (JSON.stringify(card.value) ?? '');
  return card.valueTruncated ? `${text}\n[result cut: only the first ${text.length} characters are shown]` : text;
}

/** A tool the user ran themselves, as the model is told of it (a running one is not). */
function userToolNote(card: ToolCard, storedText?: StoredText): { text: string; images?: ModelImage[] } | null {
  if (card.status === 'running' || card.status === 'awaiting-approval' || card.status === 'awaiting-answer') return null;
  const args = JSON.stringify(card.args ?? {});
  const { text, images } = resultText(card, storedText);
  return { text: `[the user ran the tool ${card.slug} with ${args}]\n${text}`, ...(images ? { images } : {}) };
}
