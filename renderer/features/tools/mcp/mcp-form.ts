/** The "Add MCP server" form's text fields as a server input, or the first thing wrong with them. */
import type { McpServerInput } from '../../../../shared/model/mcp-client';
import { mcpClientStrings as s } from '../../../i18n/mcp-client-strings';

export interface McpFormState {
  mode: 'stdio' | 'http';
  name: string;
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  headers: string;
  oauthClientId: string;
  oauthClientSecret: string;
  oauthRedirectPort: string;
}

export const EMPTY_FORM: McpFormState = { mode: 'stdio', name: '', command: '', args: '', env: '', cwd: '', url: '', headers: '', oauthClientId: '', oauthClientSecret: '', oauthRedirectPort: '' };

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

export function formToInput(f: McpFormState): { input: McpServerInput } | { error: string } {
  const name = f.name.trim() || (f.mode === 'stdio' ? f.command.trim() : hostOf(f.url)) || 'MCP server';
  if (f.mode === 'stdio') {
    if (!f.command.trim()) return { error: `${s.command}: required` };
    const env: Record<string, string> = {};
    for (const l of lines(f.env)) {
      const eq = l.indexOf('=');
      if (eq <= 0) return { error: s.badLine(s.env, l) };
      env[l.slice(0, eq).trim()] = l.slice(eq + 1);
    }
    return { input: { name, connection: { transport: 'stdio', command: f.command.trim(), args: lines(f.args), env, ...(f.cwd.trim() ? { cwd: f.cwd.trim() } : {}) } } };
  }
  if (!f.url.trim()) return { error: `${s.url}: required` };
  const headers: Record<string, string> = {};
  for (const l of lines(f.headers)) {
    const colon = l.indexOf(':');
    if (colon <= 0) return { error: s.badHeader(l) };
    headers[l.slice(0, colon).trim()] = l.slice(colon + 1).trim();
  }
  let oauthClient: { clientId: string; clientSecret?: string; redirectPort?: number } | undefined;
  if (f.oauthClientId.trim()) {
    const port = f.oauthRedirectPort.trim();
    if (port && !(/^\d+$/.test(port) && Number(port) >= 1024 && Number(port) <= 65535)) return { error: s.badPort };
    // A secret's value is never sent: only a reference to the secret store.
    if (f.oauthClientSecret.trim() && !/^\$\{secret:[A-Za-z][A-Za-z0-9_.-]{0,63}\}$/.test(f.oauthClientSecret.trim())) return { error: s.badClientSecret };
    oauthClient = {
      clientId: f.oauthClientId.trim(),
      ...(f.oauthClientSecret.trim() ? { clientSecret: f.oauthClientSecret.trim() } : {}),
      ...(port ? { redirectPort: Number(port) } : {}),
    };
  }
  return { input: { name, connection: { transport: 'http', url: f.url.trim(), headers, ...(oauthClient ? { oauthClient } : {}) } } };
}

function hostOf(url: string): string {
  try {
    return new URL(url.trim()).host;
  } catch {
    return '';
  }
}
