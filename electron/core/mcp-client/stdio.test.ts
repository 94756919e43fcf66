/**
 * MCP servers over stdio, as bundles: a real server process (testing/test-server.mjs) started
 * by the SDK's transport, called through the dispatcher.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { countAbortControllers } from '../testing/abort-controllers';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, alive, call, openCore, serverView, slugs, stdioServer, until } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
/** Files the test servers write their children's pids to: a child a failing test leaves behind is ended. */
const pidFiles: string[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  for (const f of pidFiles.splice(0)) for (const pid of await childPids(f)) killQuietly(pid);
});

async function core(opts?: Parameters<typeof openCore>[1]): Promise<{ core: Core; dataDir: string }> {
  const dataDir = await tempDir();
  const c = await openCore(dataDir, opts);
  cores.push(c);
  return { core: c, dataDir };
}

/** Starts the server's slow tool, cancels it `afterMs` after it runs, and waits for the server to say it was cancelled. */
async function cancelSlowCall(c: Core, bundleId: string, invocationId: string, afterMs: number): Promise<void> {
  const running = c.dispatcher.invoke({ bundleId, slug: 'slow', version: '1', args: { ms: 30_000 }, source: 'api', invocationId });
  await until(() => c.dispatcher.runningIds().includes(invocationId), 'the call running');
  if (afterMs) await new Promise((r) => setTimeout(r, afterMs));
  expect(c.dispatcher.cancel(invocationId)).toBe(true);
  expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  await until(async () => {
    const log = await c.call('mcpServers.log', { bundleId });
    return log.ok && log.value.some((l) => l.stream === 'stderr' && l.text === 'slow cancelled');
  }, 'the server told of the cancel');
}

describe('an MCP server over stdio as a bundle', () => {
  it('stores its tools as files of a new bundle, with titles, annotations and a destructive tool asking first', async () => {
    const { core: c, dataDir } = await core();
    const v = await addServer(c, stdioServer());
    expect(v.status).toMatchObject({ state: 'connected', restarts: 0, serverInfo: { name: 'toolsmith-test-server' }, skipped: [] });
    expect(slugs(c, v.bundleId)).toEqual(['add-numbers', 'add-tool', 'big', 'delete-everything', 'die', 'echo', 'fail', 'picture', 'read-resource', 'slow', 'whoami']);
    const echo = c.registry.store.getTool(v.bundleId, 'echo', '1');
    expect(echo).toMatchObject({ type: 'mcp', displayName: 'Echo text', mcp: { serverTool: 'echo', title: 'Echo text', annotations: { readOnlyHint: true } }, isEnabled: true });
    // draft-07's $schema is read as 2020-12.
    expect(echo.argSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(echo.requiresApproval).toBeUndefined();
    expect(c.registry.store.getTool(v.bundleId, 'delete-everything', '1')).toMatchObject({ requiresApproval: true, mcp: { annotations: { destructiveHint: true } } });
    // Files are the truth: the bundle, its tools and the server's config are on disk.
    const bundleDir = path.join(dataDir, 'bundles', v.bundleId);
    expect((await fs.readdir(path.join(bundleDir, 'tools'))).length).toBe(11);
    const config = JSON.parse(await fs.readFile(path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`), 'utf8'));
    expect(config).toMatchObject({ version: 1, bundleId: v.bundleId, server: { name: 'Test normal', connection: { transport: 'stdio' } } });
    expect((await fs.stat(path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`))).mode & 0o777).toBe(0o600);
    // Its stderr is kept in its log.
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'stderr' && /test server starting in mode normal/.test(l.text));
    }, 'the stderr line logged');
  });

  it('calls tools through the dispatcher: arguments checked first, results mapped, usage counted', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('normal', {}, { MCP_TEST_VALUE: 'from-env' }));
    expect(await call(c, v.bundleId, 'echo', { text: 'hello' })).toMatchObject({ ok: true, value: 'hello' });
    expect(await call(c, v.bundleId, 'add-numbers', { a: 2, b: 3 })).toMatchObject({ ok: true, value: { sum: 5 } });
    // Refused by our validation: the server never sees the call.
    const bad = await call(c, v.bundleId, 'echo', { text: 42 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    const picture = await call(c, v.bundleId, 'picture');
    expect(picture).toMatchObject({
      ok: true,
      value: { content: [{ type: 'text', text: 'a pixel' }, { type: 'image', mimeType: 'image/png', bytes: 70 }, { type: 'resource_link', uri: 'file:///tmp/pixel.png', name: 'pixel.png' }] },
    });
    expect(((picture as { value: { content: { dataUrl?: string }[] } }).value.content[1]!.dataUrl ?? '').startsWith('data:image/png;base64,iVBOR')).toBe(true);
    expect(await call(c, v.bundleId, 'read-resource')).toMatchObject({ ok: true, value: { content: [{ type: 'resource', uri: 'memo://notes', text: 'the notes' }] } });
    expect(await call(c, v.bundleId, 'fail')).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: 'fail reported an error: the widget is out of stock' } });
    const who = await call(c, v.bundleId, 'whoami');
    expect(JSON.parse((who as { value: string }).value)).toMatchObject({ env: 'from-env', cwd: c.workspaceDir() });
    // Both echo calls are counted (the refused one too, as for any tool) and logged.
    expect(c.registry.store.usage(c.registry.store.getTool(v.bundleId, 'echo', '1').id).callCount).toBe(2);
  });

  it('refreshes the tools when the server says they changed', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer());
    expect(await call(c, v.bundleId, 'add-tool', { name: 'fresh_tool' })).toMatchObject({ ok: true });
    await until(() => slugs(c, v.bundleId).includes('fresh-tool'), 'the new tool stored');
    expect(await call(c, v.bundleId, 'fresh-tool')).toMatchObject({ ok: true, value: 'ran fresh_tool' });
  });

  it('skips a tool whose schema is invalid, reports why, and keeps the others', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('invalid'));
    expect(v.status.state).toBe('connected');
    expect(v.status.skipped.map((s) => s.name).sort()).toEqual(['bad_ref', 'bad_schema']);
    expect(v.status.skipped.find((s) => s.name === 'bad_schema')!.reason).toMatch(/inputSchema is not a valid JSON Schema/);
    expect(v.status.skipped.find((s) => s.name === 'bad_ref')!.reason).toMatch(/\$ref that cannot be resolved/);
    expect(slugs(c, v.bundleId)).toHaveLength(11);
    expect(await call(c, v.bundleId, 'echo', { text: 'still works' })).toMatchObject({ ok: true, value: 'still works' });
  });

  it('tolerates junk on stdout: the junk is logged, the calls work', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('junk'));
    expect(v.status.state).toBe('connected');
    expect(await call(c, v.bundleId, 'echo', { text: 'through the junk' })).toMatchObject({ ok: true, value: 'through the junk' });
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => l.stream === 'stdout' && /not an MCP message/.test(l.text)), JSON.stringify(log.ok && log.value)).toBe(true);
    // The line itself is quoted.
    expect(log.ok && log.value.some((l) => l.stream === 'stdout' && l.text.includes('the line: "this is not JSON-RPC"')), JSON.stringify(log.ok && log.value.map((l) => l.text))).toBe(true);
  });

  it('gives up on a server that never answers initialize, keeps its bundle and says why', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('hang', { timeouts: { startMs: 3_000, callMs: 5_000 } }));
    expect(v.status).toMatchObject({ state: 'failed', reason: 'it did not answer initialize within 3000 ms' });
    expect(c.registry.store.bundleById(v.bundleId)).toMatchObject({ isEnabled: true });
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    // Its process is ended at once (not left to the SDK's close, which a closing app may not wait for).
    const text = (log.ok ? log.value : []).map((l) => l.text).join('\n');
    const pid = Number(/process (\d+) started/.exec(text)?.[1]);
    expect(text, text).toContain(`process ${pid} ended (SIGKILL)`);
    await until(() => !alive(pid), 'the hanging server ended');
  });

  it('a server whose command does not exist is failed with the reason; nothing else is affected', async () => {
    const { core: c } = await core();
    const good = await addServer(c, stdioServer());
    const v = await addServer(c, { name: 'Missing', connection: { transport: 'stdio', command: 'no-such-mcp-server-command-xyz', args: [] } });
    expect(v.status).toMatchObject({ state: 'failed', reason: "the command 'no-such-mcp-server-command-xyz' was not found (is it installed and on PATH?)" });
    expect(await call(c, good.bundleId, 'echo', { text: 'fine' })).toMatchObject({ ok: true, value: 'fine' });
  });

  it('a 50 MB answer is a clear error; the server restarts and the next call works', async () => {
    const { core: c } = await core({ backoffMs: 5, maxMessageBytes: 4 * 1024 * 1024 });
    const v = await addServer(c, stdioServer());
    const big = await call(c, v.bundleId, 'big', { mb: 50 });
    expect(big).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((big as { error: { message: string } }).error.message).toMatch(/larger than 4 MB/);
    expect(await call(c, v.bundleId, 'echo', { text: 'after' })).toMatchObject({ ok: true, value: 'after' });
    // A smaller answer passes.
    const ok = await call(c, v.bundleId, 'big', { mb: 1 });
    expect(ok.ok && (ok.value as string).length).toBe(1024 * 1024);
  }, 90_000);

  it('a message over the size limit fails the waiting call at once with the limit, every time (10 runs; a child of the server holds its stdout open)', async () => {
    const { core: c, dataDir } = await core({ backoffMs: 5, maxMessageBytes: 1024 * 1024 });
    const pidFile = path.join(dataDir, 'children.txt');
    pidFiles.push(pidFile);
    // A call deadline far past the test's own: a timeout cannot pass for the size error.
    const v = await addServer(c, stdioServer('normal', { timeouts: { startMs: 60_000, callMs: 3_600_000 } }, { MCP_TEST_CHILD: 'stdout', MCP_TEST_PID_FILE: pidFile }));
    for (let i = 0; i < 10; i++) {
      if (i > 0) expect(await c.call('mcpServers.restart', { bundleId: v.bundleId })).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
      const big = await call(c, v.bundleId, 'big', { mb: 1.5 + i / 2 });
      expect(big).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/failed during tools\/call big: the server sent a message larger than 1 MB/) } });
      expect((await serverView(c, v.bundleId)).status).toMatchObject({ state: 'failed', reason: expect.stringMatching(/larger than 1 MB/) });
    }
    // Each server's child was ended with it.
    const children = await childPids(pidFile);
    expect(children).toHaveLength(10);
    for (const pid of children) await expectEnded(pid, 'the child of a server that sent too much');
  }, 120_000);

  it('a tools/list over the size limit fails the server with the limit, never "connected" with no tools (5 runs)', async () => {
    const { core: c, dataDir } = await core({ backoffMs: 5, maxMessageBytes: 1024 * 1024 });
    const pidFile = path.join(dataDir, 'children.txt');
    pidFiles.push(pidFile);
    const env = { MCP_TEST_LIST_MB: '3', MCP_TEST_CHILD: 'stdout', MCP_TEST_PID_FILE: pidFile };
    const v = await addServer(c, stdioServer('normal', { timeouts: { startMs: 60_000, callMs: 3_600_000 } }, env));
    const failedWithLimit = { state: 'failed', reason: expect.stringMatching(/^the server sent a message larger than 1 MB/) };
    expect(v.status).toMatchObject(failedWithLimit);
    for (let i = 0; i < 4; i++) {
      const r = await c.call('mcpServers.restart', { bundleId: v.bundleId });
      expect(r).toMatchObject({ ok: true, value: { status: failedWithLimit } });
    }
    expect(slugs(c, v.bundleId)).toEqual([]);
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.filter((l) => /^tools\/list failed: .*larger than 1 MB/.test(l.text))).toHaveLength(5);
  }, 120_000);

  it('removing a server, switching its bundle off and closing the app end the children it started too', async () => {
    const { core: c, dataDir } = await core();
    const pidFile = path.join(dataDir, 'children.txt');
    pidFiles.push(pidFile);
    // Each server starts a child, as npx or uvx start the real server.
    const env = { MCP_TEST_CHILD: 'quiet', MCP_TEST_PID_FILE: pidFile };
    const removed = await addServer(c, stdioServer('normal', {}, env));
    const off = await addServer(c, stdioServer('normal', {}, env));
    const closed = await addServer(c, stdioServer('normal', {}, env));
    const children = await childPids(pidFile);
    expect(children).toHaveLength(3);
    const [ofRemoved, ofOff, ofClosed] = children as [number, number, number];
    for (const pid of children) expect(await ended(pid)).toBe(false);
    expect(await c.call('mcpServers.remove', { bundleId: removed.bundleId })).toMatchObject({ ok: true });
    await expectEnded(ofRemoved, 'the child of the removed server');
    expect(await ended(ofOff)).toBe(false);
    await c.call('bundles.patch', { bundleId: off.bundleId, isEnabled: false });
    await expectEnded(ofOff, 'the child of the server switched off');
    expect((await serverView(c, closed.bundleId)).status.state).toBe('connected');
    await c.close();
    await expectEnded(ofClosed, 'the child of a server when the app closed');
  }, 60_000);

  it('a server that dies mid-call: that call fails clearly, the next one restarts it', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer());
    const pid = (await serverView(c, v.bundleId)).status.pid!;
    const died = await call(c, v.bundleId, 'die');
    expect(died).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect((died as { error: { message: string } }).error.message).toMatch(/process ended during tools\/call die.*restarts on the next call/);
    expect((await serverView(c, v.bundleId)).status.state).toBe('failed');
    expect(await call(c, v.bundleId, 'echo', { text: 'again' })).toMatchObject({ ok: true, value: 'again' });
    const after = await serverView(c, v.bundleId);
    expect(after.status).toMatchObject({ state: 'connected', restarts: 1 });
    expect(after.status.pid).not.toBe(pid);
    // The tools were never rewritten for it.
    expect(slugs(c, v.bundleId)).toHaveLength(11);
  });

  it('restarts a crashing server a bounded number of times; a manual restart starts the count afresh', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('normal', { maxRestarts: 1 }));
    expect(await call(c, v.bundleId, 'die')).toMatchObject({ ok: false });
    expect(await call(c, v.bundleId, 'die')).toMatchObject({ ok: false });
    const refused = await call(c, v.bundleId, 'echo', { text: 'x' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect((refused as { error: { message: string } }).error.message).toMatch(/restarted 1 time\(s\), the most allowed.*restart it on the Tools screen/);
    const r = await c.call('mcpServers.restart', { bundleId: v.bundleId });
    expect(r).toMatchObject({ ok: true, value: { status: { state: 'connected', restarts: 0 } } });
    expect(await call(c, v.bundleId, 'echo', { text: 'back' })).toMatchObject({ ok: true, value: 'back' });
  });

  it('a call past the server timeout is a TIMEOUT and the server stays usable', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer('normal', { timeouts: { startMs: 10_000, callMs: 300 } }));
    const slow = await call(c, v.bundleId, 'slow', { ms: 3_000 });
    expect(slow).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: "the MCP server 'Test normal' did not answer tools/call slow within 300 ms" } });
    expect(await call(c, v.bundleId, 'echo', { text: 'quick' })).toMatchObject({ ok: true, value: 'quick' });
  });

  it('a late answer over the size limit, to a call that timed out, is dropped and logged: the call in flight and the next succeed (id last, id first)', async () => {
    const { core: c } = await core({ backoffMs: 5, maxMessageBytes: 1024 * 1024 });
    for (const idFirst of [false, true]) {
      const v = await addServer(c, stdioServer('late', { timeouts: { startMs: 30_000, callMs: 2_000 } }, idFirst ? { MCP_TEST_ID_FIRST: '1' } : {}));
      const pid = (await serverView(c, v.bundleId)).status.pid;
      expect(await call(c, v.bundleId, 'late-big', { mb: 3 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      // The server first writes the 3 MB answer of the call that timed out, then this call's own.
      expect(await call(c, v.bundleId, 'echo', { text: 'in flight' })).toMatchObject({ ok: true, value: 'in flight' });
      expect(await call(c, v.bundleId, 'echo', { text: 'next' })).toMatchObject({ ok: true, value: 'next' });
      expect((await serverView(c, v.bundleId)).status).toMatchObject({ state: 'connected', restarts: 0, pid });
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      expect(log.ok && log.value.filter((l) => /^a message of 3 MB from the server, over the 1 MB limit, was dropped \(the answer to request \d+, which no call waits for any more/.test(l.text))).toHaveLength(1);
    }
  }, 60_000);

  it('a cancelled call is cancelled on the server too (notifications/cancelled)', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer());
    await cancelSlowCall(c, v.bundleId, '01900000-0000-7000-8000-000000000001', 100);
    expect(await call(c, v.bundleId, 'echo', { text: 'next' })).toMatchObject({ ok: true, value: 'next' });
  });

  it('a quick call makes no AbortSignal', async () => {
    // The watch starts late here, so that "quick" holds on a busy machine too.
    const { core: c } = await core({ backoffMs: 5, cancelWatchAfterMs: 30_000 });
    const v = await addServer(c, stdioServer());
    // Connected first: a call that has to wait for the connection reads its signal.
    expect(await call(c, v.bundleId, 'echo', { text: 'warm' })).toMatchObject({ ok: true });
    // A call that answers before the watch starts never reads its signal.
    const controllers = countAbortControllers();
    try {
      expect(await call(c, v.bundleId, 'echo', { text: 'quick' })).toMatchObject({ ok: true, value: 'quick' });
      expect(controllers.made()).toBe(0);
    } finally {
      controllers.restore();
    }
  });

  it('a call cancelled at once is cancelled on the server too', async () => {
    const { core: c } = await core();
    const v = await addServer(c, stdioServer());
    await cancelSlowCall(c, v.bundleId, '01900000-0000-7000-8000-000000000002', 0);
  });

  it('switching the bundle off stops the process; closing the app leaves no process behind', async () => {
    const { core: c } = await core();
    const a = await addServer(c, stdioServer());
    const b = await addServer(c, stdioServer());
    const pidA = (await serverView(c, a.bundleId)).status.pid!;
    const pidB = (await serverView(c, b.bundleId)).status.pid!;
    expect(alive(pidA) && alive(pidB)).toBe(true);
    await c.call('bundles.patch', { bundleId: a.bundleId, isEnabled: false });
    await until(() => !alive(pidA), 'the switched-off server ended');
    expect((await serverView(c, a.bundleId)).status.state).toBe('stopped');
    expect(await call(c, a.bundleId, 'echo', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect((await serverView(c, a.bundleId)).status.reason).toBe('the bundle was switched off');
    // Switched on again, it no longer says it is off; it starts on the next call.
    await c.call('bundles.patch', { bundleId: a.bundleId, isEnabled: true });
    await until(async () => (await serverView(c, a.bundleId)).status.reason === 'it starts when one of its tools is called', 'the status no longer says off');
    expect(await call(c, a.bundleId, 'echo', { text: 'x' })).toMatchObject({ ok: true });
    expect((await serverView(c, a.bundleId)).status.state).toBe('connected');
    await c.close();
    expect(alive(pidB)).toBe(false);
  });

  it('a server that is gone leaves its bundle and tools in place, shown failed; nothing is rewritten', async () => {
    const dataDir = await tempDir();
    const first = await openCore(dataDir);
    const v = await addServer(first, stdioServer());
    await first.close();
    const toolsDir = path.join(dataDir, 'bundles', v.bundleId, 'tools');
    const before = await snapshot(toolsDir);
    // The server's program disappears.
    const file = path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`);
    const config = JSON.parse(await fs.readFile(file, 'utf8'));
    config.server.connection.command = path.join(dataDir, 'removed-server');
    await fs.writeFile(file, JSON.stringify(config));
    const c = await openCore(dataDir);
    cores.push(c);
    expect(slugs(c, v.bundleId)).toHaveLength(11);
    const r = await call(c, v.bundleId, 'echo', { text: 'x' });
    expect(r).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect((r as { error: { message: string } }).error.message).toMatch(/could not be started: the command '.*removed-server' was not found/);
    expect((await serverView(c, v.bundleId)).status.state).toBe('failed');
    expect(await snapshot(toolsDir)).toEqual(before);
  });

  it('a server that fails at start is reported with the line of its stderr that names the error', async () => {
    const dataDir = await tempDir();
    const first = await openCore(dataDir);
    const v = await addServer(first, stdioServer());
    await first.close();
    // Node is there, the script it runs is not: Node prints a stack, the error first.
    const file = path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`);
    const config = JSON.parse(await fs.readFile(file, 'utf8'));
    config.server.connection.args = [path.join(dataDir, 'gone-server.mjs')];
    await fs.writeFile(file, JSON.stringify(config));
    const c = await openCore(dataDir);
    cores.push(c);
    const r = await call(c, v.bundleId, 'echo', { text: 'x' });
    expect(r).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    const message = (r as { error: { message: string } }).error.message;
    expect(message).toMatch(/its stderr ended with: Error: Cannot find module '.*gone-server\.mjs'/);
    expect(message).toContain('Node.js v');
  });

  it('remove stops the server and takes its config, bundle and tools away', async () => {
    const { core: c, dataDir } = await core();
    const v = await addServer(c, stdioServer());
    const pid = (await serverView(c, v.bundleId)).status.pid!;
    expect(await c.call('mcpServers.remove', { bundleId: v.bundleId })).toMatchObject({ ok: true });
    expect(alive(pid)).toBe(false);
    expect(c.registry.store.toolsOf(v.bundleId)).toEqual([]);
    await expect(fs.stat(path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`))).rejects.toThrow();
    expect((await c.call('mcpServers.list', {})).ok && (await c.call('mcpServers.list', {}))).toMatchObject({ value: [] });
  });

  it('imports an mcpServers JSON: each server a bundle, bad entries refused with why', async () => {
    const { core: c } = await core();
    const text = JSON.stringify({
      mcpServers: {
        notes: { command: process.execPath, args: [path.join(import.meta.dirname, 'testing', 'test-server.mjs')] },
        remote: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
        off: { command: process.execPath, args: ['x'], disabled: true },
      },
    });
    const r = await c.call('mcpServers.import', { text });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.added.map((a) => [a.name, a.status.state])).toEqual([
      ['notes', 'connected'],
      ['off', 'stopped'],
    ]);
    expect(r.value.refused).toEqual([{ name: 'remote', message: expect.stringMatching(/old SSE transport/) }]);
    expect(slugs(c, r.value.added[0]!.bundleId)).toContain('echo');
    expect(c.registry.store.bundleById(r.value.added[1]!.bundleId)).toMatchObject({ isEnabled: false });
    expect(await c.call('mcpServers.import', { text: '{"nothing": 1}' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});

/** The pids of the children the test servers started (MCP_TEST_CHILD), in the order they started. */
async function childPids(file: string): Promise<number[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** The process has ended: no such process, or a zombie waiting for its (new) parent to reap it. */
async function ended(pid: number): Promise<boolean> {
  if (!alive(pid)) return true;
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat !== undefined && /^\S+ \(.*\) Z/s.test(stat);
}

/** Polls until the process has ended, a bounded number of times (the outcome is asserted, not the time). */
async function expectEnded(pid: number, what: string): Promise<void> {
  for (let tries = 0; tries < 1_000; tries++) {
    if (await ended(pid)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect.fail(`${what} (pid ${pid}) is still running`);
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await fs.readdir(dir)) out[f] = await fs.readFile(path.join(dir, f), 'utf8');
  return out;
}
