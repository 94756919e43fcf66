import { describe, expect, it } from 'vitest';
import { MCP_HIDDEN_VALUE, McpServerInputSchema, type McpServerView } from '../../../../shared/model/mcp-client';
import { EMPTY_FORM, formFromView, formToInput, serverFieldError } from './mcp-form';

describe('the Add MCP server form', () => {
  const http = { ...EMPTY_FORM, mode: 'http' as const, url: 'https://api.example.com/mcp' };

  it('an HTTP server without a client ID has no OAuth client: dynamic registration', () => {
    const r = formToInput({ ...http, oauthClientSecret: '${secret:X}', oauthRedirectPort: '4000' });
    expect(r).toEqual({ input: { name: 'api.example.com', connection: { transport: 'http', url: 'https://api.example.com/mcp', headers: {} } } });
  });

  it('a client registered beforehand: its id, its secret as ${secret:NAME} and its redirect port, as the contract takes them', () => {
    const r = formToInput({ ...http, oauthClientId: ' Iv1.abc ', oauthClientSecret: '${secret:GH_APP_SECRET}', oauthRedirectPort: '33418' });
    expect(r).toMatchObject({ input: { connection: { oauthClient: { clientId: 'Iv1.abc', clientSecret: '${secret:GH_APP_SECRET}', redirectPort: 33418 } } } });
    expect(McpServerInputSchema.safeParse((r as { input: unknown }).input).success).toBe(true);
  });

  it('a redirect port out of range is said on the form, before anything is sent', () => {
    expect(formToInput({ ...http, oauthClientId: 'app', oauthRedirectPort: '80' })).toEqual({ error: 'Redirect port: a whole number from 1024 to 65535', field: 'oauthRedirectPort' });
    expect(formToInput({ ...http, oauthClientId: 'app', oauthRedirectPort: 'abc' })).toHaveProperty('error');
  });

  it('a client secret typed as a value is stopped on the form: it never leaves the window', () => {
    expect(formToInput({ ...http, oauthClientId: 'app', oauthClientSecret: 'gho_plainvalue' })).toEqual({ error: expect.stringMatching(/^OAuth client secret: write \$\{secret:NAME\}/) as unknown, field: 'oauthClientSecret' });
  });
});

const status: McpServerView['status'] = { state: 'connected', since: '2026-01-01T00:00:00.000Z', restarts: 0, skipped: [], missing: [] };
const limits = { timeouts: { startMs: 30_000, callMs: 60_000 }, maxRestarts: 3, trustUnannotatedTools: false, apps: 'ask' as const };

describe('the Edit form of an MCP server', () => {
  it('is filled in with a stdio server’s settings, one argument and variable a line; saved unchanged it gives back the same input', () => {
    const v: McpServerView = {
      bundleId: 'b',
      name: 'files',
      connection: { transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'], env: { TOKEN: MCP_HIDDEN_VALUE, MODE: '${secret:MODE}' }, cwd: '/home/me' },
      ...limits,
      status,
    };
    const f = formFromView(v);
    expect(f).toMatchObject({ mode: 'stdio', name: 'files', command: 'npx', args: '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes', env: `TOKEN=${MCP_HIDDEN_VALUE}\nMODE=\${secret:MODE}`, cwd: '/home/me' });
    // The hidden value goes back as shown: the core keeps the saved one.
    expect(formToInput(f)).toEqual({ input: { name: 'files', connection: v.connection } });
  });

  it('is filled in with an HTTP server’s URL, headers (a secret reference as written) and OAuth client', () => {
    const v: McpServerView = {
      bundleId: 'b',
      name: 'github',
      connection: { transport: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${secret:GH}', 'X-Team': MCP_HIDDEN_VALUE }, oauthClient: { clientId: 'Iv1.abc', clientSecret: '${secret:GH_APP}', redirectPort: 33418 } },
      ...limits,
      status,
    };
    const f = formFromView(v);
    expect(f).toMatchObject({ mode: 'http', url: 'https://api.example.com/mcp', headers: `Authorization: Bearer \${secret:GH}\nX-Team: ${MCP_HIDDEN_VALUE}`, oauthClientId: 'Iv1.abc', oauthClientSecret: '${secret:GH_APP}', oauthRedirectPort: '33418' });
    expect(formToInput(f)).toEqual({ input: { name: 'github', connection: v.connection } });
  });

  it('says each problem on its field: the form’s own checks and the core’s refusals', () => {
    expect(formToInput({ ...EMPTY_FORM, mode: 'stdio', command: ' ' })).toEqual({ error: 'Command: required', field: 'command' });
    expect(formToInput({ ...EMPTY_FORM, mode: 'stdio', command: 'x', env: 'NOEQUALS' })).toMatchObject({ field: 'env' });
    expect(formToInput({ ...EMPTY_FORM, mode: 'http', url: '' })).toMatchObject({ field: 'url' });
    expect(formToInput({ ...EMPTY_FORM, mode: 'http', url: 'https://x', headers: 'no colon' })).toMatchObject({ field: 'headers' });
    const issue = (path: string) => ({ issues: [{ path, message: 'm' }] });
    const fieldOf = (path: string) => serverFieldError(issue(path))?.field ?? null;
    expect(serverFieldError({ issues: [{ path: 'server.connection.url', message: 'must be an http:// or https:// URL' }] })).toEqual({ field: 'url', error: 'must be an http:// or https:// URL' });
    expect(fieldOf('connection.env.OTHER_NAME')).toBe('env');
    expect(fieldOf('server.connection.headers.Authorization')).toBe('headers');
    expect(fieldOf('server.connection.args.2')).toBe('args');
    expect(fieldOf('server.name')).toBe('name');
    expect(fieldOf('server.connection.oauthClient.redirectPort')).toBe('oauthRedirectPort');
    expect(fieldOf('server.connection.oauthClient.clientId')).toBe('oauthClientId');
    // Not a field of the form (or no issues): said for the whole form.
    expect(fieldOf('server.maxRestarts')).toBeNull();
    expect(serverFieldError(undefined)).toBeNull();
    expect(serverFieldError({ field: 'url' })).toBeNull();
  });
});
