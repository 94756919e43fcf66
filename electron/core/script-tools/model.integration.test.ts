/**
 * A model uses a script tool through the whole core and the scripted model server: the tool is
 * offered with its argSchema, the model's call runs in the sandbox, and the model reads its result.
 */
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';
import { scriptBody } from './testing/script-kit';

const start = useAgentCore();

type Msg = { role: string; content?: unknown };
const lastTool = (r: RecordedRequest) => {
  const m = ((r.body.messages ?? []) as Msg[]).filter((x) => x.role === 'tool').at(-1);
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');
};

describe('a model and a script tool', () => {
  it('is offered the tool, calls it, and reads what the script returned', async () => {
    const { server, call, model, send, messages } = await start();
    const bundleId = uuidv7();
    await call('bundles.put', { bundleId, body: { slug: 'scripts', displayName: 'Scripts', description: '', isEnabled: true } });
    await call('tools.put', {
      bundleId,
      slug: 'add',
      version: '1',
      body: { ...scriptBody('function run(a, ctx) { ctx.log("adding"); return { sum: a.a + a.b } }'), description: 'Adds two numbers', argSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    });
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    let offered: unknown;
    server.script([
      (r) => {
        offered = ((r.body.tools ?? []) as { function: { name: string; parameters: unknown } }[]).find((t) => t.function.name === 'add')?.function.parameters;
        return { kind: 'tools', calls: [{ name: 'add', arguments: { a: 20, b: 22 } }] };
      },
      (r) => ({ kind: 'text', text: `the tool said ${lastTool(r)}` }),
    ]);
    await send(c.id, 'add 20 and 22');
    expect(offered).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    const rows = await messages(c.id);
    expect(rows.filter((m) => m.role === 'tool').at(-1)?.tool).toMatchObject({ slug: 'add', status: 'ok' });
    expect(rows.at(-1)?.text).toMatch(/the tool said .*"sum":\s*42/);
  });
});
