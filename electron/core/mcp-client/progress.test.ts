/**
 * What a server sends during a call besides its answer: progress (notifications/progress) reaches
 * the dispatcher's listeners and the window's event, paced, and keeps a long call alive up to its
 * cap; log messages (notifications/message) land in the server's log with their level and logger.
 */
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpLogLine } from '../../../shared/model/mcp-client';
import type { InvocationProgress } from '../../../shared/model/invocation';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, openCore, stdioServer, until } from './testing/harness';

const ERA_SERVER = path.join(import.meta.dirname, 'testing', 'era-server.mjs');
const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function core(): Promise<Core> {
  const c = await openCore(await tempDir());
  cores.push(c);
  return c;
}

async function logOf(c: Core, bundleId: string): Promise<McpLogLine[]> {
  const r = await c.call('mcpServers.log', { bundleId });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Runs `slug` with `args`, gathering the progress the dispatcher's listeners and the window's event are told of. */
async function runWithProgress(c: Core, bundleId: string, slug: string, args: object) {
  const invocationId = uuidv7();
  const heard: InvocationProgress[] = [];
  const pushed: InvocationProgress[] = [];
  const offListener = c.dispatcher.onProgress((p) => {
    if (p.invocationId === invocationId) heard.push(p);
  });
  const offEvent = c.events.on('invocation.progress', (p) => {
    if (p.invocationId === invocationId) pushed.push(p);
  });
  let answeredAfter = -1;
  try {
    const outcome = await c.dispatcher.invoke({ bundleId, slug, version: '1', args, source: 'api', invocationId }).then((o) => {
      answeredAfter = heard.length;
      return o;
    });
    return { outcome, heard, pushed, answeredAfter };
  } finally {
    offListener();
    offEvent();
  }
}

function expectInOrder(reports: InvocationProgress[]): void {
  for (let i = 1; i < reports.length; i++) expect(reports[i]!.progress).toBeGreaterThan(reports[i - 1]!.progress);
}

describe('progress and log messages of an MCP server', () => {
  it('passes a call’s progress on, in order, the last report before the answer, and keeps the server’s log messages', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer('progress'));
    expect(v.status.state, v.status.reason).toBe('connected');
    const { outcome, heard, pushed, answeredAfter } = await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 5, ms: 30 });
    expect(outcome).toMatchObject({ ok: true, value: 'done after 5 steps' });
    expect(heard.length).toBeGreaterThan(0);
    expectInOrder(heard);
    expect(heard.at(-1)).toEqual({ invocationId: outcome.invocationId, progress: 5, total: 5, message: 'step 5 of 5' });
    // Every report had reached the listeners when the answer came.
    expect(answeredAfter).toBe(heard.length);
    // The window's event carries the same reports.
    expect(pushed).toEqual(heard);

    // The server was asked for info and above (logging/setLevel): its debug message is not sent.
    const messages = (await logOf(c, v.bundleId)).filter((l) => l.stream === 'message');
    expect(messages.map(({ level, logger, text }) => ({ level, logger, text }))).toEqual([
      { level: 'info', logger: 'steps', text: '{"starting":5}' },
      { level: 'warning', logger: undefined, text: 'done after 5 steps' },
    ]);
  });

  it('paces a flood of progress: a few reports reach the listeners, the last one always', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer('progress'));
    const { outcome, heard } = await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 3000, ms: 0, total: false });
    expect(outcome).toMatchObject({ ok: true, value: 'done after 3000 steps' });
    expect(heard.length).toBeGreaterThan(0);
    // At most ten a second: far fewer than the server sent.
    expect(heard.length).toBeLessThan(300);
    expectInOrder(heard);
    // Without a total the report has none.
    expect(heard.at(-1)).toEqual({ invocationId: outcome.invocationId, progress: 3000, message: 'step 3000 of 3000' });
    // No report came after its call was answered (read together with the answer, each was handled first).
    expect((await logOf(c, v.bundleId)).filter((l) => /unknown token/.test(l.text))).toEqual([]);
  });

  it('lets a call that reports progress run past its limit, up to ten times the limit in all; a silent call gets the plain limit', async () => {
    const c = await core();
    const v = await addServer(c, stdioServer('progress', { timeouts: { startMs: 30_000, callMs: 300 } }));
    // A call that says nothing is timed out at its limit.
    const slow = await c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'slow', version: '1', args: { ms: 5_000 }, source: 'api' });
    expect(slow).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: expect.stringContaining('within 300 ms') } });

    // Eight steps 100 ms apart (about 800 ms): each report starts the 300 ms limit again.
    const long = await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 8, ms: 100 });
    expect(long.outcome).toMatchObject({ ok: true, value: 'done after 8 steps' });

    // Reporting for ever does not keep it alive past the cap (3000 ms), and the server is told to stop.
    const endless = await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 100_000, ms: 100 });
    expect(endless.outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: expect.stringMatching(/did not finish tools\/call progress_steps within 3000 ms \(its limit of 300 ms starts again at each progress report/) },
    });
    expect(endless.heard.length).toBeGreaterThan(0);
    await until(async () => (await logOf(c, v.bundleId)).some((l) => l.stream === 'stderr' && l.text === 'progress_steps cancelled'), 'the server told the call was given up');
    // The server stays usable.
    expect((await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 1 })).outcome).toMatchObject({ ok: true });
  });

  it('passes on the progress and keeps the log messages of a 2026-07-28 server', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Modern stdio', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'modern'] } });
    expect(v.status.state, v.status.reason).toBe('connected');
    const { outcome, heard } = await runWithProgress(c, v.bundleId, 'progress-steps', { steps: 3 });
    expect(outcome).toMatchObject({ ok: true, value: 'done after 3 steps (modern)' });
    expectInOrder(heard);
    expect(heard.at(-1)).toEqual({ invocationId: outcome.invocationId, progress: 3, total: 3, message: 'step 3 of 3' });
    await until(async () => (await logOf(c, v.bundleId)).some((l) => l.stream === 'message' && l.level === 'info' && l.logger === 'steps' && l.text === '{"starting":3}'), 'the log message kept');
  });
});
