/**
 * Arguments edited on an approval card are checked against the tool's argSchema before the
 * call runs: invalid ones are refused to the card (VALIDATION_FAILED, through the
 * approvals.respond handler) and the call keeps waiting; nothing reaches the tool or the model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentHandlers } from './agent-handlers';
import { createRouter, type HandlerTable } from '../router';
import { useTempDirs } from '../testing/temp-dir';
import { call, harness, until, type Harness } from '../testing/agent-harness';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function setup() {
  const h = await harness(await tempDir());
  open.push(h);
  const c = h.conversations.create(undefined, { providerId: 'p1', model: 'm1' });
  const router = createRouter(agentHandlers({ conversations: h.conversations, loop: h.loop, approvals: h.approvals }) as unknown as HandlerTable);
  const toolRows = () => h.conversations.messages(c.id).filter((m) => m.role === 'tool');
  const respond = (invocationId: string, decision: string, args?: unknown) =>
    router.call('approvals.respond', { conversationId: c.id, invocationId, decision, ...(args === undefined ? {} : { args }) });
  return { h, c, toolRows, respond };
}

describe('edited arguments on an approval card', () => {
  it('refuses arguments that do not match the schema and keeps the call waiting; valid ones then run', async () => {
    const { h, c, toolRows, respond } = await setup();
    h.models.script = [{ toolCalls: [call('guarded', { text: 'original' }, 'g1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    const id = waiting.tool!.invocationId;

    // Too long for maxLength 20, an unknown property, a missing required one, not an object.
    const tooLong = await respond(id, 'allow-once', { text: 'x'.repeat(50) });
    expect(tooLong).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('/text'), details: { phase: 'args' } } });
    expect(await respond(id, 'allow-always', { text: 'a', extra: 1 })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining("'extra'") } });
    expect(await respond(id, 'allow-conversation', {})).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining("'text'") } });
    expect(await respond(id, 'allow-once', [1])).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });

    // Still waiting: no new row, no model step, no rule remembered, nothing ran.
    expect(toolRows().map((m) => m.tool!.status)).toEqual(['awaiting-approval']);
    expect(h.models.requests).toHaveLength(1);
    expect(h.approvals.list()).toEqual([]);
    expect(h.loop.isRunning(c.id)).toBe(true);

    expect(await respond(id, 'allow-once', { text: 'fixed' })).toEqual({ ok: true, value: { accepted: true } });
    await sent;
    await h.loop.settled(c.id);
    expect(toolRows().at(-1)!.tool).toMatchObject({ status: 'ok', args: { text: 'fixed' }, value: { echo: 'fixed' }, invocationId: id });
    expect(h.models.requests).toHaveLength(2);
  });

  it('approvals.check answers the issues Allow would refuse, on their paths, without answering the call', async () => {
    const { h, c, toolRows, respond } = await setup();
    const router = createRouter(agentHandlers({ conversations: h.conversations, loop: h.loop, approvals: h.approvals }) as unknown as HandlerTable);
    const check = (invocationId: string, args: unknown) => router.call('approvals.check', { conversationId: c.id, invocationId, args });
    h.models.script = [{ toolCalls: [call('guarded', { text: 'original' }, 'g1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    const id = waiting.tool!.invocationId;

    expect(await check(id, { text: 'x'.repeat(50) })).toEqual({ ok: true, value: { waiting: true, issues: [{ path: '/text', message: expect.stringContaining('20') }] } });
    expect(await check(id, {})).toEqual({ ok: true, value: { waiting: true, issues: [{ path: '(root)', message: expect.stringContaining("'text'") }] } });
    expect(await check(id, { text: 'fine' })).toEqual({ ok: true, value: { waiting: true, issues: [] } });
    expect(await check('no-such-call', { text: 'fine' })).toEqual({ ok: true, value: { waiting: false, issues: [] } });
    // Checking answered nothing: the call still waits, and Allow still refuses what check flagged.
    expect(toolRows().map((m) => m.tool!.status)).toEqual(['awaiting-approval']);
    expect(await respond(id, 'allow-once', {})).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(await respond(id, 'allow-once', { text: 'fine' })).toEqual({ ok: true, value: { accepted: true } });
    await sent;
    await h.loop.settled(c.id);
  });

  it('does not check arguments sent with a denial', async () => {
    const { h, c, toolRows, respond } = await setup();
    h.models.script = [{ toolCalls: [call('guarded', { text: 'x' }, 'g1')] }, { text: 'understood' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(await respond(waiting.tool!.invocationId, 'deny', { text: 'x'.repeat(50) })).toEqual({ ok: true, value: { accepted: true } });
    await sent;
    await h.loop.settled(c.id);
    expect(toolRows().at(-1)!.tool).toMatchObject({ status: 'denied', decision: 'deny' });
  });
});
