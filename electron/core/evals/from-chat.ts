/**
 * An eval case drafted from real use: a chat turn (any of its rows: the user's message, the
 * model's reply, a tool card, the notice of a failed model call). The draft keeps the user's
 * message as the model got it, the earlier messages as context, and the registry tools the
 * model called — or the one card chosen — each with a check per top-level argument it gave
 * and, when the call answered, its result as a canned answer (so the case runs nothing). A tool
 * called more than once is drafted from its last call that answered (else its last call). A
 * call whose arguments failed is checked against the tool's argSchema instead: what the model
 * gave is not what it should have. `notes` say what to look at before saving, among them each
 * tool left without a canned answer (replaying the case runs it for real).
 */
import { AppError } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import type { EvalArgCheck, EvalCannedResult, EvalCaseBody, EvalDraft, EvalExpectedTool, EvalScope } from '../../../shared/model/evals';
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolView } from '../../../shared/model/tool';
import { MODEL_TOOLS_BUNDLE } from '../agent/tool-behavior';
import type { ToolStore } from '../bundles/tool-store';
import { jsonEqual, selectJsonPath } from '../testcases/run-tests';
import type { ConversationStore, TimelineRow } from '../timeline/conversation-store';
import { checkEvalCase } from './eval-case-check';

/** Earlier messages a draft keeps as context. */
const MAX_CONTEXT = 20;
/** The most of one message kept. */
const MAX_TEXT = 100_000;
/** A result larger than this (as JSON) is not kept as a canned answer. */
const MAX_CANNED_CHARS = 64 * 1024;
/** Top-level arguments checked one by one; past it, the rest is left to the person. */
const MAX_ARG_CHECKS = 20;

export interface FromChatDeps {
  conversations: Pick<ConversationStore, 'get' | 'timeline'>;
  store: Pick<ToolStore, 'getBundle' | 'bundleById' | 'getTool' | 'allTools'>;
}

export function draftFromChat(deps: FromChatDeps, input: { conversationId: string; messageId: string; bundleId?: string }): Omit<EvalDraft, 'saved'> {
  const conversation = deps.conversations.get(input.conversationId);
  const rows = deps.conversations.timeline(input.conversationId);
  const at = rows.findIndex((r) => r.id === input.messageId);
  if (at < 0) throw new AppError('NOT_FOUND', `no message '${input.messageId}' in this conversation (an earlier branch, or deleted)`, { messageId: input.messageId });
  let userAt = at;
  while (userAt >= 0 && rows[userAt]!.role !== 'user') userAt--;
  if (userAt < 0) throw new AppError('VALIDATION_FAILED', 'there is no message of the user before this one: choose a turn that starts with what the user said');
  let end = userAt + 1;
  while (end < rows.length && rows[end]!.role !== 'user') end++;
  const user = rows[userAt]!;
  const turn = rows.slice(userAt + 1, end);
  const notes: string[] = [];

  // The tool calls: the card chosen, or every registry call of the turn (the latest row of each).
  const chosen = rows[at]!.role === 'tool' ? rows[at]!.tool : undefined;
  const cards = new Map<string, ToolCard>();
  for (const r of turn) if (r.role === 'tool' && r.tool && r.tool.source === 'model' && r.tool.bundleId && r.tool.bundleId !== MODEL_TOOLS_BUNDLE) cards.set(r.tool.invocationId, r.tool);
  const called = chosen ? (chosen.bundleId && chosen.bundleId !== MODEL_TOOLS_BUNDLE ? [cards.get(chosen.invocationId) ?? chosen] : []) : [...cards.values()];
  if (chosen && called.length === 0) notes.push(`'${chosen.displayName}' is not a tool of the registry: the case expects no tool; set the tool the model should call`);

  const bundle = input.bundleId ? deps.store.getBundle(input.bundleId) : called[0] ? deps.store.bundleById(called[0].bundleId) : undefined;
  if (!bundle) {
    throw new AppError('VALIDATION_FAILED', 'the model called no tool of the registry in this turn: say which bundle the eval case goes to (bundleId)', { field: 'bundleId' });
  }

  // Each tool once, in the order first called: its last call that answered, else its last call.
  const byRef = new Map<string, ToolCard>();
  for (const card of called) {
    const ref = refOf(deps.store, bundle, card);
    const had = byRef.get(ref);
    if (!had || card.status === 'ok' || had.status !== 'ok') byRef.set(ref, card);
  }
  const expected: EvalExpectedTool[] = [];
  const results: EvalCannedResult[] = [];
  const realCalls: string[] = [];
  for (const [ref, card] of byRef) {
    const failedArgs = card.status === 'error' && card.error?.code === 'VALIDATION_FAILED';
    if (failedArgs) {
      expected.push({ tool: ref, args: [{ kind: 'schema' }] });
      notes.push(`the model's arguments for ${ref} failed (${card.error!.message.slice(0, 200)}): the case checks them against its argSchema; add the values you expect`);
      realCalls.push(ref);
      continue;
    }
    expected.push({ tool: ref, args: argChecks(card.args) });
    const canned = cannedOf(ref, card);
    if (canned) results.push(canned);
    else realCalls.push(ref);
  }
  if (results.length) notes.push(`the results ${results.length === 1 ? `${results[0]!.tool} gave is kept as its canned answer` : 'the tools gave are kept as canned answers'}: nothing runs for ${results.length === 1 ? 'it' : 'them'}; remove a canned answer to run its tool for real`);
  for (const ref of realCalls) {
    notes.push(`${ref} has no canned answer (its call did not answer, or its result was too large, stored or routed to keep): replaying the case runs it for real; add a canned result, or set Other calls to refuse`);
  }
  if (called.length === 0 && !chosen) notes.push('the model called no tool in this turn: the case expects none; set the tool it should have called if that was the mistake');
  const failure = turn.find((r) => r.role === 'notice' && r.error && r.error.code !== 'CONFLICT');
  if (failure?.error) notes.push(`the model call failed in the chat (${failure.error.code}: ${failure.error.message.slice(0, 200)}): the case asks it again`);
  if (answersIn(turn)) notes.push('no checks of the answer yet: add one (contains, regex, or a judge with a rubric) if the answer matters');

  const context = rows
    .slice(0, userAt)
    .filter((r) => (r.role === 'user' || r.role === 'assistant') && textOf(r).trim() !== '')
    .slice(-MAX_CONTEXT)
    .map((r) => ({ role: r.role as 'user' | 'assistant', text: cut(textOf(r)) }));
  const prompt = cut(textOf(user)).trim() || '(empty message)';
  const draft: EvalCaseBody = checkEvalCase({
    name: nameOf(user.text || prompt),
    prompt,
    context,
    expect: expected.length ? { kind: 'tools', tools: expected } : { kind: 'none' },
    answer: [],
    scope: scopeOf(deps.store, conversation.tools),
    results,
    otherCalls: 'run',
    approvals: 'deny',
  });
  return { bundleId: bundle.id, draft, notes };
}

/** A user row as the model got it (inlined inputs), else as typed. */
function textOf(r: TimelineRow): string {
  return r.role === 'user' ? (r.prompt ?? r.text) : r.text;
}

function cut(s: string): string {
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s;
}

function answersIn(turn: readonly TimelineRow[]): boolean {
  return turn.some((r) => r.role === 'assistant' && r.text.trim() !== '');
}

function nameOf(text: string): string {
  const line = text.split('\n').find((l) => l.trim() && !l.trim().startsWith('@'))?.trim() ?? 'From the chat';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** `slug` for a tool of the case's bundle, `bundle/slug` for another's. */
function refOf(store: FromChatDeps['store'], bundle: Bundle, card: ToolCard): string {
  if (card.bundleId === bundle.id) return card.slug;
  return `${store.bundleById(card.bundleId)?.slug ?? card.bundleId}/${card.slug}`;
}

/** A key a JSONPath names as `$['key']` and reads back as that key (letters, digits, underscore). */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One check per top-level argument: `$['key']` equals what the model gave. A key JSONPath would
 * not read as itself (`page[size]`, `lat,lon`, `@type`, `*`) is checked by a JSON Schema instead:
 * the key is required and its value is `const`.
 */
export function argChecks(args: unknown): EvalExpectedTool['args'] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  return Object.entries(args as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .slice(0, MAX_ARG_CHECKS)
    .map(([k, value]): EvalArgCheck => {
      const path = `$['${k}']`;
      if (PLAIN_KEY.test(k) && readsBack(path, k, value)) return { kind: 'jsonPathEquals', path, value };
      return { kind: 'schema', schema: { type: 'object', required: [k], properties: { [k]: { const: value } } } };
    });
}

/** Whether the path selects exactly the key's value in an object of that key alone. */
function readsBack(path: string, key: string, value: unknown): boolean {
  try {
    const found = selectJsonPath(path, { [key]: value });
    return found.length === 1 && jsonEqual(found[0], value);
  } catch {
    return false;
  }
}

function cannedOf(ref: string, card: ToolCard): EvalCannedResult | undefined {
  if (card.status !== 'ok' || card.valueTruncated || card.manifest || card.stored || card.value === undefined) return undefined;
  let size: number;
  try {
    size = (JSON.stringify(card.value) ?? '').length;
  } catch {
    return undefined;
  }
  return size <= MAX_CANNED_CHARS ? { tool: ref, value: card.value } : undefined;
}

/** The conversation's tool selection as a scope: every tool switched on, or the named bundles and tools. */
function scopeOf(store: FromChatDeps['store'], tools: { bundleIds: string[]; toolIds: string[] } | undefined): EvalScope {
  if (!tools) return { tools: 'enabled', toolSearch: 'settings' };
  const named = new Set<string>();
  for (const id of tools.bundleIds) {
    const b = store.bundleById(id);
    if (b) named.add(`${b.slug}/*`);
  }
  const byId = new Map<string, ToolView>(store.allTools().map((t) => [t.id, t]));
  for (const id of tools.toolIds) {
    const t = byId.get(id);
    const b = t ? store.bundleById(t.bundleId) : undefined;
    if (t && b) named.add(`${b.slug}/${t.slug}`);
  }
  return named.size ? { tools: 'named', named: [...named], toolSearch: 'settings' } : { tools: 'enabled', toolSearch: 'settings' };
}
