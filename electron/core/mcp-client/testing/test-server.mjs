// A small MCP server for tests, e2e and benchmarks: plain JavaScript so it runs as a child
// process (`node test-server.mjs [mode]`, stdio) and in-process (makeServer, for HTTP).
// Modes (argv[2] or MCP_TEST_MODE): normal, junk (prints junk on stdout), hang (never answers
// initialize), invalid (lists a tool with an invalid schema among good ones), tasks (lists a tool
// that runs only as an MCP task and one that may), late (lists late_big, whose answer comes late
// and big), headers (over HTTP: lists request_headers, which says back the Authorization header it
// was called with), elicit (lists ask and roots, which ask the client), progress (declares logging and lists progress_steps, which reports its progress
// and sends log messages).
// Over stdio, the environment adds: MCP_TEST_LIST_MB (tools/list carries that many megabytes of
// description), MCP_TEST_ID_FIRST=1 (late_big's late answer has its id first, as Python's SDK
// writes), MCP_TEST_CHILD=quiet|stdout (starts a sleeping child, as npx or uvx start the real
// server; `stdout` lets it inherit the server's stdout, holding the pipe open) with its pid
// appended to the file MCP_TEST_PID_FILE.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CancelledNotificationSchema, ListToolsRequestSchema, ReadResourceRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const BASE_TOOLS = [
  {
    name: 'echo',
    title: 'Echo text',
    description: 'Says the text back.',
    inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add_numbers',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  { name: 'picture', description: 'A 1-pixel PNG and a link.', inputSchema: { type: 'object', properties: {} } },
  { name: 'read_resource', description: 'An embedded text resource.', inputSchema: { type: 'object', properties: {} } },
  { name: 'delete_everything', description: 'Pretends to delete things.', inputSchema: { type: 'object', properties: {} }, annotations: { destructiveHint: true } },
  { name: 'fail', description: 'Reports a tool error.', inputSchema: { type: 'object', properties: {} } },
  { name: 'big', description: 'Returns `mb` megabytes of text.', inputSchema: { type: 'object', properties: { mb: { type: 'number' } }, required: ['mb'] } },
  { name: 'die', description: 'Ends the server process in the middle of the call.', inputSchema: { type: 'object', properties: {} } },
  { name: 'slow', description: 'Answers after `ms` milliseconds.', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
  {
    name: 'add_tool',
    description: 'Adds (or replaces) a tool named `name`, run as an MCP task if `taskSupport` says so, and says the list changed.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' }, taskSupport: { type: 'string' } }, required: ['name'] },
  },
  { name: 'whoami', description: 'The process id and an env value.', inputSchema: { type: 'object', properties: {} } },
];

const LATE_TOOLS = [
  {
    name: 'late_big',
    description: 'Does not answer in time: its answer, `mb` megabytes, comes first thing in the next tools/call.',
    inputSchema: { type: 'object', properties: { mb: { type: 'number' } }, required: ['mb'] },
  },
];

const INVALID_TOOLS = [
  { name: 'bad_schema', description: 'inputSchema is not an object schema.', inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } },
  { name: 'bad_ref', description: 'inputSchema has a dangling $ref.', inputSchema: { type: 'object', properties: { x: { $ref: '#/$defs/missing' } } } },
];

// MCP tasks (2025-11-25): a tool that runs only as a task, and one that may.
/** Over HTTP with mode `resume`: closes the call's event stream before it answers (the client resumes it with Last-Event-ID). */
const RESUME_TOOLS = [{ name: 'resume_echo', description: 'Echoes its text after closing the answer stream once.', inputSchema: { type: 'object', properties: { text: { type: 'string' }, ms: { type: 'number' } } } }];

const TASK_TOOLS = [
  { name: 'task_only', description: 'Runs only as an MCP task.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'required' } },
  { name: 'task_maybe', description: 'Runs as a task or as a plain call.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'optional' } },
];

/** Mode `progress`: reports `steps` steps of progress, `ms` apart, and sends log messages (one of them debug, below the info the client asks for). */
const PROGRESS_TOOLS = [
  {
    name: 'progress_steps',
    description: 'Reports `steps` steps of progress `ms` apart (with a total unless `total` is false), sends log messages, then answers.',
    inputSchema: { type: 'object', properties: { steps: { type: 'number' }, ms: { type: 'number' }, total: { type: 'boolean' } }, required: ['steps'] },
  },
];

/** Mode `elicit`: asks the user (elicitation/create) and lists the client's roots (roots/list), as a 2025 server does. */
const ELICIT_TOOLS = [
  { name: 'ask', description: 'Asks the user for a name, then says what came back.', inputSchema: { type: 'object', properties: { url: { type: 'boolean' } } } },
  { name: 'roots', description: 'Lists the client roots.', inputSchema: { type: 'object', properties: {} } },
];

const HEADER_TOOLS = [
  { name: 'request_headers', description: 'The Authorization header of the HTTP request that called it, and its token.', inputSchema: { type: 'object', properties: {} } },
];

// hooks: onCall(name, args), onDie(), listMb, extra (the tools add_tool adds, shared by the servers of several sessions),
// writeLine(text) (writes a raw line to the client; stdio), idFirst (the raw answers of late_big put their id first, as
// Python's SDK does, rather than last, as this SDK does), afterLate() (over HTTP: the next call answers once it resolves).
export function makeServer(mode = 'normal', hooks = {}) {
  // A server that offers no tools at all (only, say, prompts): no tools capability.
  if (mode === 'no-tools') return new Server({ name: 'toolsmith-test-server', version: '1.0.0' }, { capabilities: {} });
  const extra = hooks.extra ?? [];
  /** A late_big call not answered yet: its id, size, and (over HTTP) how to answer it. */
  let late;
  const server = new Server({ name: 'toolsmith-test-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: {}, ...(mode === 'progress' ? { logging: {} } : {}) } });
  // Over HTTP, late_big is answered however late, as some servers do: a cancel does not end it.
  if (mode === 'late' && !hooks.writeLine) server.setNotificationHandler(CancelledNotificationSchema, () => undefined);
  const huge = hooks.listMb ? [{ name: 'huge', description: 'd'.repeat(Math.round(hooks.listMb * 1024 * 1024)), inputSchema: { type: 'object', properties: {} } }] : [];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...BASE_TOOLS, ...(mode === 'invalid' ? INVALID_TOOLS : []), ...(mode === 'headers' ? HEADER_TOOLS : []), ...(mode === 'tasks' ? TASK_TOOLS : []), ...(mode === 'late' ? LATE_TOOLS : []), ...(mode === 'resume' ? RESUME_TOOLS : []), ...(mode === 'progress' ? PROGRESS_TOOLS : []), ...(mode === 'elicit' ? ELICIT_TOOLS : []), ...extra, ...huge],
  }));
  // What `picture` links to and `read_resource` embeds, and a resource too large to show.
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    if (uri === 'file:///tmp/pixel.png') return { contents: [{ uri, mimeType: 'image/png', blob: PNG_1PX }] };
    if (uri === 'memo://notes') return { contents: [{ uri, mimeType: 'text/plain', text: 'the notes' }] };
    if (uri === 'memo://odd') return { contents: [{ uri, mimeType: 'image/png,"><script>', blob: PNG_1PX.replace(/(.{20})/g, '$1\n') }] };
    if (uri === 'memo://huge') return { contents: [{ uri, mimeType: 'text/plain', text: 'x'.repeat(5 * 1024 * 1024) }] };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, ctx) => {
    const args = req.params.arguments ?? {};
    hooks.onCall?.(req.params.name, args);
    if (late) {
      // The answer to the late call, long after the client gave up on it, before this call's own.
      const { id, mb, answer } = late;
      late = undefined;
      const result = { content: [{ type: 'text', text: 'x'.repeat(Math.round(mb * 1024 * 1024)) }] };
      if (hooks.writeLine) hooks.writeLine(JSON.stringify(hooks.idFirst ? { jsonrpc: '2.0', id, result } : { result, jsonrpc: '2.0', id }));
      else {
        answer(result);
        await hooks.afterLate?.();
      }
    }
    switch (req.params.name) {
      case 'resume_echo':
        ctx.closeSSEStream?.();
        await new Promise((r) => setTimeout(r, Number(args.ms ?? 300)));
        return { content: [{ type: 'text', text: String(args.text) }] };
      case 'echo':
        return { content: [{ type: 'text', text: String(args.text) }] };
      case 'add_numbers': {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
      }
      case 'picture':
        return {
          content: [
            { type: 'text', text: 'a pixel' },
            { type: 'image', mimeType: 'image/png', data: PNG_1PX },
            { type: 'resource_link', uri: 'file:///tmp/pixel.png', name: 'pixel.png', mimeType: 'image/png' },
          ],
        };
      case 'read_resource':
        return { content: [{ type: 'resource', resource: { uri: 'memo://notes', mimeType: 'text/plain', text: 'the notes' } }] };
      case 'delete_everything':
        return { content: [{ type: 'text', text: 'deleted nothing' }] };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'the widget is out of stock' }] };
      case 'big':
        return { content: [{ type: 'text', text: 'x'.repeat(Math.round(Number(args.mb) * 1024 * 1024)) }] };
      case 'die':
        if (hooks.onDie) setTimeout(() => hooks.onDie(), 10);
        else setTimeout(() => process.exit(3), 10);
        return new Promise(() => {});
      case 'slow':
        await new Promise((r) => {
          const t = setTimeout(r, Number(args.ms ?? 1000));
          // The client's notifications/cancelled aborts this.
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            process.stderr.write('slow cancelled\n');
            r(undefined);
          });
        });
        return { content: [{ type: 'text', text: 'slept' }] };
      case 'add_tool': {
        const at = extra.findIndex((t) => t.name === String(args.name));
        if (at >= 0) extra.splice(at, 1);
        extra.push({
          name: String(args.name),
          description: 'Added at run time.',
          inputSchema: { type: 'object', properties: {} },
          ...(args.taskSupport ? { execution: { taskSupport: String(args.taskSupport) } } : {}),
        });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'added' }] };
      }
      case 'task_maybe':
        return { content: [{ type: 'text', text: 'ran without a task' }] };
      case 'task_only':
        throw new Error('task_only runs only as a task');
      case 'request_headers': {
        const authorization = String(ctx.requestInfo?.headers?.authorization ?? '');
        return { content: [{ type: 'text', text: JSON.stringify({ authorization, token: authorization.replace(/^Bearer /i, '') }) }] };
      }
      case 'late_big':
        return new Promise((resolve) => {
          late = { id: ctx.requestId, mb: Number(args.mb), answer: resolve };
          // Over stdio the client's notifications/cancelled ends the handler (the SDK then sends nothing).
          ctx.signal.addEventListener('abort', () => resolve({ content: [] }));
        });
      case 'progress_steps': {
        const steps = Number(args.steps);
        const token = req.params._meta?.progressToken;
        const log = (level, data, logger) => server.sendLoggingMessage({ level, data, ...(logger ? { logger } : {}) }, ctx.sessionId);
        await log('debug', 'below the level asked for', 'steps');
        await log('info', { starting: steps }, 'steps');
        for (let i = 1; i <= steps; i++) {
          if (Number(args.ms ?? 0) > 0) await new Promise((r) => setTimeout(r, Number(args.ms)));
          if (ctx.signal.aborted) {
            process.stderr.write('progress_steps cancelled\n');
            return { content: [] };
          }
          if (token !== undefined) {
            await ctx.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, ...(args.total === false ? {} : { total: steps }), message: `step ${i} of ${steps}` } });
          }
        }
        await log('warning', `done after ${steps} steps${token === undefined ? ' (no progress asked for)' : ''}`);
        return { content: [{ type: 'text', text: `done after ${steps} steps` }] };
      }
      case 'ask': {
        const params = args.url
          ? { mode: 'url', message: 'Sign the form', url: 'https://example.com/form', elicitationId: 'e-1' }
          : { message: 'Who is asking?', requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name', minLength: 2 } }, required: ['name'] } };
        const r = await server.elicitInput(params, { signal: ctx.signal });
        return { content: [{ type: 'text', text: `${r.action}${r.content ? ` ${JSON.stringify(r.content)}` : ''}` }] };
      }
      case 'roots': {
        const r = await server.listRoots();
        return { content: [{ type: 'text', text: r.roots.map((x) => x.uri).join(' ') }] };
      }
      case 'whoami':
        return { content: [{ type: 'text', text: JSON.stringify({ pid: process.pid, env: process.env.MCP_TEST_VALUE ?? null, cwd: process.cwd() }) }] };
      default:
        if (extra.some((t) => t.name === req.params.name)) return { content: [{ type: 'text', text: `ran ${req.params.name}` }] };
        throw new Error(`unknown tool ${req.params.name}`);
    }
  });
  return server;
}

async function main() {
  const mode = process.argv[2] ?? process.env.MCP_TEST_MODE ?? 'normal';
  process.stderr.write(`test server starting in mode ${mode}\n`);
  if (mode === 'hang') {
    // Reads stdin and never answers.
    process.stdin.resume();
    setInterval(() => {}, 1 << 30);
    return;
  }
  if (mode === 'junk') {
    process.stdout.write('this is not JSON-RPC\n');
    setInterval(() => process.stdout.write('{"more junk": true\n'), 20).unref();
  }
  if (process.env.MCP_TEST_CHILD) {
    // Sleeps (at most two minutes, should a test leave it behind).
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], {
      stdio: process.env.MCP_TEST_CHILD === 'stdout' ? ['ignore', 'inherit', 'ignore'] : 'ignore',
    });
    if (process.env.MCP_TEST_PID_FILE) appendFileSync(process.env.MCP_TEST_PID_FILE, `${child.pid}\n`);
  }
  const server = makeServer(mode, {
    listMb: Number(process.env.MCP_TEST_LIST_MB ?? 0),
    writeLine: (text) => process.stdout.write(`${text}\n`),
    idFirst: process.env.MCP_TEST_ID_FIRST === '1',
  });
  await server.connect(new StdioServerTransport());
}

// Run as a program only (not when bundled into another, whose own entry would match import.meta.url).
if (/test-server\.mjs$/.test(process.argv[1] ?? '') && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
