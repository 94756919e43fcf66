/**
 * The MCP server form's text fields (Add, and Edit of a server added before): a server's
 * settings as fields, the fields as a server input or the first thing wrong with them and on
 * which field, and the field a refusal of the core names.
 */
import type { McpServerInput, McpServerView } from '../../../../shared/model/mcp-client';
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

export type McpFormField = Exclude<keyof McpFormState, 'mode'>;

/** A field's problem: said on that field. */
export interface McpFormError {
  error: string;
  field: McpFormField;
}

export const EMPTY_FORM: McpFormState = { mode: 'stdio', name: '', command: '', args: '', env: '', cwd: '', url: '', headers: '', oauthClientId: '', oauthClientSecret: '', oauthRedirectPort: '' };

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

export function formToInput(f: McpFormState): { input: McpServerInput } | McpFormError {
  const name = f.name.trim() || (f.mode === 'stdio' ? f.command.trim() : hostOf(f.url)) || 'MCP server';
  if (f.mode === 'stdio') {
    if (!f.command.trim()) return { error: `${s.command}: required`, field: 'command' };
    const env: Record<string, string> = {};
    for (const l of lines(f.env)) {
      const eq = l.indexOf('=');
      if (eq <= 0) return { error: s.badLine(s.env, l), field: 'env' };
      env[l.slice(0, eq).trim()] = l.slice(eq + 1);
    }
    return { input: { name, connection: { transport: 'stdio', command: f.command.trim(), args: lines(f.args), env, ...(f.cwd.trim() ? { cwd: f.cwd.trim() } : {}) } } };
  }
  if (!f.url.trim()) return { error: `${s.url}: required`, field: 'url' };
  const headers: Record<string, string> = {};
  for (const l of lines(f.headers)) {
    const colon = l.indexOf(':');
    if (colon <= 0) return { error: s.badHeader(l), field: 'headers' };
    headers[l.slice(0, colon).trim()] = l.slice(colon + 1).trim();
  }
  let oauthClient: { clientId: string; clientSecret?: string; redirectPort?: number } | undefined;
  if (f.oauthClientId.trim()) {
    const port = f.oauthRedirectPort.trim();
    if (port && !(/^\d+$/.test(port) && Number(port) >= 1024 && Number(port) <= 65535)) return { error: s.badPort, field: 'oauthRedirectPort' };
    // A secret's value is never sent: only a reference to the secret store.
    if (f.oauthClientSecret.trim() && !/^\$\{secret:[A-Za-z][A-Za-z0-9_.-]{0,63}\}$/.test(f.oauthClientSecret.trim())) return { error: s.badClientSecret, field: 'oauthClientSecret' };
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

/**
 * A server's settings as the form's fields, for Edit. Literal environment and header values
 * come hidden (MCP_HIDDEN_VALUE): left as they are, the saved values are kept.
 */
export function formFromView(v: McpServerView): McpFormState {
  const c = v.connection;
  if (c.transport === 'stdio') {
    return {
      ...EMPTY_FORM,
      mode: 'stdio',
      name: v.name,
      command: c.command,
      args: c.args.join('\n'),
      env: Object.entries(c.env)
        .map(([k, val]) => `${k}=${val}`)
        .join('\n'),
      cwd: c.cwd ?? '',
    };
  }
  return {
    ...EMPTY_FORM,
    mode: 'http',
    name: v.name,
    url: c.url,
    headers: Object.entries(c.headers)
      .map(([k, val]) => `${k}: ${val}`)
      .join('\n'),
    oauthClientId: c.oauthClient?.clientId ?? '',
    oauthClientSecret: c.oauthClient?.clientSecret ?? '',
    oauthRedirectPort: c.oauthClient?.redirectPort === undefined ? '' : String(c.oauthClient.redirectPort),
  };
}

/**
 * A refusal of the core on the form's field it names (its first issue's path, e.g.
 * `server.connection.url`, and that issue's words), or null: then it is said for the whole form.
 */
export function serverFieldError(details: unknown): McpFormError | null {
  const d = (details ?? {}) as { issues?: { path?: unknown; message?: unknown }[] };
  const issue = Array.isArray(d.issues) ? d.issues[0] : undefined;
  if (typeof issue?.path !== 'string' || typeof issue.message !== 'string') return null;
  const field = fieldOf(issue.path.replace(/^server\./, '').split('.'));
  return field ? { field, error: issue.message } : null;
}

function fieldOf([first, second, third]: string[]): McpFormField | null {
  if (first === 'name') return 'name';
  if (first !== 'connection') return null;
  if (second === 'oauthClient') return third === 'clientSecret' ? 'oauthClientSecret' : third === 'redirectPort' ? 'oauthRedirectPort' : 'oauthClientId';
  const byKey: Record<string, McpFormField> = { command: 'command', args: 'args', env: 'env', cwd: 'cwd', url: 'url', headers: 'headers' };
  return byKey[second ?? ''] ?? null;
}
