/**
 * Oversized tool outputs, for Inspect → Stored outputs and the gate's menu on a card:
 * - toolOutputs.list / read / delete: the handles of a conversation (or all), a line range of one;
 * - toolOutputs.extract: an extraction run by hand with the conversation's model;
 * - toolOutputs.choose: what the gate does with one call's oversized result, changed after the
 *   fact (a new row for the call, so the timeline keeps both), and optionally remembered as the
 *   tool's default (Settings → Tool outputs).
 */
import fs from 'node:fs/promises';
import { AppError } from '../../../shared/errors';
import type { StoredOutputSummary } from '../../../shared/contract';
import type { ToolCard } from '../../../shared/model/conversation';
import type { ConversationStore } from '../timeline/conversation-store';
import type { ModelClientFactory } from '../llm/types';
import type { Handler } from '../router';
import { readLineRange } from '../routing/buffer-index';
import type { SettingsStore } from '../settings/settings-store';
import { asMeta } from '../tool-output/read-grep';
import type { ToolOutputService } from '../tool-output/service';
import { extractionInfo } from '../tool-output/tool-output-tool';
import type { StoredOutput } from '../tool-output/store';

type Ops = 'toolOutputs.list' | 'toolOutputs.read' | 'toolOutputs.extract' | 'toolOutputs.delete' | 'toolOutputs.choose';

export interface ToolOutputHandlerDeps {
  toolOutputs: ToolOutputService;
  conversations: ConversationStore;
  clients: ModelClientFactory;
  settings: Pick<SettingsStore, 'get' | 'update'>;
}

const READ_LINES = 500;

function summary(o: StoredOutput): StoredOutputSummary {
  return {
    handle: o.handle,
    conversationId: o.sessionId,
    toolName: o.toolName,
    ...(o.toolId ? { toolId: o.toolId } : {}),
    argsJson: o.argsJson,
    bytes: o.bytes,
    lines: o.lines,
    tokens: o.tokens,
    tokensExact: o.tokensExact,
    createdAt: o.createdAt,
  };
}

export function toolOutputHandlers(deps: ToolOutputHandlerDeps): { [K in Ops]: Handler<K> } {
  const { toolOutputs, conversations } = deps;
  return {
    'toolOutputs.list': ({ conversationId }) => toolOutputs.store.list(conversationId).map(summary),
    'toolOutputs.read': async ({ handle, startLine, endLine }) => {
      const o = toolOutputs.store.require(handle);
      const start = startLine ?? 1;
      const end = endLine ?? start + READ_LINES - 1;
      const fh = await fs.open(toolOutputs.store.filePath(o), 'r');
      try {
        const r = await readLineRange(fh, asMeta(o), start, Math.min(end, Math.max(1, o.lines)), 'toolOutputs.read');
        return { ...r, text: toolOutputs.store.redact(r.text) };
      } finally {
        await fh.close();
      }
    },
    'toolOutputs.extract': async ({ handle, extract, mode }, ctx) => {
      const o = toolOutputs.store.require(handle);
      const conv = conversations.has(o.sessionId) ? conversations.get(o.sessionId) : undefined;
      let client;
      if (conv?.model) {
        try {
          client = deps.clients.forProvider(conv.model.providerId);
        } catch {
          client = undefined;
        }
      }
      const model = toolOutputs.extractionModel(client, conv?.model);
      const signal = ctx?.signal ?? new AbortController().signal;
      const a = await toolOutputs.run(o.sessionId, { handle, extract, ...(mode ? { mode } : {}) }, model, signal, conv?.extraction);
      const r = a.report;
      return {
        text: a.text,
        isError: a.isError,
        ...(r ? { extraction: extractionInfo(handle, r) } : {}),
      };
    },
    'toolOutputs.delete': async ({ handle }) => {
      await toolOutputs.store.delete(handle);
      return { deleted: true as const };
    },
    'toolOutputs.choose': async ({ conversationId, invocationId, choice, remember }) => {
      const rows = conversations.timeline(conversationId);
      const row = [...rows].reverse().find((r) => r.role === 'tool' && r.tool?.invocationId === invocationId);
      const card = row?.tool;
      if (!row || !card) throw new AppError('NOT_FOUND', `no tool call ${invocationId} in this conversation`);
      if (!card.stored) throw new AppError('VALIDATION_FAILED', 'this result was not oversized: there is nothing to choose');
      const handle = card.stored.handle;
      const kept = handle ? toolOutputs.store.get(handle) : undefined;
      let next: ToolCard;
      const { manifest: _m, ...rest } = card;
      if (choice === 'handle' || choice === 'inline') {
        if (!kept) throw new AppError('CONFLICT', `the output was not kept (it was ${card.stored.choice === 'drop' ? 'dropped' : card.stored.choice === 'buffer' ? 'routed to a buffer' : 'removed when its session ended'}): run the tool again to keep it`);
        next = { ...rest, stored: { ...card.stored, choice } };
      } else if (choice === 'drop') {
        if (kept) await toolOutputs.store.delete(kept.handle);
        const { handle: _h, ...info } = card.stored;
        const { value: _v, valueTruncated: _t, ...bare } = rest;
        next = { ...bare, stored: { ...info, choice } };
      } else {
        if (!kept) throw new AppError('CONFLICT', 'the output was not kept: run the tool again to route it to a buffer');
        const manifest = await toolOutputs.routeToBuffer(conversationId, card.slug, toolOutputs.store.readTextSync(kept.handle));
        next = { ...rest, stored: { ...card.stored, choice }, ...(manifest ? { manifest } : {}) };
      }
      const toolId = card.stored.toolId ?? kept?.toolId;
      if (remember && toolId) {
        // Made to the settings on disk: another process's remembered choices are kept.
        await deps.settings.update((now) => ({ toolOutputs: { ...now.toolOutputs, perTool: { ...now.toolOutputs.perTool, [toolId]: choice } } }));
      }
      const [added] = conversations.addMessages(conversationId, [{ role: 'tool', text: next.manifest?.text ?? '', tool: next, ...(row.turnId ? { turnId: row.turnId } : {}) }]);
      return added!;
    },
  };
}
