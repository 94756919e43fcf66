/** MCP tools that run only as MCP tasks (execution.taskSupport: required), which Toolsmith cannot run yet. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, serverView, slugs, stdioServer, until } from './testing/harness';

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

const TASK_REASON = 'it can only run as an MCP task (execution.taskSupport: required), which Toolsmith does not support yet';

describe('MCP tools and tasks', () => {
  it('a tool that runs only as a task is not brought in, with why; one that may run as a task is, and runs as a plain call', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer('tasks'));
    expect(v.status).toMatchObject({ state: 'connected', skipped: [{ name: 'task_only', reason: TASK_REASON }], missing: [] });
    expect(slugs(c, v.bundleId)).toContain('task-maybe');
    expect(slugs(c, v.bundleId)).not.toContain('task-only');
    expect(await call(c, v.bundleId, 'task-maybe')).toMatchObject({ ok: true, value: 'ran without a task' });
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => l.text === `tool 'task_only' skipped: ${TASK_REASON}`)).toBe(true);
  });

  it('a stored tool the server now runs only as a task is switched off and shown as not brought in (not as missing)', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer());
    expect(await call(c, v.bundleId, 'add-tool', { name: 'later' })).toMatchObject({ ok: true });
    await until(() => slugs(c, v.bundleId).includes('later'), 'the new tool stored');
    expect(c.registry.store.getTool(v.bundleId, 'later', '1').isEnabled).toBe(true);
    expect(await call(c, v.bundleId, 'add-tool', { name: 'later', taskSupport: 'required' })).toMatchObject({ ok: true });
    await until(async () => (await serverView(c, v.bundleId)).status.skipped.length > 0, 'the list read again');
    expect((await serverView(c, v.bundleId)).status).toMatchObject({ skipped: [{ name: 'later', reason: TASK_REASON }], missing: [] });
    expect(c.registry.store.getTool(v.bundleId, 'later', '1').isEnabled).toBe(false);
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => /^tool 'later' switched off: the server now runs it only as an MCP task/.test(l.text))).toBe(true);
    expect(slugs(c, v.bundleId).filter((s) => s === 'later')).toHaveLength(1);
  });
});
