/**
 * What an MCP server says of one of its tools (tool.mcp: its title and hints), as badges: each
 * hint the server gave, in words. A read-only tool's destructive and idempotent hints mean nothing
 * (MCP reads them only when readOnlyHint is false), so they are left out for it.
 */
import type { McpSpec } from '../../shared/model/tool';
import { approvalStrings } from '../i18n/approval-strings';
import { resultStrings as s } from '../i18n/result-strings';

export interface HintBadge {
  key: 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';
  text: string;
  /** Said in full, for the title and screen readers. */
  title: string;
  danger: boolean;
}

const ORDER = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export function hintBadges(mcp: McpSpec | undefined): HintBadge[] {
  const hints = mcp?.annotations;
  if (!hints) return [];
  const readOnly = hints.readOnlyHint === true;
  return ORDER.filter((k) => hints[k] !== undefined && !(readOnly && (k === 'destructiveHint' || k === 'idempotentHint'))).map((k) => {
    const yes = hints[k] === true;
    const text = yes ? approvalStrings.hints[k].yes : approvalStrings.hints[k].no;
    return { key: k, text, title: s.hints.badge(text), danger: k === 'destructiveHint' && yes };
  });
}
