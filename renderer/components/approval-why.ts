/**
 * Why a call waits for approval, as lines of plain text (shared/model/tool-approval.ts says
 * why; this says it in words): the reason, and for an MCP server's tool each hint it gave, or
 * that it gave none and is treated as possibly destructive.
 */
import type { ApprovalInfo } from '../../shared/model/tool-approval';
import { hintsGiven } from '../../shared/model/tool-approval';
import { approvalStrings as s } from '../i18n/approval-strings';

export interface ApprovalWhyText {
  reason: string;
  /** Present for an MCP server's tool: the hints as words (empty when it gave none). */
  hints?: { key: string; text: string; danger: boolean }[];
  /** The server gave no hint of the tool's effects. */
  noHints?: string;
}

const HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export function approvalWhy(info: ApprovalInfo): ApprovalWhyText {
  const r = info.reason;
  const reason = r.kind === 'function' ? s.reason.fn(r.functionId) : r.kind === 'step' ? s.reason.step(r.step, r.tool) : r.kind === 'script' ? s.reason.script : s.reason.tool;
  if (!info.mcpHints) return { reason };
  const hints = HINT_KEYS.filter((k) => info.mcpHints![k] !== undefined).map((k) => {
    const yes = info.mcpHints![k] === true;
    return { key: k, text: yes ? s.hints[k].yes : s.hints[k].no, danger: (k === 'destructiveHint' && yes) || (k === 'readOnlyHint' && !yes) };
  });
  return { reason, hints, ...(hintsGiven(info.mcpHints) ? {} : { noHints: s.noHints }) };
}
