/**
 * Workflow steps that ask a model, through the whole core and a real provider client
 * speaking to the scripted model server on 127.0.0.1.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { useAgentCore } from '../testing/agent-core';
import { NO_MODEL_STEP } from './strings';

const start = useAgentCore();

const FLOW = [
  '# Notes digest',
  '## Read the notes',
  '@tools readfile(output=variable:v)',
  'Read notes.md with readfile.',
  '## Answer',
  '@input variable:v',
  'What do the notes say?',
].join('\n');

type Call = Awaited<ReturnType<typeof start>>['call'];

async function runToEnd(call: Call, input: { path: string; conversationId?: string }): Promise<WorkflowRun> {
  const { runId } = await call('workflows.run', input);
  const end = Date.now() + 15_000;
  for (;;) {
    const run = await call('workflows.get', { runId });
    if (run.status !== 'running') return run;
    if (Date.now() > end) throw new Error('the run did not end');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const contentOf = (m: { content?: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

describe('workflow steps run model turns', () => {
  it("two steps in a conversation: step 1's tool result is routed by @tools output=, step 2 reads it", async () => {
    const { server, core, call, model, messages } = await start();
    await fs.writeFile(path.join(core.workspaceDir(), 'notes.md'), 'the notes say 42');
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'digest.md'), FLOW);
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([
      { kind: 'tools', calls: [{ id: 'call_1', name: 'readfile', arguments: { path: 'notes.md' } }] },
      { kind: 'text', text: 'stored' },
      (req) => {
        const user = (req.body.messages as { role: string; content?: unknown }[]).filter((m) => m.role === 'user').at(-1)!;
        return { kind: 'text', text: contentOf(user).includes('the notes say 42') ? 'They say 42.' : 'I see nothing.' };
      },
    ]);

    const run = await runToEnd(call, { path: 'workflows/digest.md', conversationId: c.id });
    expect(run.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(run.status).toBe('done');

    // The tool's result went to the buffer, and the model got its manifest instead.
    expect((await call('buffers.read', { ownerId: c.id, name: 'v', offset: 0, length: 1000 })).text).toBe('the notes say 42');
    const openai = server.requests.filter((r) => r.api === 'openai');
    expect(openai).toHaveLength(3);
    const toolReply = (openai[1]!.body.messages as { role: string; content?: unknown }[]).find((m) => m.role === 'tool')!;
    expect(contentOf(toolReply)).toContain('[tool routed] readfile -> variable:v');
    expect(contentOf(toolReply)).not.toContain('the notes say 42');
    // Step 2's prompt inlined the buffer for the model.
    expect(JSON.stringify(openai[2]!.body.messages)).toContain('[input] variable:v\\nthe notes say 42');
    expect(openai.map((r) => r.body.model)).toEqual(['scripted-model', 'scripted-model', 'scripted-model']);

    const rows = await messages(c.id);
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'notice', 'user', 'assistant', 'notice']);
    expect(rows.at(-2)!.text).toBe('They say 42.');
    expect(rows.at(-1)!.text).toBe('Workflow "Notes digest", step 2 of 2 "Answer": done');
  });

  it('a run started on its own runs in a conversation of its own with the default model', async () => {
    const { server, core, call, model, messages } = await start();
    await fs.writeFile(path.join(core.workspaceDir(), 'notes.md'), 'the notes say 42');
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'digest.md'), FLOW);
    await call('settings.set', { defaultModel: model });
    server.script([
      { kind: 'tools', calls: [{ id: 'call_1', name: 'readfile', arguments: { path: 'notes.md' } }] },
      { kind: 'text', text: 'stored' },
      { kind: 'text', text: 'They say 42.' },
    ]);
    const run = await runToEnd(call, { path: 'workflows/digest.md' });
    expect(run.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(run.conversationId).toBeDefined();
    expect(run.ownerId).toBe(run.conversationId);
    expect((await call('conversations.get', { id: run.conversationId! })).conversation.title).toBe('Notes digest');
    expect((await call('buffers.read', { ownerId: run.ownerId, name: 'v', offset: 0, length: 1000 })).text).toBe('the notes say 42');
    expect((await messages(run.conversationId!)).filter((m) => m.role === 'assistant').at(-1)!.text).toBe('They say 42.');
  });

  it("the front matter's extraction thresholds reach the step's turn, over the conversation's", async () => {
    const { server, core, call, model, messages } = await start();
    // ~100,000 tokens of short lines: over the 256 KiB cap, several chunks of the default window.
    const line = 'row 0000 of the ledger, nothing to see here\n';
    await fs.writeFile(path.join(core.workspaceDir(), 'big.txt'), line.repeat(9000));
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    const flow = ['---', 'extraction:', '  maxChunksForFullMode: 1', '---', '# Ledger', '## Count', '@tools readfile', 'How many rows does big.txt have?'].join('\n');
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'ledger.md'), flow);
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    // Alone, the conversation's threshold would take full-chunked (the output fits in 1,000 chunks).
    expect((await call('conversations.setExtraction', { id: c.id, extraction: { maxChunksForFullMode: 1000 } })).extraction).toEqual({ maxChunksForFullMode: 1000 });
    const system = (req: { body: { messages?: unknown } }) => {
      const m = (req.body.messages as { role: string; content?: unknown }[]).find((x) => x.role === 'system');
      return m ? contentOf(m) : '';
    };
    const reportOrElse = (then: (req: { body: { messages?: unknown } }) => import('../testing/scripted-model-server').ScriptedReply) => (req: { body: { messages?: unknown } }) => {
      const nonce = /<ai-agent-([0-9a-f]+)-FINAL/.exec(system(req))?.[1];
      return nonce ? { kind: 'text' as const, text: `<ai-agent-${nonce}-FINAL format="text">9000 rows</ai-agent-${nonce}-FINAL>` } : then(req);
    };
    server.script([
      { kind: 'tools', calls: [{ id: 'call_1', name: 'readfile', arguments: { path: 'big.txt' } }] },
      (req) => {
        const told = JSON.stringify(req.body.messages);
        const handle = /handle = \\"([0-9a-f-]{36})\\"/.exec(told)![1]!;
        return { kind: 'tools', calls: [{ id: 'call_2', name: 'tool_output', arguments: { handle, extract: 'how many rows' } }] };
      },
      ...Array.from({ length: 6 }, () => reportOrElse(() => ({ kind: 'text', text: 'It has 9000 rows.' }))),
    ]);
    const run = await runToEnd(call, { path: 'workflows/ledger.md', conversationId: c.id });
    expect(run.steps.map((s) => s.status)).toEqual(['done']);
    const card = (await messages(c.id)).find((m) => m.tool?.slug === 'tool_output' && m.tool.status === 'ok')!.tool!;
    expect(card.extraction).toMatchObject({ requested: 'auto', used: 'read-grep' });
    expect(card.extraction!.why).toMatch(/> 1\) and lines average/);
  });

  it('with no model set up, a step for a model is skipped with a message saying how to set one up', async () => {
    const { server, core, call, messages } = await start();
    await fs.writeFile(path.join(core.workspaceDir(), 'notes.md'), 'the notes say 42');
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'digest.md'), FLOW);
    const c = await call('conversations.create', {});
    const run = await runToEnd(call, { path: 'workflows/digest.md', conversationId: c.id });
    expect(run.steps.map((s) => s.status)).toEqual(['skipped', 'error']);
    expect(run.steps[0]!.outcomes.at(-1)).toEqual({ directive: '@model', error: { code: 'UNAVAILABLE', message: NO_MODEL_STEP } });
    expect(NO_MODEL_STEP).toMatch(/Settings → Models/);
    // Step 2 reads the buffer step 1 never filled.
    expect(run.steps[1]!.error!.code).toBe('NOT_FOUND');
    expect(server.requests.filter((r) => r.api === 'openai')).toHaveLength(0);
    expect((await messages(c.id)).map((m) => m.role)).toEqual(['notice', 'notice']);
    // A run on its own with no default model gets no conversation.
    const alone = await runToEnd(call, { path: 'workflows/digest.md' });
    expect(alone.conversationId).toBeUndefined();
    expect(alone.steps[0]!.status).toBe('skipped');
  });

  it('a model that fails ends the step with its reason, and the run stops there', async () => {
    const { server, core, call, model } = await start();
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'digest.md'), FLOW);
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } }]);
    const run = await runToEnd(call, { path: 'workflows/digest.md', conversationId: c.id });
    expect(run.status).toBe('error');
    expect(run.steps.map((s) => s.status)).toEqual(['error', 'pending']);
    expect(run.steps[0]!.error!.message).toMatch(/upstream exploded/);
  });

  it('cancelling the run stops the turn: the request to the provider is aborted and the steps are cancelled', async () => {
    const { server, core, call, model } = await start();
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'digest.md'), FLOW);
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'delay', ms: 10_000 }]);
    const { runId } = await call('workflows.run', { path: 'workflows/digest.md', conversationId: c.id });
    const end = Date.now() + 5_000;
    while (!server.requests.some((r) => r.api === 'openai') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect((await call('workflows.get', { runId })).steps[0]!.status).toBe('waiting-for-model');
    expect(await call('workflows.cancel', { runId })).toEqual({ cancelled: true });
    let run = await call('workflows.get', { runId });
    while (run.status === 'running' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
      run = await call('workflows.get', { runId });
    }
    expect(run.status).toBe('cancelled');
    expect(run.steps.map((s) => s.status)).toEqual(['cancelled', 'cancelled']);
    expect(server.requests.find((r) => r.api === 'openai')!.aborted).toBe(true);
  });
});
