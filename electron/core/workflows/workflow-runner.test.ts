import { existsSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { ConversationStore } from '../timeline/conversation-store';
import { EventBus } from '../events';
import { WORKFLOW_FINISHED_RUNS_KEPT } from './limits';
import { filesUnder, openEmptyToolStore, routingOnDisk, startHangingServer, type HangingServer } from '../testing/chat-fixtures';
import { useTempDirs } from '../testing/temp-dir';
import { NO_MODEL_STEP, NO_STEPS } from './strings';
import { WorkflowRunner } from './workflow-runner';

const tempDir = useTempDirs();
const closers: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A server on 127.0.0.1 that never answers: `@input url:` of it runs until cancelled. */
async function hangingServer(): Promise<HangingServer> {
  const server = await startHangingServer();
  closers.push(() => server.close());
  return server;
}

async function setup(files: Record<string, string> = {}, opts: { allowedHosts?: string[] } = {}) {
  const dir = await tempDir();
  const workspace = path.join(dir, 'workspace');
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
    await fs.writeFile(path.join(workspace, rel), text);
  }
  await fs.mkdir(workspace, { recursive: true });
  const events = new EventBus();
  const conversations = ConversationStore.open({
    file: path.join(dir, 'conversations.sqlite'),
    now: () => new Date(),
    onChange: (c) => events.emit('conversations.changed', c),
  });
  const store = await openEmptyToolStore(dir);
  const routing = routingOnDisk({ dataDir: dir, workspace, store, events, allowedHosts: () => opts.allowedHosts ?? [] });
  const runner = new WorkflowRunner({ workspaceDir: () => workspace, routing, conversations, events, now: () => new Date() });
  const progress: WorkflowRun[] = [];
  events.on('workflow.progress', (r) => progress.push(r));
  closers.push(
    async () => {
      // Every run ended before its folders go.
      runner.cancelAll();
      const ids = new Set(progress.map((p) => p.runId));
      await Promise.all([...ids].map((id) => runner.settled(id).catch(() => undefined)));
    },
    () => conversations.close(),
    () => store.close(),
  );
  /** What the runs wrote: the files of the workspace and the buffers' folder. */
  const written = async () => ({ workspace: await filesUnder(workspace), buffers: await filesUnder(path.join(dir, 'buffers')) });
  return { workspace, runner, routing, conversations, progress, events, written };
}

const COPY_FLOW = [
  '# Copy notes',
  '## Read',
  '@model none',
  '@input file:notes.md (output=variable:notes)',
  '## Write',
  '@model none',
  '@input variable:notes (output=file:out/copy.md, write-mode=replace)',
].join('\n');

describe('WorkflowRunner', () => {
  it('runs a two-step @model none workflow: a file into a variable, the variable into a file', async () => {
    const { runner, workspace, routing, progress } = await setup({ 'notes.md': 'note one\nnote two', 'workflows/copy.md': COPY_FLOW });
    const started = await runner.start('workflows/copy.md');
    expect(started).toMatchObject({ path: 'workflows/copy.md', title: 'Copy notes', status: 'running', ownerId: started.runId });
    expect(started).not.toHaveProperty('conversationId');
    expect(started.steps.map((s) => s.status)).toEqual(['pending', 'pending']);

    const run = await runner.settled(started.runId);
    expect(run.status).toBe('done');
    expect(run.finishedAt).toBeDefined();
    expect(run.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(run.steps.map((s) => s.outcomes.map((o) => o.manifest?.text))).toEqual([
      ['[input routed] 1 file -> variable:notes (total 17 chars)\npaths: notes.md'],
      ['[input routed] 1 buffer -> file:out/copy.md (total 17 chars)'],
    ]);
    expect(run.steps.every((s) => typeof s.durationMs === 'number')).toBe(true);
    expect(await fs.readFile(path.join(workspace, 'out/copy.md'), 'utf8')).toBe('note one\nnote two');
    // Outside a conversation, the buffers are the run's own.
    expect(await routing.buffers.list(started.runId)).toEqual([expect.objectContaining({ ownerId: started.runId, name: 'notes', source: 'input:file:notes.md' })]);
    expect(await routing.buffers.readAll(started.runId, 'notes')).toBe('note one\nnote two');

    // Progress after every change, in order, each with the whole run.
    expect(progress.map((p) => [p.status, ...p.steps.map((s) => s.status)])).toEqual([
      ['running', 'pending', 'pending'],
      ['running', 'running', 'pending'],
      ['running', 'done', 'pending'],
      ['running', 'done', 'running'],
      ['running', 'done', 'done'],
      ['done', 'done', 'done'],
    ]);
    expect(runner.get(started.runId)).toEqual(run);
  });

  it('in a conversation: uses its buffers and adds a notice per finished step', async () => {
    const { runner, routing, conversations } = await setup({ 'notes.md': 'n', 'workflows/copy.md': COPY_FLOW });
    const c = conversations.create('Chat');
    const started = await runner.start('workflows/copy.md', c.id);
    expect(started).toMatchObject({ ownerId: c.id, conversationId: c.id });
    await runner.settled(started.runId);
    expect(await routing.buffers.readAll(c.id, 'notes')).toBe('n');
    expect(await routing.buffers.list(started.runId)).toEqual([]);
    const notices = conversations.messages(c.id);
    expect(notices.map((m) => [m.role, m.text])).toEqual([
      ['notice', 'Workflow "Copy notes", step 1 of 2 "Read": done'],
      ['notice', 'Workflow "Copy notes", step 2 of 2 "Write": done'],
    ]);
    expect(notices[0]!.outcomes![0]!.manifest).toMatchObject({ destination: 'variable:notes' });
  });

  it('skips a step without @model none after its directives ran, and goes on', async () => {
    const flow = '## Think\n@input file:notes.md\nWhat do you see?\n## Save\n@model none\n@input file:notes.md (output=variable:saved)';
    const { runner, routing } = await setup({ 'notes.md': 'hello', 'workflows/f.md': flow });
    const { runId } = await runner.start('workflows/f.md');
    const run = await runner.settled(runId);
    expect(run.status).toBe('done');
    expect(run.steps.map((s) => s.status)).toEqual(['skipped', 'done']);
    expect(run.steps[0]!.outcomes).toEqual([
      { directive: '@input file:notes.md', inlineText: 'hello' },
      { directive: '@model', error: { code: 'UNAVAILABLE', message: NO_MODEL_STEP } },
    ]);
    // The second step's directives ran too.
    expect(await routing.buffers.readAll(runId, 'saved')).toBe('hello');
  });

  it('ends the run at a step whose directives fail; later steps never run', async () => {
    const flow = '## A\n@model none\n@input file:missing.md\n## B\n@model none\n@input file:notes.md (output=variable:b)';
    const { runner, routing } = await setup({ 'notes.md': 'x', 'workflows/f.md': flow });
    const { runId } = await runner.start('workflows/f.md');
    const run = await runner.settled(runId);
    expect(run.status).toBe('error');
    expect(run.steps.map((s) => s.status)).toEqual(['error', 'pending']);
    expect(run.steps[0]!.error).toMatchObject({ code: 'NOT_FOUND', message: "'missing.md' does not exist in the workspace" });
    expect(await routing.buffers.list(runId)).toEqual([]);
  });

  it('refuses an unknown tool in a later step before the first step runs', async () => {
    const flow = '## Read\n@model none\n@input file:notes.md (output=variable:n)\n## Use tools\n@model none\n@tools nosuchtool';
    const { runner, written, progress } = await setup({ 'notes.md': 'x', 'workflows/t.md': flow });
    const before = await written();
    await expect(runner.start('workflows/t.md')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^step "Use tools", line \d+, column \d+: unknown tool 'nosuchtool'/),
      details: { errors: [expect.objectContaining({ step: 'Use tools' })] },
    });
    // The first step's @input was not read: no buffer, no file, no progress.
    expect(await written()).toEqual(before);
    expect(before.buffers).toEqual([]);
    expect(progress).toEqual([]);
    expect((await runner.list())[0]!.error).toMatch(/^step "Use tools"/);
  });

  it('refuses a file with no steps, and lists it with that error', async () => {
    const { runner, written, progress } = await setup({ 'workflows/empty.md': '# Nothing here\njust text', 'workflows/ok.md': COPY_FLOW });
    const before = await written();
    await expect(runner.start('workflows/empty.md')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: NO_STEPS });
    expect(await runner.list()).toEqual([
      { path: 'workflows/empty.md', title: 'Nothing here', steps: [], error: NO_STEPS },
      { path: 'workflows/ok.md', title: 'Copy notes', steps: [{ title: 'Read', modelNone: true }, { title: 'Write', modelNone: true }] },
    ]);
    expect(await written()).toEqual(before);
    expect(progress).toEqual([]);
  });

  it('refuses a directive error in any step before anything runs, naming the step and line', async () => {
    const flow = '## Fine\n@model none\n@input file:notes.md (output=variable:a)\n## Broken\n@input file:notes.md (output=variable:)';
    const { runner, written, progress } = await setup({ 'notes.md': 'x', 'workflows/bad.md': flow });
    const before = await written();
    await expect(runner.start('workflows/bad.md')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^step "Broken", line 5, column \d+: /),
      details: { errors: [expect.objectContaining({ step: 'Broken', line: 5 })] },
    });
    expect(await written()).toEqual(before);
    expect(before.buffers).toEqual([]);
    expect(progress).toEqual([]);
    expect((await runner.list())[0]!.error).toMatch(/^step "Broken", line 5/);
  });

  it('cancels mid-run: the current step is aborted and the rest are cancelled', async () => {
    const server = await hangingServer();
    const flow = `## Wait\n@model none\n@input url:${server.origin}/slow\n## Never\n@model none\n@input file:notes.md (output=variable:x)`;
    const { runner, routing, progress, conversations } = await setup({ 'notes.md': 'x', 'workflows/w.md': flow }, { allowedHosts: [server.host] });
    const c = conversations.create();
    const { runId } = await runner.start('workflows/w.md', c.id);
    await expect.poll(() => server.received).toBe(1);
    expect(runner.cancel(runId)).toBe(true);
    const run = await runner.settled(runId);
    expect(run.status).toBe('cancelled');
    expect(run.steps.map((s) => s.status)).toEqual(['cancelled', 'cancelled']);
    // The request of the step was dropped; the next step never ran.
    await expect.poll(() => server.abandoned).toBe(1);
    expect(server.received).toBe(1);
    expect(await routing.buffers.list(c.id)).toEqual([]);
    expect(progress.at(-1)).toEqual(run);
    expect(progress.filter((p) => p.status === 'cancelled')).toHaveLength(1);
    expect(conversations.messages(c.id).map((m) => m.text)).toEqual(['Workflow "w", step 1 of 2 "Wait": cancelled']);
    expect(runner.cancel(runId)).toBe(false);
  });

  it('reports cancelled only once the step\'s runner has settled (a write that is slow to stop)', async () => {
    // About 30 MB routed to a file: once the writer has begun (the out folder exists), it
    // finishes the file whatever the signal says.
    const big = `${'0123456789'.repeat(10)}\n`.repeat(300_000);
    const flow = '## Slow\n@model none\n@input file:big.md (output=file:out/copy.md, write-mode=replace)';
    const { runner, progress, workspace, events } = await setup({ 'big.md': big, 'workflows/w.md': flow });
    const copy = path.join(workspace, 'out', 'copy.md');
    let sizeWhenCancelled: number | undefined;
    events.on('workflow.progress', (r) => {
      if (r.status === 'cancelled') sizeWhenCancelled = existsSync(copy) ? statSync(copy).size : -1;
    });
    const { runId } = await runner.start('workflows/w.md');
    await expect.poll(() => existsSync(path.dirname(copy)), { interval: 1, timeout: 30_000 }).toBe(true);
    expect(runner.cancel(runId)).toBe(true);
    // The cancel came mid-write: the file is not there yet (a replace appears whole, at its rename).
    expect(existsSync(copy)).toBe(false);
    expect(runner.cancel(runId)).toBe(false);
    expect(runner.get(runId).status).toBe('running');
    const run = await runner.settled(runId);
    // When the run said it was cancelled, the file was already whole: nothing was written after.
    expect(sizeWhenCancelled).toBe(big.length);
    expect((await fs.readFile(copy, 'utf8')) === big).toBe(true);
    expect(run.status).toBe('cancelled');
    expect(run.steps.map((s) => s.status)).toEqual(['cancelled']);
    expect(progress.filter((p) => p.status === 'cancelled')).toHaveLength(1);
  });

  it('cancels the runs of a conversation that is deleted', async () => {
    const server = await hangingServer();
    const { runner, conversations } = await setup({ 'workflows/w.md': `## Wait\n@model none\n@input url:${server.origin}/slow` }, { allowedHosts: [server.host] });
    const c = conversations.create();
    const { runId } = await runner.start('workflows/w.md', c.id);
    await expect.poll(() => server.received).toBe(1);
    conversations.delete(c.id);
    expect((await runner.settled(runId)).status).toBe('cancelled');
    await expect.poll(() => server.abandoned).toBe(1);
  });

  it('answers NOT_FOUND for unknown runs, conversations and files; refuses paths outside the workflows folder', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'outside.md'), '## x\n@model none');
    const { runner, workspace } = await setup({ 'workflows/ok.md': COPY_FLOW, 'other/x.md': '## x' });
    await fs.symlink(path.join(dir, 'outside.md'), path.join(workspace, 'workflows', 'link.md'));
    expect(() => runner.get('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => runner.cancel('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    await expect(runner.start('workflows/ok.md', 'no-such-conversation')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(runner.start('workflows/missing.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    for (const p of ['../x.md', '/etc/passwd', 'other/x.md', 'workflows/ok.txt', 'workflows/../other/x.md', 'workflows/nested/x.md']) {
      await expect(runner.start(p)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    await expect(runner.start('workflows/link.md')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await runner.list()).find((w) => w.path === 'workflows/link.md')).toMatchObject({ error: expect.stringContaining('outside the workspace') });
  });

  it('keeps the last finished runs only', async () => {
    const { runner } = await setup({ 'notes.md': 'x', 'workflows/ok.md': COPY_FLOW });
    const ids: string[] = [];
    for (let i = 0; i < WORKFLOW_FINISHED_RUNS_KEPT + 1; i++) {
      const { runId } = await runner.start('workflows/ok.md');
      await runner.settled(runId);
      ids.push(runId);
    }
    expect(() => runner.get(ids[0]!)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(runner.get(ids[1]!).status).toBe('done');
  });

  it('lists nothing when there is no workflows folder', async () => {
    const { runner } = await setup();
    expect(await runner.list()).toEqual([]);
  });
});
