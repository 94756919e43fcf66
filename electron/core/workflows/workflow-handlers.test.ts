import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { ConversationStore } from '../timeline/conversation-store';
import { EventBus } from '../events';
import { createRouter, type HandlerTable } from '../router';
import { openEmptyToolStore, routingOnDisk, startHangingServer } from '../testing/chat-fixtures';
import { useTempDirs } from '../testing/temp-dir';
import { WorkflowRunner } from './workflow-runner';
import { workflowHandlers } from './workflow-handlers';

const tempDir = useTempDirs();
const closers: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** The workflow operations through the router: inputs parsed and outputs checked against the contract. */
async function setup() {
  const dir = await tempDir();
  const workspace = path.join(dir, 'workspace');
  await fs.mkdir(path.join(workspace, 'workflows'), { recursive: true });
  const events = new EventBus();
  const conversations = ConversationStore.open({ file: path.join(dir, 'c.sqlite'), now: () => new Date() });
  const store = await openEmptyToolStore(dir);
  // A server on 127.0.0.1 that never answers: a workflow reading it runs until cancelled.
  const server = await startHangingServer();
  const routing = routingOnDisk({ dataDir: dir, workspace, store, events, allowedHosts: () => [server.host] });
  const runner = new WorkflowRunner({ workspaceDir: () => workspace, routing, conversations, events, now: () => new Date() });
  const runIds = new Set<string>();
  events.on('workflow.progress', (r) => runIds.add(r.runId));
  closers.push(
    async () => {
      runner.cancelAll();
      await Promise.all([...runIds].map((id) => runner.settled(id).catch(() => undefined)));
    },
    () => server.close(),
    () => conversations.close(),
    () => store.close(),
  );
  const router = createRouter(workflowHandlers(runner) as unknown as HandlerTable);
  return { router, workspace, runner, events, routing, server };
}

describe('workflow handlers', () => {
  it('list, run, get and cancel answer what the contract says', async () => {
    const { router, workspace, runner, events, routing, server } = await setup();
    await fs.writeFile(path.join(workspace, 'notes.md'), 'x');
    await fs.writeFile(path.join(workspace, 'workflows', 'a.md'), '## One\n@model none\n@input file:notes.md (output=variable:n)');
    await fs.writeFile(path.join(workspace, 'workflows', 'slow.md'), `## Wait\n@model none\n@input url:${server.origin}/slow`);

    expect(await router.call('workflows.list', {})).toMatchObject({ ok: true, value: [{ path: 'workflows/a.md' }, { path: 'workflows/slow.md' }] });

    const ended = new Promise<WorkflowRun>((resolve) => events.on('workflow.progress', (r) => r.status === 'done' && resolve(r)));
    const run = await router.call('workflows.run', { path: 'workflows/a.md' });
    expect(run).toMatchObject({ ok: true, value: { status: 'running', title: 'a' } });
    const runId = (run as { value: WorkflowRun }).value.runId;
    expect((await ended).runId).toBe(runId);
    expect(await router.call('workflows.get', { runId })).toMatchObject({
      ok: true,
      value: { status: 'done', steps: [{ status: 'done', outcomes: [{ manifest: { text: '[input routed] 1 file -> variable:n (total 1 chars)\npaths: notes.md' } }] }] },
    });
    expect(await routing.buffers.readAll(runId, 'n')).toBe('x');
    expect(await router.call('workflows.cancel', { runId })).toEqual({ ok: true, value: { cancelled: false } });

    const slow = (await router.call('workflows.run', { path: 'workflows/slow.md' })) as { value: WorkflowRun };
    await expect.poll(() => server.received).toBe(1);
    expect(await router.call('workflows.cancel', { runId: slow.value.runId })).toEqual({ ok: true, value: { cancelled: true } });
    expect((await runner.settled(slow.value.runId)).status).toBe('cancelled');
    await expect.poll(() => server.abandoned).toBe(1);
  });

  it('answers bad input with clear errors', async () => {
    const { router } = await setup();
    expect(await router.call('workflows.get', { runId: 'nope' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('workflows.cancel', { runId: 'nope' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('workflows.run', { path: 'workflows/none.md' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.call('workflows.run', { path: '' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(await router.call('workflows.run', { path: 'notes.md' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
