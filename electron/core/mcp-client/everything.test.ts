/**
 * The reference server that exercises every MCP feature (@modelcontextprotocol/server-everything,
 * a third-party server speaking 2025-11-25) as a bundle, over stdio and over Streamable HTTP:
 * what is brought in, and the features that need the client's side: roots, a form question
 * answered in the window, a task whose clarifying question is answered, progress, log messages.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { elicitationDefaults } from '../../../shared/model/elicitation';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, slugs, until } from './testing/harness';

const ENTRY = path.resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** The 16 tools it lists to a client that offers roots and elicitation (not sampling). */
const BROUGHT_IN = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-roots-list',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'simulate-research-query',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-elicitation-request',
  'trigger-long-running-operation',
  'trigger-url-elicitation',
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A core with a window that answers each question as a person would: the form's defaults, a name, the first interpretation. */
async function core(): Promise<Core> {
  const c = await openCore(await tempDir());
  closers.push(() => c.close());
  closers.push(c.attachWindow());
  c.events.on('mcpElicitations.changed', () => {
    void c.call('mcpElicitations.list', {}).then(async (r) => {
      for (const q of r.ok ? r.value : []) {
        const fields = q.fields ?? [];
        const content: Record<string, string | number | boolean | string[]> = { ...elicitationDefaults(fields) };
        for (const f of fields) {
          if (f.name === 'name' && f.kind === 'string') content.name = 'Ada';
          if (f.required && f.kind === 'enum' && content[f.name] === undefined) content[f.name] = f.options[0]!.value;
        }
        await c.call('mcpElicitations.respond', { id: q.id, action: 'accept', ...(q.mode === 'form' ? { content } : {}) });
      }
    });
  });
  return c;
}

const transports = [
  ['stdio', async () => ({ transport: 'stdio' as const, command: process.execPath, args: [ENTRY, 'stdio'] })],
  [
    'Streamable HTTP',
    async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [ENTRY, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
      closers.push(() => void child.kill());
      const url = `http://127.0.0.1:${port}/mcp`;
      await until(() => fetch(url, { method: 'GET' }).then(() => true, () => false), 'the server listening');
      return { transport: 'http' as const, url };
    },
  ],
] as const;

describe.each(transports)('server-everything over %s', (_name, connection) => {
  it('brings in its tools; roots, a question, a task with its clarifying question, progress and log messages work', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Everything', connection: await connection() });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(v.status.skipped).toEqual([]);
    expect(slugs(c, v.bundleId)).toEqual(BROUGHT_IN);

    expect(await call(c, v.bundleId, 'get-roots-list')).toMatchObject({ ok: true, value: expect.stringContaining(`file://${c.workspaceDir()}`) });
    expect(await call(c, v.bundleId, 'trigger-elicitation-request')).toMatchObject({ ok: true, value: expect.stringContaining('Name: Ada') });
    expect(await call(c, v.bundleId, 'simulate-research-query', { topic: 'tides', ambiguous: true })).toMatchObject({ ok: true, value: expect.stringContaining('# Research Report: tides') });

    const reports: number[] = [];
    const off = c.dispatcher.onProgress((p) => reports.push(p.progress));
    try {
      expect(await call(c, v.bundleId, 'trigger-long-running-operation', { duration: 1, steps: 2 })).toMatchObject({ ok: true });
    } finally {
      off();
    }
    expect(reports.length).toBeGreaterThan(0);

    expect(await call(c, v.bundleId, 'toggle-simulated-logging')).toMatchObject({ ok: true });
    await until(async () => {
      const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
      return log.ok && log.value.some((l) => l.stream === 'message');
    }, 'a log message from the server', 15_000);
    await call(c, v.bundleId, 'toggle-simulated-logging');
  }, 60_000);
});
