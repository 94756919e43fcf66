/**
 * The chat and the workflows through the whole core (createCore on a temp folder): the
 * real parser, buffers, router, directive runner, dispatcher and built-in tools.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { WorkflowRun } from '../../../shared/model/workflow';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { NO_MODEL_NOTICE } from '../timeline/strings';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

const FILES_BUNDLE = '01941f29-7c00-7445-bfe3-19d44c6cadc8';

async function start(dataDir?: string) {
  const dir = dataDir ?? (await tempDir());
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: dir, host: 'headless' });
  cores.push(core);
  const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
    const r = await core.call(name, input);
    if (!r.ok) throw Object.assign(new Error(r.error.message), r.error);
    return r.value as OpOutput<N>;
  };
  const ws = (rel: string) => path.join(core.workspaceDir(), rel);
  return { core, call, ws, dataDir: dir };
}

describe('chat through the core', () => {
  it('runs a built-in tool from the + palette and routes its value to a buffer, then a file', async () => {
    const { call, ws, core } = await start();
    await fs.writeFile(ws('doc.md'), 'the document body');
    const changes: string[] = [];
    core.events.on('conversations.changed', (c) => changes.push(c.kind));
    const c = await call('conversations.create', {});

    const card = await call('chat.runTool', { conversationId: c.id, bundleId: FILES_BUNDLE, slug: 'readfile', version: '1', args: { path: 'doc.md' }, output: 'variable:doc' });
    expect(card.tool).toMatchObject({ status: 'ok', manifest: { destination: 'variable:doc', totalChars: expect.any(Number) } });
    expect(card.tool!.manifest!.text).toBe(`[tool routed] readfile -> variable:doc (total ${card.tool!.manifest!.totalChars} chars)`);
    expect(card.tool).not.toHaveProperty('value');
    const got = await call('conversations.get', { id: c.id });
    expect(JSON.stringify(got.messages)).not.toContain('the document body');

    // The buffer holds readfile's `content` (its outputSchema marks it): send it on to a file with a directive.
    expect(card.tool!.manifest!.totalChars).toBe('the document body'.length);
    const sent = await call('chat.send', { conversationId: c.id, text: '@model none\n@input variable:doc (output=file:out/doc.md, write-mode=replace)' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.outcomes).toEqual([expect.objectContaining({ manifest: expect.objectContaining({ destination: 'file:out/doc.md' }) })]);
    expect(await fs.readFile(ws('out/doc.md'), 'utf8')).toBe('the document body');
    expect(changes).toEqual(expect.arrayContaining(['created', 'messages']));
  });

  it('keeps an inline value and turns a failing call into an error card', async () => {
    const { call, ws } = await start();
    await fs.writeFile(ws('a.txt'), 'abc');
    const c = await call('conversations.create', { title: 'T' });
    const ok = await call('chat.runTool', { conversationId: c.id, bundleId: FILES_BUNDLE, slug: 'readfile', version: '1', args: { path: 'a.txt' } });
    expect(ok.tool).toMatchObject({ status: 'ok', value: { content: 'abc' } });
    const bad = await call('chat.runTool', { conversationId: c.id, bundleId: FILES_BUNDLE, slug: 'readfile', version: '1', args: { path: 'missing.txt' } });
    expect(bad.tool).toMatchObject({ status: 'error', error: { code: expect.any(String) } });
    await expect(call('chat.runTool', { conversationId: c.id, bundleId: FILES_BUNDLE, slug: 'readfile', version: '1', args: { path: 'a.txt' }, output: 'file:../out.md' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect((await call('conversations.get', { id: c.id })).messages).toHaveLength(2);
  });

  it('sends: refuses directive errors and unknown tools with nothing stored; notices without @model none', async () => {
    const { call, ws } = await start();
    await fs.writeFile(ws('n.md'), 'note');
    const c = await call('conversations.create', {});
    await expect(call('chat.send', { conversationId: c.id, text: '@input file:n.md (output=variable:)' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [expect.anything()] } });
    await expect(call('chat.send', { conversationId: c.id, text: '@tools no_such_tool_here\nhi' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [expect.anything()] } });
    expect((await call('conversations.get', { id: c.id })).messages).toEqual([]);

    const added = await call('chat.send', { conversationId: c.id, text: 'Read this\n@input file:n.md' });
    expect(added.map((m) => m.role)).toEqual(['user', 'notice']);
    expect(added[1]!.text).toBe(NO_MODEL_NOTICE);
    expect(added[0]!.outcomes).toEqual([expect.objectContaining({ inlineText: 'note' })]);
    expect((await call('conversations.get', { id: c.id })).conversation.title).toBe('Read this');
    await expect(call('chat.send', { conversationId: 'nope', text: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('evaluates context sections with the real runner', async () => {
    const { call, ws } = await start();
    await fs.writeFile(ws('rules.md'), 'be kind');
    const c = await call('conversations.create', {});
    await call('conversations.setContext', {
      id: c.id,
      sections: [
        { id: 'r', title: 'Rules', text: 'Rules:\n@input file:rules.md', enabled: true },
        { id: 'v', title: 'Stash', text: '@model none\n@input file:rules.md (output=variable:rules)\n@tools readfile\n@tools listdir', enabled: true },
      ],
    });
    const r = await call('conversations.evaluateContext', { id: c.id });
    expect(r[0]).toMatchObject({ sectionId: 'r', modelNone: false, outcomes: [{ inlineText: 'be kind' }] });
    expect(r[0]!.text).toContain('be kind');
    expect(r[1]).toMatchObject({ sectionId: 'v', modelNone: true, outcomes: [{ manifest: { destination: 'variable:rules' } }] });
    expect(r[1]!.text).toContain('[input routed]');
  });

  it('deletes a conversation with its buffers', async () => {
    const { call, ws, dataDir } = await start();
    await fs.writeFile(ws('x.md'), 'x');
    const c = await call('conversations.create', {});
    await call('chat.send', { conversationId: c.id, text: '@model none\n@input file:x.md (output=variable:x)' });
    const bufferDirs = () => fs.readdir(path.join(dataDir, 'buffers')).catch(() => [] as string[]);
    expect(await bufferDirs()).toHaveLength(1);
    await call('conversations.delete', { id: c.id });
    expect(await bufferDirs()).toHaveLength(0);
    await expect(call('conversations.get', { id: c.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('runs a two-step workflow in a conversation, with progress events and notices', async () => {
    const { call, ws, core } = await start();
    await fs.mkdir(ws('workflows'));
    await fs.writeFile(ws('notes.md'), 'first note');
    await fs.writeFile(
      ws('workflows/copy.md'),
      '# Copy\n## Read\n@model none\n@input file:notes.md (output=variable:notes)\n## Write\n@model none\n@input variable:notes (output=file:out/{today}.md)\n',
    );
    const c = await call('conversations.create', {});
    const progress: WorkflowRun[] = [];
    const ended = new Promise<void>((resolve) =>
      core.events.on('workflow.progress', (r) => {
        progress.push(r);
        if (r.status !== 'running') resolve();
      }),
    );
    const run = await call('workflows.run', { path: 'workflows/copy.md', conversationId: c.id });
    expect(run.status).toBe('running');
    await ended;
    const done = await call('workflows.get', { runId: run.runId });
    expect(done.status).toBe('done');
    expect(done.steps.map((s) => s.status)).toEqual(['done', 'done']);
    const today = done.steps[1]!.outcomes[0]!.manifest!.target;
    expect(today.kind).toBe('file');
    expect(await fs.readFile(ws((today as { path: string }).path), 'utf8')).toBe('first note');
    expect(progress.at(-1)!.status).toBe('done');
    const notices = (await call('conversations.get', { id: c.id })).messages;
    expect(notices.map((m) => m.role)).toEqual(['notice', 'notice']);
    expect(await call('workflows.list', {})).toEqual([{ path: 'workflows/copy.md', title: 'Copy', steps: [{ title: 'Read', modelNone: true }, { title: 'Write', modelNone: true }] }]);
  });

  it('refuses a workflow with no steps, or an unknown tool in a later step, before anything runs', async () => {
    const { call, ws } = await start();
    await fs.mkdir(ws('workflows'));
    await fs.writeFile(ws('notes.md'), 'n');
    await fs.writeFile(ws('workflows/empty.md'), '# Empty\nno steps here');
    await fs.writeFile(ws('workflows/tools.md'), '## Read\n@model none\n@input file:notes.md (output=file:copied.md)\n## Use\n@model none\n@tools no_such_tool_here\n');
    await expect(call('workflows.run', { path: 'workflows/empty.md' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'the workflow has no steps (a step starts with a "## " heading)',
    });
    await expect(call('workflows.run', { path: 'workflows/tools.md' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^step "Use", line 6, column \d+: unknown tool 'no_such_tool_here'/),
    });
    await expect(fs.stat(ws('copied.md'))).rejects.toMatchObject({ code: 'ENOENT' });
    const listed = await call('workflows.list', {});
    expect(listed.map((w) => [w.path, w.error !== undefined])).toEqual([
      ['workflows/empty.md', true],
      ['workflows/tools.md', true],
    ]);
  });

  it('sets a corrupt conversations database aside and reports it', async () => {
    const dataDir = await tempDir();
    await fs.writeFile(path.join(dataDir, 'conversations.sqlite'), 'garbage, not SQLite'.repeat(100));
    const { call } = await start(dataDir);
    const problems = await call('app.problems', {});
    expect(problems).toEqual([expect.objectContaining({ kind: 'corrupt-file', path: path.join(dataDir, 'conversations.sqlite') })]);
    expect((await call('conversations.create', {})).title).toBe('New conversation');
  });
});
