/**
 * An MCP tool's hints as small badges (mcp-hints.ts), a list named for screen readers; and, with
 * `withTitle`, the title the server gave it and its name there.
 */
import type { McpSpec } from '../../shared/model/tool';
import { resultStrings as s } from '../i18n/result-strings';
import { hintBadges } from './mcp-hints';
import './mcp-hints.css';

export function McpHintBadges({ mcp, testId }: { mcp: McpSpec | undefined; testId?: string }) {
  const badges = hintBadges(mcp);
  if (badges.length === 0) return null;
  return (
    <span className="mcp-hints" role="list" aria-label={s.hints.label} data-testid={testId}>
      {badges.map((b) => (
        <span key={b.key} role="listitem" className={b.danger ? 'badge danger' : 'badge'} title={b.title} data-hint={b.key}>
          {b.text}
        </span>
      ))}
    </span>
  );
}

/** The tool's title and name on its server, and its hints: for the tool's own page. */
export function McpToolFacts({ mcp }: { mcp: McpSpec }) {
  return (
    <span className="mcp-tool-facts" data-testid="mcp-tool-facts">
      {mcp.title && (
        <span className="mcp-tool-title">
          {s.hints.title(mcp.title)} ({s.hints.serverName(mcp.serverTool)})
        </span>
      )}{' '}
      <McpHintBadges mcp={mcp} testId="mcp-tool-hints" />
    </span>
  );
}
