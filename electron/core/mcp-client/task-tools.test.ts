/**
 * MCP tasks, as a client:
 * - 2025-11-25: tools that run only as MCP tasks (execution.taskSupport: required), called as
 *   tasks when their server offers tasks for tools/call (created, asked after at the server's
 *   pace, the result fetched; a cancel cancels the task), and not brought in, with why, when it
 *   does not;
 * - 2026-07-28 (the tasks extension): a server of the v2 SDK that answers calls with tasks, over
 *   stdio and HTTP: each task asked after (its status a progress report), its result or error
 *   taken from tasks/get, its questions answered with tasks/update, a cancel sent as tasks/cancel.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
// @ts-expect-error -- a plain .mjs test server without types
import { makeTasksServer } from './testing/era-server.mjs';
import { addServer, call, openCore, serverView, slugs, stdioServer, until } from './testing/harness';
import { TASK_REQUIRED } from './tool-sync';

const ERA_SERVER = path.join(import.meta.dirname, 'testing', 'era-server.mjs');
const tempDir = useTempDirs();
const cores: Core[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  for (const c of closers.splice(0).reverse()) await c();
});

async function core(): Promise<Core> {
  const c = await openCore(await tempDir());
  cores.push(c);
  return c;
}

const taskServer = { name: 'Tasks', connection: { transport: 'stdio' as const, command: process.execPath, args: [ERA_SERVER, 'tasks-legacy'] } };

describe('MCP tools and tasks', () => {
  it('runs a task-only tool as a task: created, asked after (each status a progress report), its result fetched', async () => {
    const c = await core();
    const v = await addServer(c, taskServer);
    expect(v.status).toMatchObject({ state: 'connected', skipped: [] });
    expect(slugs(c, v.bundleId)).toEqual(['endless', 'research']);
    expect(c.registry.store.getTool(v.bundleId, 'research', '1').mcp).toMatchObject({ serverTool: 'research', task: 'required' });
    const reports: string[] = [];
    const off = c.dispatcher.onProgress((p) => reports.push(p.message ?? ''));
    try {
      expect(await call(c, v.bundleId, 'research', { topic: 'tides' })).toMatchObject({ ok: true, value: 'report on tides' });
    } finally {
      off();
    }
    expect(reports).toContain('started');
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    const text = (log.ok ? log.value : []).map((l) => l.text).join('\n');
    expect(text).toMatch(/task task-1 of 'research' created \(working\)/);
    expect(text).toMatch(/task task-1 of 'research': completed \(done\)/);
  });

  it('cancels the task on the server when its call is cancelled', async () => {
    const c = await core();
    const v = await addServer(c, taskServer);
    const invocationId = `endless-${Date.now()}`;
    const running = c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'endless', version: '1', args: { topic: 'x' }, source: 'api', invocationId });
    await until(() => c.dispatcher.runningIds().includes(invocationId), 'the call running');
    await new Promise((r) => setTimeout(r, 200));
    expect(c.dispatcher.cancel(invocationId)).toBe(true);
    expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'stderr' && /^task task-\d+ cancelled$/.test(l.text));
    }, 'the server told to cancel the task');
  });

  it('gives up on a task that outlasts its time cap, and cancels it on the server', async () => {
    const c = await core();
    const v = await addServer(c, { ...taskServer, timeouts: { startMs: 5_000, callMs: 200 } });
    expect(await call(c, v.bundleId, 'endless', { topic: 'x' })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'stderr' && /^task task-\d+ cancelled$/.test(l.text));
    }, 'the server told to cancel the task');
  });

  it('a tool that runs only as a task, on a server that offers no tasks, is not brought in, with why; one that may run as a task runs as a plain call', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer('tasks'));
    expect(v.status).toMatchObject({ state: 'connected', skipped: [{ name: 'task_only', reason: TASK_REQUIRED }], missing: [] });
    expect(slugs(c, v.bundleId)).toContain('task-maybe');
    expect(slugs(c, v.bundleId)).not.toContain('task-only');
    expect(await call(c, v.bundleId, 'task-maybe')).toMatchObject({ ok: true, value: 'ran without a task' });
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => l.text === `tool 'task_only' skipped: ${TASK_REQUIRED}`)).toBe(true);
  });

  it('a stored tool the server now runs only as a task (and offers no tasks) is switched off and shown as not brought in (not as missing)', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer());
    expect(await call(c, v.bundleId, 'add-tool', { name: 'later' })).toMatchObject({ ok: true });
    await until(() => slugs(c, v.bundleId).includes('later'), 'the new tool stored');
    expect(c.registry.store.getTool(v.bundleId, 'later', '1').isEnabled).toBe(true);
    expect(await call(c, v.bundleId, 'add-tool', { name: 'later', taskSupport: 'required' })).toMatchObject({ ok: true });
    await until(async () => (await serverView(c, v.bundleId)).status.skipped.length > 0, 'the list read again');
    expect((await serverView(c, v.bundleId)).status).toMatchObject({ skipped: [{ name: 'later', reason: TASK_REQUIRED }], missing: [] });
    expect(c.registry.store.getTool(v.bundleId, 'later', '1').isEnabled).toBe(false);
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => /^tool 'later' switched off: the server now runs it only as an MCP task/.test(l.text))).toBe(true);
    expect(slugs(c, v.bundleId).filter((s) => s === 'later')).toHaveLength(1);
  });
});

const modernStdio = { name: 'Tasks 2026', connection: { transport: 'stdio' as const, command: process.execPath, args: [ERA_SERVER, 'tasks-modern'] } };

/** The 2026 tasks server over HTTP (in this process), with the Mcp-Method and Mcp-Name headers of each task request it got. */
async function modernHttp(): Promise<{ url: string; taskHeaders: { method: string; name: string; taskId: string }[] }> {
  const handler = createMcpHandler(() => makeTasksServer());
  const node = toNodeHandler(handler);
  const taskHeaders: { method: string; name: string; taskId: string }[] = [];
  const server = http.createServer((req, res) => {
    const method = String(req.headers['mcp-method'] ?? '');
    if (!method.startsWith('tasks/')) return void node(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      taskHeaders.push({ method, name: String(req.headers['mcp-name'] ?? ''), taskId: String((JSON.parse(body.toString('utf8')) as { params?: { taskId?: string } }).params?.taskId) });
      void node(req, res, JSON.parse(body.toString('utf8')));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, taskHeaders };
}

async function logText(c: Core, bundleId: string): Promise<string> {
  const log = await c.call('mcpServers.log', { bundleId });
  return (log.ok ? log.value : []).map((l) => l.text).join('\n');
}

describe('MCP tasks at 2026-07-28 (the tasks extension)', () => {
  it('follows a call the server answers with a task: asked after (each status a progress report), its result from tasks/get', async () => {
    const c = await core();
    const v = await addServer(c, modernStdio);
    expect(v.status).toMatchObject({ state: 'connected', skipped: [] });
    expect(slugs(c, v.bundleId)).toEqual(['ask', 'broken', 'echo', 'endless', 'research']);
    const reports: string[] = [];
    const off = c.dispatcher.onProgress((p) => reports.push(p.message ?? ''));
    try {
      expect(await call(c, v.bundleId, 'research', { topic: 'tides' })).toMatchObject({ ok: true, value: 'report on tides' });
    } finally {
      off();
    }
    expect(reports.slice(0, 2)).toEqual(['started', 'step 1']);
    const text = await logText(c, v.bundleId);
    expect(text).toContain('MCP 2026-07-28 (stateless)');
    expect(text).toMatch(/task mtask-\d+ of 'research' created \(working\)/);
    expect(text).toMatch(/task mtask-\d+ of 'research': completed \(done\)/);
    // A call the server answers at once stays a plain call.
    expect(await call(c, v.bundleId, 'echo', { topic: 'hi' })).toMatchObject({ ok: true, value: 'hi (no task)' });
  });

  it('cancels the task on the server when its call is cancelled (tasks/cancel), and says so in the log', async () => {
    const c = await core();
    const v = await addServer(c, modernStdio);
    const invocationId = `endless-${Date.now()}`;
    const running = c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'endless', version: '1', args: { topic: 'x' }, source: 'api', invocationId });
    await until(async () => /task mtask-\d+ of 'endless' created/.test(await logText(c, v.bundleId)), 'the task created');
    expect(c.dispatcher.cancel(invocationId)).toBe(true);
    expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'stderr' && /^task mtask-\d+ cancelled$/.test(l.text));
    }, 'the server told to cancel the task');
    expect(await logText(c, v.bundleId)).toMatch(/task mtask-\d+ of 'endless' cancelled \(/);
  });

  it('gives up on a task that outlasts its time cap, and cancels it on the server', async () => {
    const c = await core();
    const v = await addServer(c, { ...modernStdio, timeouts: { startMs: 5_000, callMs: 200 } });
    expect(await call(c, v.bundleId, 'endless', { topic: 'x' })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'stderr' && /^task mtask-\d+ cancelled$/.test(l.text));
    }, 'the server told to cancel the task');
  });

  it('a task that fails gives its JSON-RPC error; a task that asks the user is answered with tasks/update', async () => {
    const c = await core();
    const detach = c.attachWindow();
    closers.push(async () => detach());
    const v = await addServer(c, modernStdio);
    expect(await call(c, v.bundleId, 'broken', { topic: 'x' })).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringContaining('the back end is down') } });
    const running = call(c, v.bundleId, 'ask', { topic: 'x' });
    let id = '';
    await until(async () => {
      const r = await c.call('mcpElicitations.list', {});
      id = r.ok && r.value[0] ? r.value[0].id : '';
      return id !== '';
    }, 'the task\'s question waiting');
    const listed = await c.call('mcpElicitations.list', {});
    expect(listed.ok && listed.value[0]).toMatchObject({ bundleId: v.bundleId, tool: 'ask', message: 'Who is asking?' });
    expect(await c.call('mcpElicitations.respond', { id, action: 'accept', content: { name: 'Ada' } })).toMatchObject({ ok: true });
    expect(await running).toMatchObject({ ok: true, value: 'hello Ada' });
    expect(await logText(c, v.bundleId)).toMatch(/task mtask-\d+ of 'ask': answered who/);
  });

  it('over HTTP: the task followed and cancelled, each task request naming its task in Mcp-Name', async () => {
    const c = await core();
    const { url, taskHeaders } = await modernHttp();
    const v = await addServer(c, { name: 'Tasks 2026 http', connection: { transport: 'http', url } });
    expect(v.status).toMatchObject({ state: 'connected' });
    expect(await call(c, v.bundleId, 'research', { topic: 'tides' })).toMatchObject({ ok: true, value: 'report on tides' });
    const invocationId = `endless-${Date.now()}`;
    const running = c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'endless', version: '1', args: { topic: 'x' }, source: 'api', invocationId });
    await until(async () => /task mtask-\d+ of 'endless' created/.test(await logText(c, v.bundleId)), 'the task created');
    expect(c.dispatcher.cancel(invocationId)).toBe(true);
    expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    await until(() => taskHeaders.some((h) => h.method === 'tasks/cancel'), 'tasks/cancel sent');
    expect(taskHeaders.length).toBeGreaterThanOrEqual(4);
    for (const h of taskHeaders) expect(h.name).toBe(h.taskId);
  });
});
