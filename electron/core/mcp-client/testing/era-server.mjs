// MCP servers of each revision, for the client's tests: plain JavaScript so they run as a child
// process over stdio (`node era-server.mjs <mode>`) and in-process over HTTP (makeModernServer).
// Modes:
// - modern: the v2 SDK's server, serving 2026-07-28 and 2025-11-25 (serveStdio picks the era the
//   client opens with);
// - strict-legacy: a 2025 server that ends its process at any request before initialize (as
//   servers built on some SDKs do), so a 2026 probe (server/discover) kills it; its `bad` answers
//   a malformed result, and its `ask` asks the user and never withdraws the question.
// - tasks-legacy: a 2025 server that runs its tools only as MCP tasks (2025-11-25 tasks, written
//   by hand): `research` finishes after three polls, `endless` never does (a cancel ends it and is
//   said on stderr: "task <id> cancelled").
// - tasks-modern: a 2026-07-28 server of the v2 SDK (its low-level Server) that speaks the tasks
//   extension (written by hand after SEP-2663, which the SDK leaves to its users: makeTasksServer):
//   to a client that declares the extension it answers `research`, `endless`, `ask` and `broken`
//   with a task (others are refused with -32021); `research` finishes after three polls,
//   `endless` never does (a cancel is said on stderr: "task <id> cancelled"), `ask` waits for the
//   user's name (input_required, answered with tasks/update), `broken` fails with a JSON-RPC
//   error; `echo` answers at once, task or not.
// Both list `echo`, which says its text back (and, from the modern one, the era); the modern one
// also `slow`, which runs until cancelled and then says so on stderr ("slow cancelled") and in
// `cancelled` (in-process), and `progress_steps`, which reports `steps` steps of progress and sends
// a log message (it declares logging).
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, McpServer, MissingRequiredClientCapabilityError, ProtocolError, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

/** How many `slow` calls were cancelled in this process. */
export const cancelled = { count: 0 };

/** The v2 server with `echo` and `slow`; `era` is the one the SDK built it for. */
export function makeModernServer(era = 'modern') {
  const server = new McpServer({ name: 'era-test', version: '2.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: `${text} (${era})` }],
  }));
  // Asks the user for a name and a size (elicitation, in either era: the SDK carries it), then says what came back.
  server.registerTool('ask', { description: 'Asks the user for their name.', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'who');
    if (answer.kind === 'missing') {
      return inputRequired({
        inputRequests: {
          who: inputRequired.elicit({
            message: 'Who is asking?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string', title: 'Name', minLength: 2 }, size: { type: 'string', enum: ['s', 'l'], default: 'l' } },
              required: ['name'],
            },
          }),
        },
      });
    }
    const text = answer.kind === 'elicit' ? `${answer.action}${answer.content ? ` ${JSON.stringify(answer.content)}` : ''}` : answer.kind;
    return { content: [{ type: 'text', text }] };
  });
  // Lists the client's roots (in either era).
  server.registerTool('roots', { description: 'Lists the client roots.', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (answer.kind === 'missing') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return { content: [{ type: 'text', text: answer.kind === 'roots' ? answer.roots.map((r) => r.uri).join(' ') : answer.kind }] };
  });
  server.registerTool('slow', { description: 'Runs until cancelled.', inputSchema: z.object({}) }, async (_args, ctx) => {
    await new Promise((resolve) => {
      if (ctx.mcpReq.signal.aborted) resolve(undefined);
      ctx.mcpReq.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    cancelled.count++;
    process.stderr.write('slow cancelled\n');
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerTool('progress_steps', { description: 'Reports `steps` steps of progress, then answers.', inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    await ctx.mcpReq.log('info', { starting: steps }, 'steps');
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` } });
    }
    return { content: [{ type: 'text', text: `done after ${steps} steps (${era})` }] };
  });
  return server;
}

const TASKS = 'io.modelcontextprotocol/tasks';

/** The tasks of every makeTasksServer of this process (a 2026 server is made per request over HTTP). */
const modernTasks = new Map();

/** The 2026 server that answers calls with tasks (the tasks extension). */
export function makeTasksServer() {
  const server = new Server({ name: 'tasks-modern', version: '2.0.0' }, { capabilities: { tools: {}, extensions: { [TASKS]: {} } } });
  const declares = (ctx) => ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS] !== undefined;
  const required = () => new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS]: {} } } }, 'this server runs its tools as tasks');
  const topic = { type: 'object', properties: { topic: { type: 'string' } } };
  const view = (t) => ({
    taskId: t.id,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 50,
    ...(t.message ? { statusMessage: t.message } : {}),
    ...(t.status === 'completed' ? { result: t.result } : {}),
    ...(t.status === 'failed' ? { error: t.error } : {}),
    ...(t.status === 'input_required' ? { inputRequests: t.inputRequests } : {}),
  });
  const task = (ctx, id) => {
    if (!declares(ctx)) throw required();
    const t = modernTasks.get(id);
    if (!t) throw new ProtocolError(-32602, `no task ${id}`);
    return t;
  };
  server.setRequestHandler('tools/list', () => ({
    tools: ['research', 'endless', 'ask', 'broken', 'echo'].map((name) => ({ name, description: `The ${name} tool.`, inputSchema: topic })),
  }));
  server.setRequestHandler('tools/call', (req, ctx) => {
    const { name, arguments: args } = req.params;
    if (name === 'echo') return { content: [{ type: 'text', text: `${args?.topic ?? ''} (no task)` }] };
    if (!declares(ctx)) throw required();
    const t = { id: `mtask-${modernTasks.size + 1}`, tool: name, topic: args?.topic ?? '', status: 'working', polls: 0, createdAt: new Date().toISOString(), message: 'started' };
    modernTasks.set(t.id, t);
    const { result: _r, error: _e, inputRequests: _i, ...created } = view(t);
    return { resultType: 'task', ...created };
  });
  const byId = { params: z.object({ taskId: z.string() }).passthrough() };
  server.setRequestHandler('tasks/get', byId, (p, ctx) => {
    const t = task(ctx, p.taskId);
    if (t.status === 'working') t.polls++;
    if (t.status === 'working' && t.tool === 'research' && t.polls >= 3) Object.assign(t, { status: 'completed', result: { content: [{ type: 'text', text: `report on ${t.topic}` }] } });
    if (t.status === 'working' && t.tool === 'broken') Object.assign(t, { status: 'failed', error: { code: -32603, message: 'the back end is down' } });
    if (t.status === 'working' && t.tool === 'ask' && !t.asked) {
      t.asked = true;
      Object.assign(t, { status: 'input_required', inputRequests: { who: { method: 'elicitation/create', params: { mode: 'form', message: 'Who is asking?', requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] } } } } });
    }
    if (t.status === 'working') t.message = `step ${t.polls}`;
    else if (t.status !== 'input_required') t.message = t.status === 'completed' ? 'done' : undefined;
    return view(t);
  });
  server.setRequestHandler('tasks/update', { params: z.object({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()).optional() }).passthrough() }, (p, ctx) => {
    const t = task(ctx, p.taskId);
    const answer = p.inputResponses?.who ?? ctx.mcpReq.inputResponses?.who;
    if (t.status === 'input_required' && answer) {
      process.stderr.write(`task ${t.id} answered\n`);
      Object.assign(t, { status: 'completed', inputRequests: undefined, result: { content: [{ type: 'text', text: `hello ${answer.content?.name ?? answer.action}` }] } });
    }
    return {};
  });
  server.setRequestHandler('tasks/cancel', byId, (p, ctx) => {
    const t = task(ctx, p.taskId);
    if (t.status === 'working' || t.status === 'input_required') {
      t.status = 'cancelled';
      process.stderr.write(`task ${t.id} cancelled\n`);
    }
    return {};
  });
  return server;
}

function strictLegacy() {
  const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
  let initialized = false;
  let asking;
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (!initialized && m.method !== 'initialize') {
      process.stderr.write(`strict-legacy: '${m.method}' before initialize: exiting\n`);
      process.exit(1);
    }
    if (m.method === 'initialize') {
      initialized = true;
      write({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'strict-legacy', version: '1.0.0' } } });
    } else if (m.method === 'tools/list') {
      const none = { type: 'object', properties: {} };
      write({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          tools: [
            { name: 'echo', description: 'Says the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
            { name: 'bad', description: 'Answers a malformed result.', inputSchema: none },
            { name: 'ask', description: 'Asks the user, and never withdraws the question.', inputSchema: none },
          ],
        },
      });
    } else if (m.method === 'tools/call' && m.params.name === 'bad') {
      write({ jsonrpc: '2.0', id: m.id, result: { content: 'not an array' } });
    } else if (m.method === 'tools/call' && m.params.name === 'ask') {
      // Asks, and never withdraws the question (a cancel of the call is not acted on).
      asking = m.id;
      write({ jsonrpc: '2.0', id: 'q1', method: 'elicitation/create', params: { message: 'Still there?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } });
    } else if (m.id === 'q1' && asking !== undefined) {
      write({ jsonrpc: '2.0', id: asking, result: { content: [{ type: 'text', text: JSON.stringify(m.result ?? m.error) }] } });
      asking = undefined;
    } else if (m.method === 'tools/call') {
      write({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `${m.params.arguments.text} (legacy)` }] } });
    } else if (m.id !== undefined) {
      write({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
    }
  });
}

function tasksLegacy() {
  const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
  const tasks = new Map();
  const taskView = (t) => ({ taskId: t.id, status: t.status, ttl: 60_000, createdAt: t.createdAt, lastUpdatedAt: new Date().toISOString(), pollInterval: 50, ...(t.message ? { statusMessage: t.message } : {}) });
  const tool = (name) => ({ name, description: `Runs as a task (${name}).`, inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] }, execution: { taskSupport: 'required' } });
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    const ok = (result) => write({ jsonrpc: '2.0', id: m.id, result });
    const fail = (code, message) => write({ jsonrpc: '2.0', id: m.id, error: { code, message } });
    switch (m.method) {
      case 'initialize':
        return ok({ protocolVersion: '2025-11-25', capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, serverInfo: { name: 'tasks-legacy', version: '1.0.0' } });
      case 'tools/list':
        return ok({ tools: [tool('research'), tool('endless')] });
      case 'tools/call': {
        if (!m.params.task) return fail(-32600, `Tool "${m.params.name}" requires task-based execution`);
        const t = { id: `task-${tasks.size + 1}`, tool: m.params.name, topic: m.params.arguments.topic, status: 'working', polls: 0, createdAt: new Date().toISOString(), message: 'started' };
        tasks.set(t.id, t);
        return ok({ task: taskView(t) });
      }
      case 'tasks/get': {
        const t = tasks.get(m.params.taskId);
        if (!t) return fail(-32602, 'no such task');
        if (t.status === 'working') t.polls++;
        if (t.status === 'working' && t.tool === 'research' && t.polls >= 3) t.status = 'completed';
        t.message = t.status === 'completed' ? 'done' : `step ${t.polls}`;
        return ok(taskView(t));
      }
      case 'tasks/result': {
        const t = tasks.get(m.params.taskId);
        if (!t || t.status !== 'completed') return fail(-32602, 'the task is not done');
        return ok({ content: [{ type: 'text', text: `report on ${t.topic}` }] });
      }
      case 'tasks/cancel': {
        const t = tasks.get(m.params.taskId);
        if (!t) return fail(-32602, 'no such task');
        t.status = 'cancelled';
        process.stderr.write(`task ${t.id} cancelled\n`);
        return ok(taskView(t));
      }
      default:
        if (m.id !== undefined) fail(-32601, 'Method not found');
    }
  });
}

if (/era-server\.mjs$/.test(process.argv[1] ?? '') && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.argv[2] ?? 'modern';
  if (mode === 'strict-legacy') strictLegacy();
  else if (mode === 'tasks-legacy') tasksLegacy();
  else if (mode === 'tasks-modern') serveStdio(() => makeTasksServer());
  else serveStdio(({ era }) => makeModernServer(era));
}
