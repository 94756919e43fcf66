/**
 * An MCP server's own inputSchema and outputSchema may hold a pattern that JavaScript's
 * engine would backtrack on for hours. A real server process (written here, over stdio)
 * lists such tools; the dispatcher checks arguments and structuredContent against them and
 * answers at once, or fails the check naming the pattern.
 */
import { resetSlowPatternWindow } from '../lib/schema-regexp';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { closeSchemaRegExp } from '../lib/schema-regexp';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore } from './testing/harness';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const EVIL = `${'a'.repeat(40)}b`;

const SERVER = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const nested = { type: 'string', pattern: '^(a+)+$' };
const TOOLS = [
  {
    name: 'echo_a',
    description: 'Says its text back as structuredContent.',
    inputSchema: { type: 'object', properties: { text: nested }, required: ['text'] },
    outputSchema: { type: 'object', properties: { echo: nested } },
  },
  {
    name: 'emit',
    description: 'Answers the structuredContent it is given, unchecked by its inputSchema.',
    inputSchema: { type: 'object', properties: { out: { type: 'object' } }, required: ['out'] },
    outputSchema: { type: 'object', properties: { echo: nested }, patternProperties: { '^(b+)+$': { type: 'number' } } },
  },
  {
    name: 'emit_look',
    description: 'The same, under a lookahead outputSchema.',
    inputSchema: { type: 'object', properties: { out: { type: 'object' } }, required: ['out'] },
    outputSchema: { type: 'object', properties: { echo: { type: 'string', pattern: '^(?=(a+)+$)' } } },
  },
];

const server = new Server({ name: 'pattern-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments ?? {};
  process.stderr.write('called ' + req.params.name + '\\n');
  const structuredContent = req.params.name === 'echo_a' ? { echo: String(args.text) } : args.out;
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
});
await server.connect(new StdioServerTransport());
`;

const tempDir = useTempDirs();
const cores: Core[] = [];
const scripts: string[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await closeSchemaRegExp();
  for (const d of scripts) await fs.rm(d, { recursive: true, force: true });
});

/** The server script, inside the project so its imports resolve from node_modules. */
async function serverScript(): Promise<string> {
  await fs.mkdir(path.join(root, '.test-results'), { recursive: true });
  const dir = await fs.mkdtemp(path.join(root, '.test-results', 'pattern-server-'));
  scripts.push(dir);
  const file = path.join(dir, 'server.mjs');
  await fs.writeFile(file, SERVER);
  return file;
}

async function setup(): Promise<{ core: Core; bundleId: string }> {
  const core = await openCore(await tempDir());
  cores.push(core);
  const v = await addServer(core, { name: 'Patterns', connection: { transport: 'stdio', command: process.execPath, args: [await serverScript()] } });
  expect(v.status).toMatchObject({ state: 'connected', skipped: [] });
  return { core, bundleId: v.bundleId };
}

async function calledNames(core: Core, bundleId: string): Promise<string[]> {
  const log = await core.call('mcpServers.log', { bundleId });
  if (!log.ok) throw new Error(log.error.message);
  return log.value.filter((l) => l.stream === 'stderr' && l.text.startsWith('called ')).map((l) => l.text.slice('called '.length));
}

describe("an MCP server's schemas with backtracking patterns", () => {
  it('are synced as they are, and arguments against the inputSchema are refused before the server sees them', async () => {
    const { core, bundleId } = await setup();
    expect(core.registry.store.getTool(bundleId, 'echo-a', '1').argSchema).toMatchObject({ properties: { text: { pattern: '^(a+)+$' } } });
    const refused = await call(core, bundleId, 'echo-a', { text: EVIL });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'args', issues: [{ path: '/text', message: 'must match pattern "^(a+)+$"' }] } } });
    expect(await call(core, bundleId, 'echo-a', { text: 'aaaa' })).toMatchObject({ ok: true, value: { echo: 'aaaa' } });
    expect(await calledNames(core, bundleId)).toEqual(['echo_a']);
  });

  it('check structuredContent against the outputSchema: `pattern` and `patternProperties` answer, a non-match fails the call', async () => {
    const { core, bundleId } = await setup();
    const bad = await call(core, bundleId, 'emit', { out: { echo: EVIL } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'output', issues: [{ path: '/echo', message: 'must match pattern "^(a+)+$"' }] } } });
    expect(await call(core, bundleId, 'emit', { out: { echo: 'aaa' } })).toMatchObject({ ok: true, value: { echo: 'aaa' } });
    const evilKey = `${'b'.repeat(40)}c`;
    expect(await call(core, bundleId, 'emit', { out: { [evilKey]: 'not a number, not checked' } })).toMatchObject({ ok: true });
    const badKey = await call(core, bundleId, 'emit', { out: { bbb: 'x' } });
    expect(badKey).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'output', issues: [{ path: '/bbb', message: 'must be number' }] } } });
  });

  it('fail a call whose lookahead outputSchema pattern runs out of time, naming the pattern; the next call answers', async () => {
    const { core, bundleId } = await setup();
    const stopped = await call(core, bundleId, 'emit-look', { out: { echo: EVIL } });
    expect(stopped).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'output' } } });
    expect((stopped as { error: { message: string } }).error.message).toContain("does not match its outputSchema: (root) the schema pattern '^(?=(a+)+$)' ran longer than");
    // A quiet second later (the process's slow-pattern time is spent for the second after a stop).
    resetSlowPatternWindow();
    expect(await call(core, bundleId, 'emit-look', { out: { echo: 'aaaa' } })).toMatchObject({ ok: true, value: { echo: 'aaaa' } });
    expect(await call(core, bundleId, 'emit-look', { out: { echo: 'aab' } })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
