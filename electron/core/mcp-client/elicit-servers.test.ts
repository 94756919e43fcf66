/**
 * Servers that ask the user mid-call, in both revisions: a 2025 server sends elicitation/create
 * (and roots/list); a 2026-07-28 server answers input_required, and the client asks the same
 * question and calls again. The question waits in the app until the window answers it.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, stdioServer, until } from './testing/harness';

const ERA_SERVER = path.join(import.meta.dirname, 'testing', 'era-server.mjs');
const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function core(): Promise<Core> {
  const c = await openCore(await tempDir());
  closers.push(() => c.close());
  return c;
}

/** Waits for the server's question, then gives the window's answer. */
async function answer(c: Core, action: 'accept' | 'decline' | 'cancel', content?: Record<string, string>) {
  let id = '';
  await until(async () => {
    const r = await c.call('mcpElicitations.list', {});
    id = r.ok && r.value[0] ? r.value[0].id : '';
    return id !== '';
  }, 'the question waiting');
  return c.call('mcpElicitations.respond', { id, action, ...(content ? { content } : {}) });
}

const servers = [
  ['2025-11-25 (elicitation/create)', () => stdioServer('elicit')],
  ['2026-07-28 (input_required)', () => ({ name: 'Modern', connection: { transport: 'stdio' as const, command: process.execPath, args: [ERA_SERVER, 'modern'] } })],
] as const;

describe.each(servers)('a server that asks the user, %s', (_era, server) => {
  it('shows the form; an answer that does not fit is refused with why and the question keeps waiting; the fitting one reaches the server', async () => {
    const c = await core();
    const detach = c.attachWindow();
    closers.push(async () => detach());
    const v = await addServer(c, server());
    expect(v.status.state, v.status.reason).toBe('connected');
    const invocationId = uuidv7();
    const running = c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'ask', version: '1', args: {}, source: 'tester', invocationId });
    await until(async () => {
      const r = await c.call('mcpElicitations.list', {});
      return r.ok && r.value.length === 1;
    }, 'the question waiting');
    const listed = await c.call('mcpElicitations.list', {});
    // It names the call that asks: that call's card shows it in place.
    expect(listed.ok && listed.value[0]).toMatchObject({ bundleId: v.bundleId, tool: 'ask', invocationId, mode: 'form', message: 'Who is asking?', fields: expect.arrayContaining([expect.objectContaining({ name: 'name', kind: 'string', required: true })]) });
    expect(await answer(c, 'accept', { name: 'A' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: 'Name: at least 2 characters' } });
    expect(await answer(c, 'accept', { name: 'Ada' })).toMatchObject({ ok: true, value: { accepted: true } });
    expect(await running).toMatchObject({ ok: true, value: expect.stringContaining('accept {"name":"Ada"') });
  });

  it('tells the server the user declined; with no window open the question is cancelled at once', async () => {
    const c = await core();
    const detach = c.attachWindow();
    const v = await addServer(c, server());
    const running = call(c, v.bundleId, 'ask');
    expect(await answer(c, 'decline')).toMatchObject({ ok: true });
    expect(await running).toMatchObject({ ok: true, value: 'decline' });
    detach();
    expect(await call(c, v.bundleId, 'ask')).toMatchObject({ ok: true, value: 'cancel' });
  });

  it('answers roots/list with the folder the server works in', async () => {
    const c = await core();
    const v = await addServer(c, server());
    const r = await call(c, v.bundleId, 'roots');
    expect(r).toMatchObject({ ok: true, value: pathToFileURL(c.workspaceDir()).href });
  });
});

describe('a 2025 server that asks the user to open a page', () => {
  it('shows the page; Done tells the server it was accepted', async () => {
    const c = await core();
    const detach = c.attachWindow();
    closers.push(async () => detach());
    const v = await addServer(c, stdioServer('elicit'));
    const running = call(c, v.bundleId, 'ask', { url: true });
    await until(async () => {
      const r = await c.call('mcpElicitations.list', {});
      return r.ok && r.value[0]?.mode === 'url';
    }, 'the question waiting');
    const listed = await c.call('mcpElicitations.list', {});
    expect(listed.ok && listed.value[0]).toMatchObject({ mode: 'url', url: 'https://example.com/form', message: 'Sign the form' });
    expect(await answer(c, 'accept')).toMatchObject({ ok: true });
    expect(await running).toMatchObject({ ok: true, value: 'accept' });
  });
});
