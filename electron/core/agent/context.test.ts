import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { call, harness, type Harness } from '../testing/agent-harness';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const MODEL = { providerId: 'p1', model: 'm1' };

async function setup() {
  const h = await harness(await tempDir());
  open.push(h);
  const c = h.conversations.create(undefined, MODEL);
  await fs.writeFile(path.join(h.workspace, 'notes.md'), 'the notes');
  const send = async (text: string) => {
    await h.chat.send(c.id, text);
    await h.loop.settled(c.id);
  };
  return { h, c, send };
}

describe('context sections in turns', () => {
  it('writes a routed input with replace by default, so turns and Evaluate do not pile copies up', async () => {
    const { h, c, send } = await setup();
    h.conversations.setContext(c.id, [{ id: 's', title: 'Notes', text: 'Notes:\n@input file:notes.md (output=variable:notes)', enabled: true }]);
    h.models.script = [{ text: 'one' }, { text: 'two' }];
    await send('first');
    await send('second');
    await h.chat.evaluateContext(c.id);
    expect(await h.routing.buffers.readAll(c.id, 'notes')).toBe('the notes');
    expect(h.models.requests[1]!.messages[0]).toMatchObject({ role: 'system', text: expect.stringContaining('variable:notes') });
  });

  it('keeps an explicit write-mode of a section', async () => {
    const { h, c } = await setup();
    h.conversations.setContext(c.id, [{ id: 's', title: 'Log', text: '@model none\n@input file:notes.md (output=variable:log, write-mode=append)', enabled: true }]);
    await h.chat.evaluateContext(c.id);
    await h.chat.evaluateContext(c.id);
    const all = await h.routing.buffers.readAll(c.id, 'log');
    expect(all.split('the notes')).toHaveLength(3);
  });

  it("gives the model the tools of the sections' @tools lines, on top of the conversation's selection", async () => {
    const { h, c, send } = await setup();
    h.conversations.setTools(c.id, { bundleIds: [], toolIds: [h.tools.echo!.id] });
    h.conversations.setContext(c.id, [{ id: 's', title: 'Tools', text: '@model none\n@tools slow (output=variable:slowed)', enabled: true }]);
    h.models.script = [{ toolCalls: [call('slow', { ms: 1, text: 'routed' })] }, { text: 'ok' }];
    await send('go');
    const specs = h.models.requests[0]!.tools;
    expect(specs.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow']));
    expect(specs.map((t) => t.name)).not.toContain('rich');
    // Routed as the section says.
    expect(await h.routing.buffers.readAll(c.id, 'slowed')).toContain('routed');
  });
});
