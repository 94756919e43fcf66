import { describe, expect, it } from 'vitest';
import { SERVER_NAME, TOKEN_PLACEHOLDER, snippet } from './mcp-snippets';

const info = { dataDir: '/home/a/.local/share/toolsmith', stdioCommand: ['/usr/bin/node', '/opt/toolsmith/dist-electron/toolsmith.mjs', 'mcp'], httpUrl: 'http://127.0.0.1:4321/mcp', tokenFile: '/home/a/.local/share/toolsmith/mcp-token' };

describe('MCP config snippets', () => {
  it('starts the stdio server over this data folder, in each client’s format', () => {
    const launch = { command: '/usr/bin/node', args: ['/opt/toolsmith/dist-electron/toolsmith.mjs', 'mcp', '--data-dir', info.dataDir] };
    expect(JSON.parse(snippet(info, 'claude', 'stdio')!)).toEqual({ mcpServers: { [SERVER_NAME]: launch } });
    expect(JSON.parse(snippet(info, 'cursor', 'stdio')!)).toEqual({ mcpServers: { [SERVER_NAME]: launch } });
    expect(JSON.parse(snippet(info, 'vscode', 'stdio')!)).toEqual({ servers: { [SERVER_NAME]: { type: 'stdio', ...launch } } });
  });

  it('reaches the HTTP endpoint with the bearer header, a placeholder until the token is known', () => {
    expect(JSON.parse(snippet(info, 'cursor', 'http')!)).toEqual({ mcpServers: { [SERVER_NAME]: { url: info.httpUrl, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } } });
    expect(JSON.parse(snippet(info, 'vscode', 'http')!)).toEqual({ servers: { [SERVER_NAME]: { type: 'http', url: info.httpUrl, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } } });
    expect(snippet(info, 'claude', 'http')).toContain(info.httpUrl);
  });

  it('writes the MCP token in when it is known (the token that opens /mcp only)', () => {
    const token = 'f'.repeat(64);
    expect(JSON.parse(snippet(info, 'cursor', 'http', token)!)).toEqual({ mcpServers: { [SERVER_NAME]: { url: info.httpUrl, headers: { Authorization: `Bearer ${token}` } } } });
    expect(JSON.parse(snippet(info, 'claude', 'http', token)!).mcpServers[SERVER_NAME].args).toContain(`Authorization:Bearer ${token}`);
    expect(snippet(info, 'vscode', 'stdio', token)).not.toContain(token);
  });

  it('has no HTTP snippet where no host serves /mcp', () => {
    expect(snippet({ ...info, httpUrl: null }, 'cursor', 'http')).toBeNull();
  });
});
