/**
 * The config snippets Settings → MCP server shows, for the MCP clients people use: Claude
 * Desktop and Cursor (`mcpServers`), VS Code (`servers` in .vscode/mcp.json). The stdio one
 * starts `toolsmith mcp` over this data folder; the HTTP one reaches the running headless host
 * with the MCP token (it opens `/mcp` and nothing else: never the full API token).
 */
import type { McpServerInfo } from '../../../shared/model/mcp-serve';

export type SnippetClient = 'claude' | 'cursor' | 'vscode';
export type SnippetTransport = 'stdio' | 'http';

export const SERVER_NAME = 'toolsmith';
export const TOKEN_PLACEHOLDER = '<token from the mcp-token file>';

/** The stdio command and its arguments, with the data folder. */
export function stdioLaunch(info: McpServerInfo): { command: string; args: string[] } {
  const [command = 'toolsmith', ...rest] = info.stdioCommand;
  return { command, args: [...rest, '--data-dir', info.dataDir] };
}

/** `token`: the MCP token to write in (a placeholder until it is known). */
export function snippet(info: McpServerInfo, client: SnippetClient, transport: SnippetTransport, token: string = TOKEN_PLACEHOLDER): string | null {
  if (transport === 'http' && !info.httpUrl) return null;
  const headers = { Authorization: `Bearer ${token}` };
  if (client === 'vscode') {
    const server = transport === 'stdio' ? { type: 'stdio', ...stdioLaunch(info) } : { type: 'http', url: info.httpUrl, headers };
    return JSON.stringify({ servers: { [SERVER_NAME]: server } }, null, 2);
  }
  if (transport === 'stdio') return JSON.stringify({ mcpServers: { [SERVER_NAME]: stdioLaunch(info) } }, null, 2);
  // Claude Desktop reaches HTTP servers through mcp-remote (its config file starts commands only).
  if (client === 'claude') {
    return JSON.stringify({ mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', info.httpUrl, '--header', `Authorization:Bearer ${token}`] } } }, null, 2);
  }
  return JSON.stringify({ mcpServers: { [SERVER_NAME]: { url: info.httpUrl, headers } } }, null, 2);
}

/** Where each client keeps its config. */
export const CONFIG_FILES: Record<SnippetClient, string> = {
  claude: 'claude_desktop_config.json (Claude → Settings → Developer → Edit Config)',
  cursor: '~/.cursor/mcp.json, or .cursor/mcp.json in a project',
  vscode: '.vscode/mcp.json in a workspace (or “MCP: Open User Configuration”)',
};
