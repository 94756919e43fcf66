/**
 * MCP tools that run only as MCP tasks (execution.taskSupport: required): called as tasks when
 * their server offers tasks for tools/call (created, asked after at the server's pace, the
 * result fetched; a cancel cancels the task), and not brought in, with why, when it does not.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, serverView, slugs, stdioServer, until } from './testing/harness';
import { TASK_REQUIRED } from './tool-sync';

const ERA_SERVER = path.join(import.meta.dirname, 'testing', 'era-server.mjs');
const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
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
