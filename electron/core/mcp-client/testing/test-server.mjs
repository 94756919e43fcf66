// A small MCP server for tests, e2e and benchmarks: plain JavaScript so it runs as a child
// process (`node test-server.mjs [mode]`, stdio) and in-process (makeServer, for HTTP).
// Modes (argv[2] or MCP_TEST_MODE): normal, junk (prints junk on stdout), hang (never answers
// initialize), invalid (lists a tool with an invalid schema among good ones), headers (over HTTP:
// lists request_headers, which says back the Authorization header it was called with).
// Over stdio, the environment adds: MCP_TEST_LIST_MB (tools/list carries that many megabytes of
// description), MCP_TEST_CHILD=quiet|stdout (starts a sleeping child, as npx or uvx start the real
// server; `stdout` lets it inherit the server's stdout, holding the pipe open) with its pid
// appended to the file MCP_TEST_PID_FILE.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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
  { name: 'add_tool', description: 'Adds a tool named `name` and says the list changed.', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  { name: 'whoami', description: 'The process id and an env value.', inputSchema: { type: 'object', properties: {} } },
];

const INVALID_TOOLS = [
  { name: 'bad_schema', description: 'inputSchema is not an object schema.', inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } },
  { name: 'bad_ref', description: 'inputSchema has a dangling $ref.', inputSchema: { type: 'object', properties: { x: { $ref: '#/$defs/missing' } } } },
];

const HEADER_TOOLS = [
  { name: 'request_headers', description: 'The Authorization header of the HTTP request that called it, and its token.', inputSchema: { type: 'object', properties: {} } },
];

export function makeServer(mode = 'normal', hooks = {}) {
  const extra = [];
  const server = new Server({ name: 'toolsmith-test-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  const huge = hooks.listMb ? [{ name: 'huge', description: 'd'.repeat(Math.round(hooks.listMb * 1024 * 1024)), inputSchema: { type: 'object', properties: {} } }] : [];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...BASE_TOOLS, ...(mode === 'invalid' ? INVALID_TOOLS : []), ...(mode === 'headers' ? HEADER_TOOLS : []), ...extra, ...huge],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, ctx) => {
    const args = req.params.arguments ?? {};
    hooks.onCall?.(req.params.name, args);
    switch (req.params.name) {
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
      case 'add_tool':
        extra.push({ name: String(args.name), description: 'Added at run time.', inputSchema: { type: 'object', properties: {} } });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'added' }] };
      case 'request_headers': {
        const authorization = String(ctx.requestInfo?.headers?.authorization ?? '');
        return { content: [{ type: 'text', text: JSON.stringify({ authorization, token: authorization.replace(/^Bearer /i, '') }) }] };
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
  const server = makeServer(mode, { listMb: Number(process.env.MCP_TEST_LIST_MB ?? 0) });
  await server.connect(new StdioServerTransport());
}

// Run as a program only (not when bundled into another, whose own entry would match import.meta.url).
if (/test-server\.mjs$/.test(process.argv[1] ?? '') && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
