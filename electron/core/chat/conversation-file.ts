/**
 * A conversation as a file, and back: `conversations.export` writes Markdown (to read: the
 * messages in order, each tool card with its arguments and its value, error or where its result
 * went) or JSON (the versioned ConversationFileSchema, every row as stored); `conversations.import`
 * reads the JSON back as a new conversation. Nothing in an imported file runs: a call that had
 * not finished is closed as cancelled, and what its rows refer to (buffers, stored outputs,
 * tasks) is kept as written, whether or not it exists here.
 *
 * Only what the chat shows is written: what a model alone is given (a message's prompt with its
 * inlined inputs, the tool calls as the model made them) stays in the database.
 */
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import {
  CONVERSATION_FILE_FORMAT,
  CONVERSATION_FILE_VERSION,
  CONVERSATION_FILE_VERSIONS_READ,
  CONVERSATION_IMPORT_MAX_CHARS,
  ConversationFileSchema,
  type Conversation,
  type ConversationFile,
  type ContextSection,
  type Message,
  type ToolCard,
} from '../../../shared/model/conversation';
import type { ConversationStore, ImportedConversation } from '../timeline/conversation-store';
import { checkAttachments } from './attachments';
import { resultText } from '../timeline/render';
import { modelContent } from '../llm/result-content';

export type ConversationFileFormat = 'markdown' | 'json';

export interface ExportedFile {
  fileName: string;
  mimeType: string;
  text: string;
}

/** A call still running or waiting when the file was written: closed so, on import. */
export const UNFINISHED_AT_EXPORT = 'this call had not finished when the conversation was exported';

const UNFINISHED: ReadonlySet<ToolCard['status']> = new Set(['running', 'awaiting-approval', 'awaiting-answer']);

/** The conversation as a file to save. NOT_FOUND for an unknown id. */
export function exportConversation(store: Pick<ConversationStore, 'get' | 'messages' | 'timeline' | 'contextSections'>, id: string, format: ConversationFileFormat, now: Date): ExportedFile {
  const conversation = store.get(id);
  const contextSections = store.contextSections(id);
  const base = `${fileSlug(conversation.title)}-${now.toISOString().slice(0, 10)}`;
  if (format === 'json') {
    // The JSON file carries each attached file's bytes, so an import gives them back.
    const messages: Message[] = store.timeline(id).map(({ prompt: _prompt, toolCalls: _toolCalls, attachmentFiles, ...m }) =>
      attachmentFiles?.length ? { ...m, attachments: attachmentFiles.map(({ name, mimeType, bytes, dataBase64 }) => ({ name, mimeType, bytes, dataBase64 })) } : m,
    );
    return { fileName: `${base}.json`, mimeType: 'application/json', text: `${JSON.stringify(conversationFile(conversation, messages, contextSections, now), null, 2)}\n` };
  }
  return { fileName: `${base}.md`, mimeType: 'text/markdown', text: conversationMarkdown(conversation, store.messages(id), now) };
}

export function conversationFile(conversation: Conversation, messages: readonly Message[], contextSections: readonly ContextSection[], now: Date): ConversationFile {
  const { id, title, createdAt, updatedAt, model, tools, extraction, systemPrompt, params } = conversation;
  return {
    format: CONVERSATION_FILE_FORMAT,
    version: CONVERSATION_FILE_VERSION,
    exportedAt: now.toISOString(),
    conversation: {
      id,
      title,
      createdAt,
      updatedAt,
      ...(model ? { model } : {}),
      ...(tools ? { tools } : {}),
      ...(extraction ? { extraction } : {}),
      ...(contextSections.length ? { contextSections: [...contextSections] } : {}),
      ...(systemPrompt ? { systemPrompt } : {}),
      ...(params && Object.keys(params).length > 0 ? { params } : {}),
    },
    messages: messages.map(({ conversationId: _conversationId, ...m }) => m),
  };
}

/**
 * A conversation file as a new conversation. VALIDATION_FAILED, with nothing created, when the
 * text is too long, not JSON, not a conversation file, of another version, or does not match
 * the schema (the message names the place of the first problem, `messages[3].role`).
 */
export function importConversation(store: Pick<ConversationStore, 'importConversation'>, text: string): { conversation: Conversation; messages: number; attachmentsLeftOut?: number } {
  const file = readConversationFile(text);
  const { rows: messages, leftOut } = withAttachmentFiles(freshRows(file.messages));
  const { title, model, tools, extraction, contextSections, systemPrompt, params } = file.conversation;
  const conversation = store.importConversation({
    title,
    messages,
    ...(model ? { model } : {}),
    ...(tools ? { tools } : {}),
    ...(extraction ? { extraction } : {}),
    ...(contextSections ? { contextSections } : {}),
    ...(systemPrompt ? { systemPrompt } : {}),
    ...(params ? { params } : {}),
  });
  return { conversation, messages: messages.length, ...(leftOut > 0 ? { attachmentsLeftOut: leftOut } : {}) };
}

/**
 * The rows' attachments as files to store, checked as a message's attachments are when it is
 * sent (a bad one refuses the import, naming its place). One without its bytes (a file written
 * before they were kept) cannot come back: it is left out and counted.
 */
function withAttachmentFiles(rows: ReturnType<typeof freshRows>): { rows: ImportedConversation['messages']; leftOut: number } {
  let leftOut = 0;
  const out = rows.map((r, i) => {
    if (!r.attachments?.length) return r;
    if (r.role !== 'user') throw refuse(`the conversation file is not valid at messages[${i}].attachments: only your own messages carry attached files`, `messages[${i}].attachments`);
    const { attachments, ...row } = r;
    const withBytes = attachments.filter((a) => a.dataBase64 !== undefined);
    leftOut += attachments.length - withBytes.length;
    if (withBytes.length === 0) return row;
    try {
      return { ...row, attachmentFiles: checkAttachments(withBytes.map((a) => ({ name: a.name, mimeType: a.mimeType, dataBase64: a.dataBase64! }))) };
    } catch (e) {
      throw refuse(`the conversation file is not valid at messages[${i}].attachments: ${(e as Error).message}`, `messages[${i}].attachments`);
    }
  });
  return { rows: out, leftOut };
}

export function readConversationFile(text: string): ConversationFile {
  if (text.length > CONVERSATION_IMPORT_MAX_CHARS) {
    throw refuse(`the file is ${mib(text.length)} MiB; a conversation file may be at most ${mib(CONVERSATION_IMPORT_MAX_CHARS)} MiB`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw refuse(`the file is not JSON (${(e as Error).message}): choose a file written by Export as JSON`);
  }
  const head = (typeof data === 'object' && data !== null ? data : {}) as { format?: unknown; version?: unknown };
  if (head.format !== CONVERSATION_FILE_FORMAT) {
    throw refuse(`this is not a Toolsmith conversation file (its "format" is not '${CONVERSATION_FILE_FORMAT}'): choose a file written by Export as JSON`, 'format');
  }
  if (typeof head.version !== 'number' || !CONVERSATION_FILE_VERSIONS_READ.includes(head.version)) {
    throw refuse(`this conversation file is version ${JSON.stringify(head.version)}; this Toolsmith reads versions ${CONVERSATION_FILE_VERSIONS_READ.join(' and ')} (a newer Toolsmith may read it)`, 'version');
  }
  const parsed = ConversationFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = pathText(issue.path);
    throw refuse(`the conversation file is not valid at ${where || 'its top level'}: ${issue.message}`, where);
  }
  return parsed.data;
}

/** The rows with new ids for what ties them together (calls, turns), and no call left open. */
function freshRows(rows: ConversationFile['messages']): Omit<Message, 'id' | 'conversationId'>[] {
  const ids = new Map<string, string>();
  const fresh = (old: string) => {
    let id = ids.get(old);
    if (!id) ids.set(old, (id = uuidv7()));
    return id;
  };
  const lastRowOf = new Map<string, number>();
  rows.forEach((r, i) => {
    if (r.tool) lastRowOf.set(r.tool.invocationId, i);
  });
  return rows.map(({ id: _id, conversationId: _conversationId, ...r }, i) => {
    const out: Omit<Message, 'id' | 'conversationId'> = { ...r, ...(r.turnId ? { turnId: fresh(`turn:${r.turnId}`) } : {}) };
    if (r.tool) {
      let tool: ToolCard = { ...r.tool, invocationId: fresh(`call:${r.tool.invocationId}`) };
      if (UNFINISHED.has(tool.status) && lastRowOf.get(r.tool.invocationId) === i) {
        tool = { ...tool, status: 'cancelled', error: { code: 'CANCELLED', message: UNFINISHED_AT_EXPORT } };
      }
      out.tool = tool;
    }
    return out;
  });
}

/** The conversation to read: a heading per message, tool calls folded to their latest state. */
export function conversationMarkdown(conversation: Conversation, messages: readonly Message[], now: Date): string {
  const out: string[] = [`# ${oneLine(conversation.title)}`, '', `Exported from Toolsmith on ${now.toISOString()}${conversation.model ? ` · model ${modelName(conversation.model)}` : ''} · ${messages.length} ${messages.length === 1 ? 'row' : 'rows'}`];
  const latest = new Map<string, ToolCard>();
  for (const m of messages) if (m.tool) latest.set(m.tool.invocationId, m.tool);
  const shown = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool' && m.tool) {
      if (shown.has(m.tool.invocationId)) continue;
      shown.add(m.tool.invocationId);
      out.push('', ...toolMarkdown(latest.get(m.tool.invocationId) ?? m.tool, m.createdAt));
      continue;
    }
    const who = m.role === 'user' ? 'You' : m.role === 'assistant' ? `Model${m.model ? ` (${modelName(m.model)})` : ''}` : 'Toolsmith';
    out.push('', `## ${who} · ${m.createdAt}`, '');
    if (m.text.trim()) out.push(m.text.trimEnd());
    if (m.attachments?.length) out.push('', `**Attached**: ${m.attachments.map((a) => `${oneLine(a.name)} (${a.mimeType}, ${a.bytes} bytes)`).join(', ')}`);
    if (m.error) out.push('', `**Error** (${m.error.code}): ${m.error.message}`);
    for (const o of m.outcomes ?? []) {
      out.push('', `- \`${oneLine(o.directive)}\`: ${o.error ? `error: ${o.error.message}` : o.manifest ? oneLine(o.manifest.text) : 'inlined'}`);
    }
  }
  return `${out.join('\n')}\n`;
}

function toolMarkdown(card: ToolCard, at: string): string[] {
  const by = card.source === 'model' ? 'called by the model' : card.source === 'step' ? 'run by a workflow step' : 'run by you';
  const out = [`## Tool: ${oneLine(card.displayName)} (\`${card.slug}\` ${card.version}) · ${card.status} · ${by} · ${at}`, '', '**Arguments**', '', ...fenced(JSON.stringify(card.args ?? {}, null, 2) ?? '{}', 'json')];
  if (card.status === 'ok' && card.manifest) return [...out, '', '**Result routed**', '', ...fenced(card.manifest.text, '')];
  if (card.status === 'ok' && card.stored) return [...out, '', '**Result**', '', resultText(card).text];
  if (card.status === 'ok') {
    if (card.value === undefined) return [...out, '', '**Result**: ok'];
    const content = card.valueTruncated ? undefined : modelContent(card.value);
    if (content) {
      const note = content.images.length ? ['', `(${content.images.length} ${content.images.length === 1 ? 'image' : 'images'} not included)`] : [];
      return [...out, '', '**Result**', '', ...fenced(content.text, ''), ...note];
    }
    const text = typeof card.value === 'string' ? card.value : (JSON.stringify(card.value, null, 2) ?? '');
    const cut = card.valueTruncated ? ['', '(the value was cut: only its beginning was kept)'] : [];
    return [...out, '', '**Result**', '', ...fenced(text, typeof card.value === 'string' ? '' : 'json'), ...cut];
  }
  if (card.status === 'denied') return [...out, '', `**Denied**${card.denyReason ? `: ${card.denyReason}` : ''}`];
  if (card.error) return [...out, '', `**${card.status === 'cancelled' ? 'Cancelled' : 'Error'}** (${card.error.code}): ${card.error.message}`];
  return [...out, '', `**${card.status}**`];
}

/** A code block whose fence is longer than any run of backticks inside it. */
function fenced(text: string, lang: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${lang}`, text.replace(/\n+$/, ''), fence];
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const modelName = (m: { providerId: string; model: string }) => `${m.providerId}/${m.model}`;
const mib = (chars: number) => Math.ceil((chars / (1024 * 1024)) * 10) / 10;

/** A file name from a title: letters, digits and dashes. */
function fileSlug(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'conversation';
}

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

function refuse(message: string, field?: string): AppError {
  return new AppError('VALIDATION_FAILED', message, field ? { field } : undefined);
}
