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
});
