/**
 * A tool asks when what it runs asks: a local tool wrapping `files.write` (which the built-in
 * `writefile` asks for) and a sequence calling such a tool wait for approval when a model calls
 * them, whatever their own files say; a tool over a function that does not ask runs at once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { call, harness, until, type Harness } from '../testing/agent-harness';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const writeArgs = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] };

/** The agent harness with the shipped `files` bundle among its built-ins, and the two wrappers. */
async function setup() {
  const dir = await tempDir();
  await fs.cp(path.join(RESOURCES_DIR, 'bundles', 'files'), path.join(dir, 'resources', 'bundles', 'files'), { recursive: true });
  const h = await harness(dir);
  open.push(h);
  const body = (extra: Record<string, unknown>) => ({ displayName: 'x', description: '', tags: [], argSchema: writeArgs, outputSchema: {}, isEnabled: true, ...extra });
  const summarize = await h.store.putTool(h.bundleId, 'summarize', '1', body({ type: 'local', local: { functionId: 'files.write' } }));
  await h.store.putTool(h.bundleId, 'pipeline', '1', body({ type: 'sequence', sequence: { steps: [{ id: 'write', tool: { bundleId: h.bundleId, slug: 'summarize', version: '1' }, args: { path: '${args.path}', content: '${args.content}' } }] } }));
  const c = h.conversations.create(undefined, { providerId: 'p1', model: 'm1' });
  const toolRows = () => h.conversations.messages(c.id).filter((m) => m.role === 'tool');
  return { h, c, toolRows, summarize };
}

describe('approval inherited from what a tool runs', () => {
  it('a local tool over files.write without requiresApproval waits for approval; denied, nothing runs', async () => {
    const { h, c, toolRows, summarize } = await setup();
    expect(summarize.requiresApproval).toBeUndefined();
    h.models.script = [{ toolCalls: [call('summarize', { path: 'out.txt', content: 'pwned' }, 's1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(waiting.tool!.approval).toEqual({ reason: { kind: 'function', functionId: 'files.write' } });
    expect(h.loop.respond(c.id, waiting.tool!.invocationId, 'deny')).toBe(true);
    await sent;
    await h.loop.settled(c.id);
    expect(toolRows().map((m) => m.tool!.status)).toEqual(['awaiting-approval', 'denied']);
    await expect(fs.stat(path.join(h.workspace, 'out.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a sequence whose step runs such a tool waits too, naming the step', async () => {
    const { h, c, toolRows } = await setup();
    h.models.script = [{ toolCalls: [call('pipeline', { path: 'out.txt', content: 'x' }, 'p1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(waiting.tool!.approval).toEqual({ reason: { kind: 'step', step: 'write', tool: 'summarize@1' } });
    h.loop.respond(c.id, waiting.tool!.invocationId, 'deny');
    await sent;
    await h.loop.settled(c.id);
  });

  it('a tool over a function no built-in asks for runs at once', async () => {
    const { h, c, toolRows } = await setup();
    h.models.script = [{ toolCalls: [call('echo', { text: 'hi' }, 'e1')] }, { text: 'ok' }];
    await h.chat.send(c.id, 'please');
    await h.loop.settled(c.id);
    expect(toolRows().map((m) => m.tool!.status)).toEqual(['running', 'ok']);
  });
});
