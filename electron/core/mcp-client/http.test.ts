/** MCP servers over Streamable HTTP on 127.0.0.1, as bundles. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { startHttpTestServer, type HttpTestServer } from './testing/http-test-server';
import { addServer, call, openCore, serverView, slugs, until } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function setup(opts: Parameters<typeof startHttpTestServer>[0] = {}, mcpClient?: Parameters<typeof openCore>[1]) {
  const server = await startHttpTestServer(opts);
  servers.push(server);
  const core = await openCore(await tempDir(), mcpClient);
  cores.push(core);
  return { server, core };
}

describe('an MCP server over Streamable HTTP as a bundle', () => {
  it('lists and calls its tools, with a header secret sent only to the host it is bound to', async () => {
    const { server, core } = await setup({ authorize: (req) => req.headers.authorization === 'Bearer s3cret-token' });
    await core.secrets.set('MCP_TOKEN', 's3cret-token', ['127.0.0.1']);
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url, headers: { Authorization: 'Bearer ${secret:MCP_TOKEN}' } } });
    expect(v.status.state).toBe('connected');
    // The view shows the placeholder, never the value.
    expect(v.connection).toMatchObject({ headers: { Authorization: 'Bearer ${secret:MCP_TOKEN}' } });
    expect(slugs(core, v.bundleId)).toContain('echo');
    expect(await call(core, v.bundleId, 'add-numbers', { a: 1, b: 2 })).toMatchObject({ ok: true, value: { sum: 3 } });
    expect(server.calls).toEqual(['add_numbers']);
  });

  it('refuses to send a secret to a host it is not bound to: the server is failed with why, no request made', async () => {
    const { server, core } = await setup();
    await core.secrets.set('OTHER_TOKEN', 'not-for-you', ['api.example.com']);
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url, headers: { Authorization: 'Bearer ${secret:OTHER_TOKEN}' } } });
    expect(v.status.state).toBe('failed');
    expect(v.status.reason).toMatch(/OTHER_TOKEN/);
    expect(server.requests).toEqual([]);
  });

  it('a server that answers 401 without OAuth metadata is failed with why', async () => {
    const { server, core } = await setup({ authorize: () => false });
    const v = await addServer(core, { name: 'Locked', connection: { transport: 'http', url: server.url } });
    expect(v.status).toMatchObject({ state: 'failed' });
    expect(v.status.reason).toMatch(/^it asks for authorization \(HTTP 401\) and an OAuth sign-in could not start: /);
  });

  it('a server that offers no tools is connected with none, and is not asked for its tools', async () => {
    const { server, core } = await setup({ mode: 'no-tools' });
    const v = await addServer(core, { name: 'Prompts only', connection: { transport: 'http', url: server.url } });
    expect(v.status).toMatchObject({ state: 'connected' });
    expect(slugs(core, v.bundleId)).toEqual([]);
    // The server's row says why it has no tools.
    expect(v.status.noTools).toMatch(/^the server offers no tools: it does not declare the tools capability/);
    expect(server.rpc).toContain('initialize');
    expect(server.rpc).not.toContain('tools/list');
  });

  it('a call whose answer stream the server closes is resumed (Last-Event-ID) and answered, the server left connected', async () => {
    const { server, core } = await setup({ mode: 'resume' });
    const v = await addServer(core, { name: 'Resumable', connection: { transport: 'http', url: server.url } });
    expect(await call(core, v.bundleId, 'resume-echo', { text: 'after a break' })).toMatchObject({ ok: true, value: 'after a break' });
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
    // The answer came on a GET that resumed the stream where it stopped.
    expect(server.requests.some((r) => r.method === 'GET' && typeof r.headers['last-event-id'] === 'string')).toBe(true);
    // An answer that takes longer than the wait for a resume: the resumed stream is open, so it is waited for.
    expect(await call(core, v.bundleId, 'resume-echo', { text: 'much later', ms: 5_600 })).toMatchObject({ ok: true, value: 'much later' });
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
  });

  it('refreshes tools on notifications/tools/list_changed', async () => {
    const { core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: (servers[0] as HttpTestServer).url } });
    expect(await call(core, v.bundleId, 'add-tool', { name: 'late_tool' })).toMatchObject({ ok: true });
    await until(() => slugs(core, v.bundleId).includes('late-tool'), 'the new tool stored');
  });

  it('an answer over the size limit is a clear error; the next call works', async () => {
    const { server, core } = await setup({}, { backoffMs: 5, maxMessageBytes: 2 * 1024 * 1024 });
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    const big = await call(core, v.bundleId, 'big', { mb: 50 });
    expect(big).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((big as { error: { message: string } }).error.message).toMatch(/larger than 2 MB/);
    expect(await call(core, v.bundleId, 'echo', { text: 'after' })).toMatchObject({ ok: true, value: 'after' });
  }, 90_000);

  it('one event over the size limit on the GET event stream: reading stops near the limit, the server shows why, the next call reconnects', async () => {
    const limit = 1024 * 1024;
    const { server, core } = await setup({ hugeEvent: 128 * limit }, { backoffMs: 5, maxMessageBytes: limit });
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    await until(() => server.hugeEvent.done, 'the event stream ended');
    // The client stopped reading: what the server wrote is the limit and what the sockets buffer, not the event.
    expect(server.hugeEvent.cut).toBe(true);
    expect(server.hugeEvent.written).toBeLessThan(48 * limit);
    await until(async () => (await serverView(core, v.bundleId)).status.state === 'failed', 'the server shown failed');
    expect((await serverView(core, v.bundleId)).status.reason).toMatch(/^the server sent an event larger than 1 MB on its event stream \(HTTP GET\)/);
    const log = await core.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => l.stream === 'event' && /failed: the server sent an event larger than 1 MB on its event stream/.test(l.text))).toBe(true);
    // Started again (its event stream is an ordinary one now), it lists its tools and answers.
    expect(await core.call('mcpServers.restart', { bundleId: v.bundleId })).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    expect(await call(core, v.bundleId, 'echo', { text: 'after' })).toMatchObject({ ok: true, value: 'after' });
  }, 60_000);

  it('a server that goes away mid-call: a clear error; back on its port, the next call reconnects', async () => {
    const { server, core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    const died = await call(core, v.bundleId, 'die');
    expect(died).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    await server.stop();
    servers.splice(0);
    const down = await call(core, v.bundleId, 'echo', { text: 'x' });
    expect(down).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect((down as { error: { message: string } }).error.message).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+/);
    expect((await serverView(core, v.bundleId)).status.state).toBe('failed');
    servers.push(await startHttpTestServer({ port: server.port }));
    expect(await call(core, v.bundleId, 'echo', { text: 'back' })).toMatchObject({ ok: true, value: 'back' });
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
  });

  it('a late answer over the size limit, to a call that timed out, is cut off and dropped: the call in flight and the next succeed', async () => {
    const { server, core } = await setup({ mode: 'late' }, { backoffMs: 5, maxMessageBytes: 1024 * 1024 });
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url }, timeouts: { startMs: 30_000, callMs: 2_000 } });
    expect(await call(core, v.bundleId, 'late-big', { mb: 20 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    // The server sends the 20 MB answer of the call that timed out, and answers this one once the client stopped reading that.
    expect(await call(core, v.bundleId, 'echo', { text: 'in flight' })).toMatchObject({ ok: true, value: 'in flight' });
    expect(server.late).toEqual({ closed: true, cut: true });
    expect(await call(core, v.bundleId, 'echo', { text: 'next' })).toMatchObject({ ok: true, value: 'next' });
    expect((await serverView(core, v.bundleId)).status).toMatchObject({ state: 'connected', restarts: 0 });
    const log = await core.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.filter((l) => /^an answer over the 1 MB limit to a request no call waits for any more \(it timed out or was cancelled\) was dropped/.test(l.text))).toHaveLength(1);
  }, 60_000);
});

describe('an HTTP MCP server that no longer knows our session (it restarted)', () => {
  async function logText(core: Core, bundleId: string): Promise<string> {
    const log = await core.call('mcpServers.log', { bundleId });
    return (log.ok ? log.value : []).map((l) => l.text).join('\n');
  }

  it('forgot it: the next call starts a new session (initialize again) and is sent again, once; the log says so', async () => {
    const { server, core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    expect(await call(core, v.bundleId, 'echo', { text: 'before' })).toMatchObject({ ok: true, value: 'before' });
    server.forgetSessions();
    expect(await call(core, v.bundleId, 'echo', { text: 'after' })).toMatchObject({ ok: true, value: 'after' });
    expect(server.rpc.filter((m) => m === 'initialize')).toHaveLength(2);
    // The refused call never ran; it ran once on the new session.
    expect(server.calls).toEqual(['echo', 'echo']);
    expect((await serverView(core, v.bundleId)).status).toMatchObject({ state: 'connected', restarts: 0 });
    expect(await logText(core, v.bundleId)).toMatch(/the server no longer knows our session \(HTTP 404 to tools\/call echo; it restarted\?\): a new session is started/);
  });

  it('forgot it: calls made together are all sent again on one new session, each run once', async () => {
    const { server, core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    server.forgetSessions();
    const [a, b, c] = await Promise.all([call(core, v.bundleId, 'echo', { text: 'a' }), call(core, v.bundleId, 'echo', { text: 'b' }), call(core, v.bundleId, 'add-numbers', { a: 1, b: 1 })]);
    expect([a, b, c]).toMatchObject([
      { ok: true, value: 'a' },
      { ok: true, value: 'b' },
      { ok: true, value: { sum: 2 } },
    ]);
    expect(server.rpc.filter((m) => m === 'initialize')).toHaveLength(2);
    expect([...server.calls].sort()).toEqual(['add_numbers', 'echo', 'echo']);
    expect((await serverView(core, v.bundleId)).status).toMatchObject({ state: 'connected', restarts: 0 });
  });

  it('stopped and started again on the same port: the next call succeeds on a new session', async () => {
    const { server, core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    expect(await call(core, v.bundleId, 'echo', { text: 'before' })).toMatchObject({ ok: true });
    await server.stop();
    servers.splice(0);
    // Once the client saw its event stream cut (a real restart takes longer than this test's).
    await until(async () => /SSE stream disconnected/.test(await logText(core, v.bundleId)), 'the event stream seen cut');
    const again = await startHttpTestServer({ port: server.port });
    servers.push(again);
    expect(await call(core, v.bundleId, 'add-numbers', { a: 2, b: 5 })).toMatchObject({ ok: true, value: { sum: 7 } });
    expect(again.rpc).toContain('initialize');
    expect(again.calls).toEqual(['add_numbers']);
  });

  it('a server that answers 400 "No valid session ID provided" (as the SDK examples do) is given a new session too', async () => {
    const { server, core } = await setup({ unknownSession: 400 });
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    server.forgetSessions();
    expect(await call(core, v.bundleId, 'echo', { text: 'after' })).toMatchObject({ ok: true, value: 'after' });
    expect(server.rpc.filter((m) => m === 'initialize')).toHaveLength(2);
  });

  it('tools/list on a forgotten session is listed again on a new one', async () => {
    const { server, core } = await setup();
    const v = await addServer(core, { name: 'Remote', connection: { transport: 'http', url: server.url } });
    // The tool is added, the server says its list changed, and forgets the session as the list is asked for.
    server.forgetSessions('tools/list');
    expect(await call(core, v.bundleId, 'add-tool', { name: 'late_tool' })).toMatchObject({ ok: true });
    await until(() => slugs(core, v.bundleId).includes('late-tool'), 'the new tool stored');
    expect(server.rpc.filter((m) => m === 'initialize')).toHaveLength(2);
    expect(await logText(core, v.bundleId)).toMatch(/HTTP 404 to tools\/list/);
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
  });
});
