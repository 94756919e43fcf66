/** A line of an MCP server's log as the Tools screen shows it: its time, where it came from, its text. */
import type { McpLogLine } from '../../../../shared/model/mcp-client';

/**
 * `12:00:01 stderr …` for the server's stderr and stdout, `12:00:01 • …` for what happened to it,
 * and for a log message it sent, its level and logger: `12:00:01 warning [db] …`.
 */
export function logLineText(l: McpLogLine): string {
  const time = l.at.slice(11, 19);
  if (l.stream === 'message') return `${time} ${l.level ?? 'info'}${l.logger ? ` [${l.logger}]` : ''} ${l.text}`;
  return `${time} ${l.stream === 'event' ? '•' : l.stream} ${l.text}`;
}
