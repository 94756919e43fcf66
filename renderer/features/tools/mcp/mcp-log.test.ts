import { describe, expect, it } from 'vitest';
import { logLineText } from './mcp-log';

const at = '2026-03-01T12:00:01.000Z';

describe('an MCP server’s log line', () => {
  it('shows a log message the server sent with its level and logger', () => {
    expect(logLineText({ at, stream: 'message', level: 'warning', logger: 'db', text: 'connection lost' })).toBe('12:00:01 warning [db] connection lost');
    expect(logLineText({ at, stream: 'message', level: 'error', text: '{"code":3}' })).toBe('12:00:01 error {"code":3}');
  });

  it('shows stderr and stdout by name and what happened to the server with a bullet', () => {
    expect(logLineText({ at, stream: 'stderr', text: 'starting' })).toBe('12:00:01 stderr starting');
    expect(logLineText({ at, stream: 'event', text: 'connected' })).toBe('12:00:01 • connected');
  });
});
