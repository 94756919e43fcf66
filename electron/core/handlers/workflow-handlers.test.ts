import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { ConversationStore } from '../timeline/conversation-store';
import { fakeRouting } from '../chat/test-support';
import { EventBus } from '../events';
import { createRouter, type HandlerTable } from '../router';
import { useTempDirs } from '../testing/temp-dir';
import { WorkflowRunner } from '../workflows/workflow-runner';
import { workflowHandlers } from './workflow-handlers';

const tempDir = useTempDirs();
const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

/** The workflow operations through the router: inputs parsed and outputs checked against the contract. */
async function setup() {
  const dir = await tempDir();
  const workspace = path.join(dir, 'workspace');
  await fs.mkdir(path.join(workspace, 'workflows'), { recursive: true });
  const events = new EventBus();
  const conversations = ConversationStore.open({ file: path.join(dir, 'c.sqlite'), now: () => new Date() });
  const runner = new WorkflowRunner({ workspaceDir: () => workspace, routing: fakeRouting(workspace), conversations, events, now: () => new Date() });
  closers.push(() => runner.cancelAll(), () => conversations.close());
  const router = createRouter(workflowHandlers(runner) as unknown as HandlerTable);
  return { router, workspace, runner, events };
}

describe('workflow handlers', () => {
  it('list, run, get and cancel answer what the contract says', async () => {
    const { router, workspace, runner, events } = await setup();
    await fs.writeFile(path.join(workspace, 'notes.md'), 'x');
    await fs.writeFile(path.join(workspace, 'workflows', 'a.md'), '## One\n@model none\n@input file:notes.md (output=variable:n)');
    await fs.writeFile(path.join(workspace, 'workflows', 'slow.md'), '## Wait\n@model none\n@input wait:x');

    expect(await router.call('workflows.list', {})).toMatchObject({ ok: true, value: [{ path: 'workflows/a.md' }, { path: 'workflows/slow.md' }] });

    const ended = new Promise<WorkflowRun>((resolve) => events.on('workflow.progress', (r) => r.status === 'done' && resolve(r)));
    const run = await router.call('workflows.run', { path: 'workflows/a.md' });
    expect(run).toMatchObject({ ok: true, value: { status: 'running', title: 'a' } });
    const runId = (run as { value: WorkflowRun }).value.runId;
    expect((await ended).runId).toBe(runId);
    expect(await router.call('workflows.get', { runId })).toMatchObject({ ok: true, value: { status: 'done', steps: [{ status: 'done' }] } });
    expect(await router.call('workflows.cancel', { runId })).toEqual({ ok: true, value: { cancelled: false } });

    const slow = (await router.call('workflows.run', { path: 'workflows/slow.md' })) as { value: WorkflowRun };
    expect(await router.call('workflows.cancel', { runId: slow.value.runId })).toEqual({ ok: true, value: { cancelled: true } });
    expect((await runner.settled(slow.value.runId)).status).toBe('cancelled');
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
