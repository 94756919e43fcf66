/**
 * Served tools run as tasks for 2026-07-28 clients that declare the tasks extension: the v2
 * SDK's client (as Toolsmith's own client extends it, to take a task as an answer, which the SDK
 * alone refuses) against the server's stateless 2026 handler. A slow tool's call is answered
 * with a task at once, asked after with tasks/get (which carries the result once it is done),
 * cancelled with tasks/cancel; a client that does not declare the extension gets plain calls
 * and -32021 for the task methods.
 */
import { Client, ProtocolError, ProtocolErrorCode, StreamableHTTPClientTransport, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createCore, type Core } from '../app';
import { OrderedClient, taskAnswer } from '../mcp-client/ordered-client';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { seedServedBundle, startEchoServer, type EchoServer, type ServedFixture } from '../testing/mcp-serve-kit';
import { CONFIRM_KEY } from './client-confirm';
import { TASKS_EXTENSION } from './tasks';

const tempDir = useTempDirs();
let core: Core;
let echo: EchoServer;
let fx: ServedFixture;
const closers: (() => Promise<void>)[] = [];

const TASKS: ClientCapabilities = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;
const Task = z.object({ taskId: z.string(), status: z.string() }).passthrough();
const Empty = z.object({}).passthrough();

beforeEach(async () => {
  core = await createCore({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  echo = await startEchoServer();
  fx = await seedServedBundle(core, echo.port);
  const slow = { type: 'http', argSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, outputSchema: {}, http: { method: 'GET', urlTemplate: `http://127.0.0.1:${echo.port}/search?q=\${q}`, headers: {}, timeoutMs: 120_000 } };
  await core.registry.store.putTool(fx.bundleId, 'slow', '1', { displayName: 'slow', description: 'A slow search', tags: [], isEnabled: true, ...slow });
});

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await echo.close();
  await core.close();
});

/** A 2026-07-28 client, its requests handed straight to the server's stateless handler. */
async function connect2026(capabilities: ClientCapabilities = {}): Promise<Client> {
  const handler = core.mcpServer.modernHandler();
  closers.push(() => core.mcpServer.closeModern());
  const client = new OrderedClient({ name: 'tasks-2026', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  closers.push(() => client.close());
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

/** The task a call was answered with (the call must be answered with one). */
async function createTask(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const e = await client.request({ method: 'tools/call', params: { name, arguments: args } }, Empty).then(
    (r) => expect.fail(`answered without a task: ${JSON.stringify(r)}`),
    (x: unknown) => x,
  );
  const task = taskAnswer(e);
  if (!task) throw e;
  return task;
}

const getTask = (client: Client, taskId: unknown) => client.request({ method: 'tasks/get', params: { taskId } } as never, Task);

describe('tasks for 2026-07-28 clients (the tasks extension)', () => {
  it('offers the extension, answers a slow tool with a task at once, and carries its result in tasks/get once done; a quick tool answers plainly', async () => {
    const client = await connect2026(TASKS);
    expect((client.getServerCapabilities() as { extensions?: Record<string, unknown> }).extensions).toMatchObject({ [TASKS_EXTENSION]: {} });
    expect((await client.listTools()).tools.find((t) => t.name === 'slow')!.execution).toBeUndefined();

    const task = await createTask(client, 'slow', { q: 'tides' });
    expect(task).toMatchObject({ taskId: expect.any(String), status: 'working', ttlMs: 600_000, pollIntervalMs: 500, createdAt: expect.any(String), lastUpdatedAt: expect.any(String) });
    expect(task).not.toHaveProperty('content');
    let done: z.infer<typeof Task> | undefined;
    await vi.waitFor(async () => {
      done = await getTask(client, task.taskId);
      expect(done.status).toBe('completed');
    });
    expect((done!.result as CallToolResult).structuredContent).toMatchObject({ path: '/search?q=tides' });
    expect(done).not.toHaveProperty('error');

    const count = (await client.callTool({ name: 'count', arguments: { text: 'a b' } })) as CallToolResult;
    expect(count.isError).toBeFalsy();
  });

  it('answers the task on the wire as the extension writes it: resultType "task", the task itself, nothing else', async () => {
    const handler = core.mcpServer.modernHandler();
    closers.push(() => core.mcpServer.closeModern());
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': TASKS };
    const res = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'slow' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { q: 'hang' }, _meta: envelope } }),
      }),
    );
    const text = await res.text();
    const body = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as { result: Record<string, unknown> };
    expect(Object.keys(body.result).filter((k) => k !== '_meta').sort()).toEqual(['createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs']);
    expect(body.result).toMatchObject({ resultType: 'task', status: 'working' });
  });

  it('cancels a task on tasks/cancel: the call stops and the log records it as cancelled; a cancel of an ended task is acknowledged', async () => {
    const client = await connect2026(TASKS);
    const task = await createTask(client, 'slow', { q: 'hang' });
    const ack = (r: Record<string, unknown>) => Object.keys(r).filter((k) => k !== '_meta');
    expect(ack(await client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } } as never, Empty))).toEqual([]);
    expect(await getTask(client, task.taskId)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the client' });
    await vi.waitFor(
      async () => {
        const log = await core.call('invocations.list', {});
        expect(log.ok && log.value.some((r) => r.slug === 'slow' && r.error?.code === 'CANCELLED')).toBe(true);
      },
      { timeout: 10_000 },
    );
    expect(ack(await client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } } as never, Empty))).toEqual([]);
    const unknown = await getTask(client, 'nope').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect([(unknown as ProtocolError).code, (unknown as ProtocolError).message]).toEqual([ProtocolErrorCode.InvalidParams, expect.stringMatching(/no task nope in this session/)]);
  });

  it('a task that ends in an error result is completed with it (isError), not failed', async () => {
    await core.registry.store.putTool(fx.bundleId, 'unreachable', '1', {
      displayName: 'unreachable',
      description: 'A slow search of a closed port',
      tags: [],
      isEnabled: true,
      type: 'http',
      argSchema: { type: 'object', properties: {} },
      outputSchema: {},
      http: { method: 'GET', urlTemplate: 'http://127.0.0.1:9/nothing', headers: {}, timeoutMs: 120_000 },
    });
    const client = await connect2026(TASKS);
    const task = await createTask(client, 'unreachable', {});
    let done: z.infer<typeof Task> | undefined;
    await vi.waitFor(async () => {
      done = await getTask(client, task.taskId);
      expect(done.status).not.toBe('working');
    });
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
  });

  it('a slow tool that asks before it runs asks in its task: input_required with the question, answered with tasks/update', async () => {
    const slow = (await core.registry.store.allTools()).find((t) => t.slug === 'slow')!;
    await core.registry.store.putTool(fx.bundleId, 'slow-guarded', '1', { displayName: 'slow-guarded', description: 'A slow search that asks', tags: [], isEnabled: true, type: 'http', argSchema: slow.argSchema, outputSchema: {}, http: slow.http, requiresApproval: true });
    const client = await connect2026({ elicitation: {}, ...TASKS } as ClientCapabilities);
    const waiting = async (taskId: unknown) => {
      let t: z.infer<typeof Task> | undefined;
      await vi.waitFor(async () => {
        t = await getTask(client, taskId);
        expect(t.status).toBe('input_required');
      });
      return t as Record<string, unknown>;
    };

    const task = await createTask(client, 'slow-guarded', { q: 'tides' });
    const asked = await waiting(task.taskId);
    expect(asked.inputRequests).toEqual({ [CONFIRM_KEY]: { method: 'elicitation/create', params: expect.objectContaining({ mode: 'form', message: expect.stringMatching(/requires approval/) }) } });
    expect(asked).not.toHaveProperty('result');
    // An answer to no question is ignored: the task still waits.
    await client.request({ method: 'tasks/update', params: { taskId: task.taskId, inputResponses: { other: { action: 'accept', content: {} } } } } as never, Empty);
    expect((await getTask(client, task.taskId)).status).toBe('input_required');
    await client.request({ method: 'tasks/update', params: { taskId: task.taskId, inputResponses: { [CONFIRM_KEY]: { action: 'accept', content: { run: true } } } } } as never, Empty);
    await vi.waitFor(async () => expect(await getTask(client, task.taskId)).toMatchObject({ status: 'completed', result: { structuredContent: { path: '/search?q=tides' } } }));

    const declined = await createTask(client, 'slow-guarded', { q: 'no' });
    await waiting(declined.taskId);
    await client.request({ method: 'tasks/update', params: { taskId: declined.taskId, inputResponses: { [CONFIRM_KEY]: { action: 'decline' } } } } as never, Empty);
    await vi.waitFor(async () => expect(await getTask(client, declined.taskId)).toMatchObject({ status: 'completed', result: { isError: true, content: [{ text: expect.stringMatching(/did not confirm/) }] } }));

    const cancelled = await createTask(client, 'slow-guarded', { q: 'never' });
    await waiting(cancelled.taskId);
    await client.request({ method: 'tasks/cancel', params: { taskId: cancelled.taskId } } as never, Empty);
    expect(await getTask(client, cancelled.taskId)).toMatchObject({ status: 'cancelled' });
    expect(await getTask(client, cancelled.taskId)).not.toHaveProperty('inputRequests');

    // A client that cannot be asked (no form questions) gets the refusal as the task's result.
    const mute = await connect2026(TASKS);
    const refused = await createTask(mute, 'slow-guarded', { q: 'x' });
    await vi.waitFor(async () => expect(await getTask(mute, refused.taskId)).toMatchObject({ status: 'completed', result: { isError: true, content: [{ text: expect.stringMatching(/no Toolsmith window is open/) }] } }));
  });

  it('gives a client that does not declare the extension plain calls, and refuses it the task methods with -32021', async () => {
    const client = await connect2026();
    const r = (await client.callTool({ name: 'slow', arguments: { q: 'tides' } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ path: '/search?q=tides' });
    const e = await getTask(client, 'any').catch((x: unknown) => x);
    expect((e as ProtocolError).code).toBe(ProtocolErrorCode.MissingRequiredClientCapability);
  });
});
