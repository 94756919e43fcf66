/**
 * OAuth 2.1 sign-in to a Streamable HTTP server, through the SDK's auth support, against an
 * authorization server of our own on 127.0.0.1 (discovery, dynamic client registration, PKCE).
 * The "browser" follows the sign-in page's redirect to the app's loopback listener.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { startHttpTestServer, type HttpTestServer } from './testing/http-test-server';
import { oauthTestServer } from './testing/oauth-server';
import { addServer, call, openCore, serverView } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A browser that approves at once: opens the page and follows its redirect back to the app. */
const opened: string[] = [];
async function browser(url: string): Promise<void> {
  opened.push(url);
  const r = await fetch(url, { redirect: 'manual' });
  const back = r.headers.get('location');
  if (back) await fetch(back);
}

describe('OAuth sign-in to an MCP server', () => {
  it('registers a client, signs in with PKCE, keeps the tokens in the secret store, and uses them after a restart', async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const dataDir = await tempDir();
    const core = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(core);
    opened.length = 0;
    const v = await addServer(core, { name: 'Signed', connection: { transport: 'http', url: server.url } });
    expect(v.status.state).toBe('connected');
    expect(oauth.registered).toHaveLength(1);
    expect(oauth.tokensIssued).toBe(1);
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0]!).searchParams.get('code_challenge_method')).toBe('S256');
    expect(await call(core, v.bundleId, 'echo', { text: 'signed in' })).toMatchObject({ ok: true, value: 'signed in' });
    // The client and the tokens are secrets bound to the server's host; their values never show.
    const names = core.secrets.list().map((s) => s.name);
    expect(names.filter((n) => n.startsWith('mcp-oauth.'))).toHaveLength(2);
    expect(core.secrets.list().find((s) => s.name.endsWith('.tokens'))!.hosts).toContain('127.0.0.1');
    const log = await core.call('mcpServers.log', { bundleId: v.bundleId });
    expect(JSON.stringify(log)).not.toMatch(/at-[0-9a-f-]{36}/);
    await core.close();
    cores.splice(0);

    // After a restart the saved tokens are used: no new sign-in, no new registration.
    const again = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(again);
    expect(await call(again, v.bundleId, 'echo', { text: 'still signed in' })).toMatchObject({ ok: true, value: 'still signed in' });
    expect(opened).toHaveLength(1);
    expect(oauth.registered).toHaveLength(1);
  });

  it('a refused sign-in fails the server with the reason; a restart signs in again', async () => {
    const oauth = oauthTestServer();
    oauth.denyNext = true;
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Denied', connection: { transport: 'http', url: server.url } });
    expect(v.status).toMatchObject({ state: 'failed', reason: 'the sign-in was refused: access_denied' });
    expect(oauth.tokensIssued).toBe(0);
    const r = await core.call('mcpServers.restart', { bundleId: v.bundleId });
    expect(r).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
    expect(oauth.tokensIssued).toBe(1);
    // Removing the server removes its sign-in.
    await core.call('mcpServers.remove', { bundleId: v.bundleId });
    expect(core.secrets.list().filter((s) => s.name.startsWith('mcp-oauth.'))).toEqual([]);
  });
});
