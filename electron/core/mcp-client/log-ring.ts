/** A server's log: the last lines of its stderr, of its log messages and of what happened to it, bounded in lines and bytes. */
import type { McpLogLevel, McpLogLine } from '../../../shared/model/mcp-client';

export const LOG_MAX_LINES = 500;
export const LOG_MAX_LINE_CHARS = 2_000;
/** How much of a log message's data (as text) is kept. */
export const LOG_MESSAGE_MAX_CHARS = 1_000;
/** How much of a log message's logger name is kept. */
export const LOG_LOGGER_MAX_CHARS = 100;

export class LogRing {
  private readonly lines: McpLogLine[] = [];
  private partial = '';
  /** Lines dropped off the front since the server was added. */
  dropped = 0;

  constructor(
    private readonly now: () => Date,
    private readonly maxLines = LOG_MAX_LINES,
  ) {}

  add(stream: McpLogLine['stream'], text: string, from?: { level: McpLogLevel; logger?: string }): void {
    const cut = text.length > LOG_MAX_LINE_CHARS ? `${text.slice(0, LOG_MAX_LINE_CHARS)}… (${text.length - LOG_MAX_LINE_CHARS} more characters)` : text;
    const line: McpLogLine = { at: this.now().toISOString(), stream, text: cut };
    if (from) {
      line.level = from.level;
      if (from.logger) line.logger = from.logger;
    }
    this.lines.push(line);
    if (this.lines.length > this.maxLines) {
      const over = this.lines.length - this.maxLines;
      this.lines.splice(0, over);
      this.dropped += over;
    }
  }

  /** A chunk of a stream: complete lines are kept, a trailing partial line waits for the rest (bounded). */
  addChunk(stream: McpLogLine['stream'], chunk: string): void {
    let text = this.partial + chunk;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.add(stream, text.slice(0, nl).replace(/\r$/, ''));
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    // A line that never ends is kept in pieces rather than grown without bound.
    if (text.length > LOG_MAX_LINE_CHARS) {
      this.add(stream, text);
      text = '';
    }
    this.partial = text;
  }

  event(text: string): void {
    this.add('event', text);
  }

  /**
   * A log message the server sent (notifications/message): its level, its logger's name, and its
   * data as text (a string as it is, anything else as JSON), cut to LOG_MESSAGE_MAX_CHARS.
   */
  message(level: McpLogLevel, logger: unknown, data: unknown): void {
    const text = dataText(data);
    const cut = text.length > LOG_MESSAGE_MAX_CHARS ? `${text.slice(0, LOG_MESSAGE_MAX_CHARS)}… (${text.length - LOG_MESSAGE_MAX_CHARS} more characters)` : text;
    const name = typeof logger === 'string' && logger !== '' ? logger.slice(0, LOG_LOGGER_MAX_CHARS) : undefined;
    this.add('message', cut, { level, ...(name !== undefined ? { logger: name } : {}) });
  }

  list(): McpLogLine[] {
    return this.lines.slice();
  }

  /** A mark of where the log is now, for `since`. */
  mark(): number {
    return this.dropped + this.lines.length;
  }

  /** The lines added after `mark` (those still kept). */
  since(mark: number): McpLogLine[] {
    return this.lines.slice(Math.max(0, mark - this.dropped));
  }
}

function dataText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data === undefined) return '';
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}
