import { describe, expect, it } from 'vitest';
import { McpServerInputSchema } from '../../../../shared/model/mcp-client';
import { EMPTY_FORM, formToInput } from './mcp-form';

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
    expect(formToInput({ ...http, oauthClientId: 'app', oauthRedirectPort: '80' })).toEqual({ error: 'Redirect port: a whole number from 1024 to 65535' });
    expect(formToInput({ ...http, oauthClientId: 'app', oauthRedirectPort: 'abc' })).toHaveProperty('error');
  });

  it('a client secret typed as a value is stopped on the form: it never leaves the window', () => {
    expect(formToInput({ ...http, oauthClientId: 'app', oauthClientSecret: 'gho_plainvalue' })).toEqual({ error: expect.stringMatching(/^OAuth client secret: write \$\{secret:NAME\}/) as unknown });
  });
});
