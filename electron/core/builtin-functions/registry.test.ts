/**
 * The local function registry, and the contract between the built-in configs in
 * resources/bundles and the functions: every functionId a config names is registered, every
 * built-in function is named by a config, each argSchema is well formed, and each
 * function's output on sample calls validates against its config's outputSchema (ajv 2020).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { BuiltinToolConfig } from '../../../shared/model/tool';
import { UUID_V7_PATTERN } from '../../../shared/model/validation';
import { HttpTransport } from '../invoke/http/transport';
import { startHttpServer, type TestServer } from '../invoke/http/testing/servers';
import type { LocalFunction, LocalToolContext } from '../invoke/types';
import { loadBuiltins, type BuiltinBundle } from '../bundles/builtins';
import { nodeFs } from '../lib/durable-fs';
import { AJV_OPTIONS } from '../bundles/schema-check';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { registerBufferOps } from '../routing/buffer-ops';
import { DocumentStore } from '../documents/document-store';
import { registerDocumentTool } from '../documents/document-tool';
import { registerMemoryTools } from '../memory/memory-tools';
import { actorFor } from '../memory/actors';
import { openTestMemory } from '../memory/testing/memory-kit';
import { FILE_FUNCTION_ID, SourceManager } from '../memory/sources/source-manager';
import { createSourceTools, SOURCE_FUNCTION_ID } from '../memory/sources/source-tools';
import { builtinFunctions, builtinRegistry, LocalFunctionRegistry } from './registry';
import { FileBufferStore } from '../routing/buffer-store';
import { AppError } from '../../../shared/errors';
import { testContext } from './test-context';

const tempDir = useTempDirs();
const noop: LocalFunction = async () => null;

describe('LocalFunctionRegistry', () => {
  it('registers, finds and lists functions by id', async () => {
    const r = new LocalFunctionRegistry();
    r.register('demo.echo', async (_ctx, args) => args).register('demo.other', noop);
    expect(r.has('demo.echo')).toBe(true);
    expect(r.has('demo.missing')).toBe(false);
    expect(r.get('demo.missing')).toBeUndefined();
    expect(r.ids()).toEqual(['demo.echo', 'demo.other']);
    expect(await r.get('demo.echo')!(testContext('/x'), { a: 1 }, new AbortController().signal)).toEqual({ a: 1 });
  });

  it('refuses a second registration of an id, and ids that are not function ids', () => {
    const r = new LocalFunctionRegistry([['demo.echo', noop]]);
    expect(() => r.register('demo.echo', noop)).toThrow(expect.objectContaining({ code: 'CONFLICT', message: "local function 'demo.echo' is already registered" }));
    for (const bad of ['', 'has space', '.lead', 'x'.repeat(200), '1abc', 'a..b']) {
      expect(() => r.register(bad, noop), bad).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    }
    expect(() => r.register('demo.notfn', 'nope' as unknown as LocalFunction)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('builtinRegistry() holds every built-in function', () => {
    expect(builtinRegistry().ids()).toEqual([...builtinFunctions().keys()].sort());
  });
});

// ---- the shipped configs ---------------------------------------------------------------

let bundles: Map<string, BuiltinBundle>;
let tools: BuiltinToolConfig[];
const problems: unknown[] = [];

beforeAll(async () => {
  bundles = await loadBuiltins(nodeFs, RESOURCES_DIR, { report: (p) => problems.push(p) });
  tools = [...bundles.values()].flatMap((b) => b.tools);
});

describe('the built-in configs', () => {
  it('all load with no problem reported, with unique lowercase UUIDv7 ids and slugs of letters, digits and -', async () => {
    expect(problems).toEqual([]);
    const files = (await fs.readdir(path.join(RESOURCES_DIR, 'bundles'), { recursive: true })).filter((f) => f.endsWith('.json'));
    expect([...bundles.values()].reduce((n, b) => n + 1 + b.tools.length, 0)).toBe(files.length);
    expect([...bundles.values()].map((b) => b.config.slug).sort()).toEqual(['buffers', 'documents', 'files', 'math', 'memory', 'text', 'time', 'web']);
    const ids = [...[...bundles.values()].map((b) => b.config.id), ...tools.map((t) => t.id)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7_PATTERN);
    for (const t of tools) expect(t.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it('have the expected tools in each bundle', () => {
    const slugs = (name: string) => [...bundles.values()].find((b) => b.config.slug === name)!.tools.map((t) => t.slug).sort();
    expect(slugs('files')).toEqual(['appendfile', 'grep', 'listdir', 'readfile', 'writefile']);
    expect(slugs('text')).toEqual(['count', 'diff', 'jsonpath', 'regex-extract']);
    expect(slugs('time')).toEqual(['convert-time', 'date-math', 'now']);
    expect(slugs('math')).toEqual(['calc']);
    expect(slugs('web')).toEqual(['fetch-url']);
    expect(slugs('buffers')).toEqual(['buffer-ops']);
    expect(slugs('documents')).toEqual(['documents']);
    expect(slugs('memory')).toEqual(['block', 'block-edit', 'file', 'recall', 'source']);
  });

  it('name only registered functions, and every built-in function is named by exactly one config', () => {
    // The app's registry: this folder's functions and routing's buffer_ops.
    const fns = new Map(builtinFunctions());
    registerBufferOps({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, () => undefined);
    registerDocumentTool({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, () => undefined);
    registerMemoryTools({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, { memory: () => undefined, actorOf: () => actorFor('x', { agentOf: () => undefined }) });
    // `source` always; `file` by the source manager while a FileSource exists.
    const sourceTools = createSourceTools({ sources: () => undefined, actorOf: () => actorFor('x', { agentOf: () => undefined }) });
    fns.set(SOURCE_FUNCTION_ID, sourceTools.source).set(FILE_FUNCTION_ID, sourceTools.file);
    const named = tools.map((t) => {
      expect(t.type).toBe('local');
      return t.local!.functionId;
    });
    for (const id of named) expect(fns.has(id), `functionId ${id} is not registered in builtinFunctions()`).toBe(true);
    expect([...named].sort()).toEqual([...fns.keys()].sort());
  });

  it('have argSchemas of type object, with described properties, required and additionalProperties: false', () => {
    for (const t of tools) {
      const s = t.argSchema as { type?: unknown; properties?: Record<string, { description?: unknown }>; required?: unknown; additionalProperties?: unknown };
      expect(s.type, t.slug).toBe('object');
      expect(s.additionalProperties, t.slug).toBe(false);
      expect(Array.isArray(s.required), `${t.slug}: required`).toBe(true);
      const props = s.properties ?? {};
      expect(Object.keys(props).length, t.slug).toBeGreaterThan(0);
      for (const [name, p] of Object.entries(props)) expect(typeof p.description === 'string' && p.description.length > 0, `${t.slug}.${name} has no description`).toBe(true);
      for (const r of s.required as string[]) expect(Object.keys(props), `${t.slug}: required '${r}'`).toContain(r);
      expect(t.description.length, t.slug).toBeGreaterThan(20);
    }
  });

  it('have defaults that their own property schemas accept', () => {
    const ajv = new Ajv2020(AJV_OPTIONS);
    for (const t of tools) {
      for (const [name, p] of Object.entries((t.argSchema as { properties: Record<string, Record<string, unknown>> }).properties)) {
        if (!('default' in p)) continue;
        const { default: def, ...rest } = p;
        expect(ajv.validate(rest, def), `${t.slug}.${name} default ${JSON.stringify(def)}`).toBe(true);
      }
    }
  });
});

// ---- sample calls: outputs validate against outputSchema ----------------------------------

describe('sample calls of every built-in tool', () => {
  let ws: string;
  let web: TestServer;
  let ctx: LocalToolContext;

  beforeAll(async () => {
    web = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('hello from the test server');
    });
  });
  afterAll(async () => {
    await web.close();
  });

  /** Per functionId: sample argument sets (each must pass argSchema too). */
  const samples: Record<string, Record<string, unknown>[]> = {
    'files.read': [{ path: 'notes.txt' }, { path: 'notes.txt', startLine: 2, endLine: 2 }, { path: 'notes.txt', offset: 2, length: 3, encoding: 'base64' }, { path: 'notes.txt', maxBytes: 3 }],
    'files.list': [{}, { path: 'docs', recursive: true, maxEntries: 10, maxDepth: 2 }],
    'files.grep': [{ pattern: 'line', glob: '*.txt', ignoreCase: true, maxMatches: 5 }, { pattern: 'a.b', regex: false, path: 'docs' }],
    'files.write': [{ path: 'out/new.txt', content: 'hi' }, { path: 'out/new.txt', content: 'again', mode: 'replace', createFolders: false }],
    'files.append': [{ path: 'log.txt', content: 'one', separator: '\n' }, { path: 'log.txt', content: 'two', createIfMissing: false }],
    'text.jsonpath': [{ json: { a: [1, 2, { b: null }] }, path: '$.a[*]', maxResults: 2 }, { json: '{"x":"y"}', parse: true, path: '$.x' }],
    'text.regex-extract': [{ text: 'a1 b22', pattern: '(?<letter>[a-z])(\\d+)', group: 'letter', flags: 'i', maxMatches: 10 }, { text: 'x', pattern: 'y' }],
    'text.diff': [{ before: 'a\nb\n', after: 'a\nc\n', beforeName: 'x', afterName: 'y', context: 1, ignoreWhitespace: false }, { before: 's', after: 's' }],
    'text.count': [{ text: 'héllo 😀\n' }],
    'time.now': [{}, { timeZone: 'Europe/Paris' }],
    'time.convert': [{ time: '2025-06-01 12:00', fromZone: 'Europe/Paris', toZone: 'Asia/Tokyo' }, { toZone: 'UTC' }],
    'time.date-math': [
      { operation: 'add', date: '2024-01-31', months: 1, days: 2, hours: 3, timeZone: 'America/New_York' },
      { operation: 'subtract', years: 1, weeks: 1, minutes: 5, seconds: 6 },
      { operation: 'difference', date: '2024-01-01', other: '2025-03-01T10:00:00Z' },
    ],
    'math.calc': [{ expression: '2 ^ 10 - sqrt(16) * pi' }],
    'web.fetch-url': [],
    'buffers.ops': [
      { operation: 'list' },
      { operation: 'info', target: 'notes' },
      { operation: 'peek', target: 'notes', offset: 0, max_chars: 5 },
      { operation: 'read', target: 'notes', start_line: 1, end_line: 2 },
      { operation: 'search', target: 'line', scope: 'notes' },
      { operation: 'export', target: 'notes', destination: 'exported/notes.txt' },
    ],
    'documents.query': [
      { operation: 'list' },
      { operation: 'list', tags: ['q3'], created_by: 'conversation-1', mime_type: 'text/', path_prefix: 'docs/', text: 'more', limit: 5 },
      { operation: 'describe', path: 'docs/a.md', description: 'A note', set_tags: ['q3'] },
      { operation: 'get', path: 'docs/a.md' },
    ],
    'memory.block': [
      { op: 'info', label: 'notes' },
      { op: 'load', label: 'notes' },
      { op: 'pin', label: 'notes' },
      { op: 'unpin', label: 'notes' },
      { op: 'archive', label: 'old' },
    ],
    'memory.block-edit': [
      { op: 'append', label: 'notes', content: 'more' },
      { op: 'replace', label: 'notes', old: 'more', new: 'less' },
      { op: 'patch', label: 'notes', patch: '@@ -1,2 +1,2 @@\n first\n-less\n+fewer\n' },
      { op: 'set_field', label: 'facts', field: 'city', value: 'Oslo' },
    ],
    'memory.source': [{ op: 'list' }, { op: 'status' }, { op: 'pause', source_id: 'inbox' }, { op: 'resume', source_id: 'inbox' }, { op: 'status', source_id: 'notes' }, { op: 'pause', source_id: 'notes' }],
    'memory.file': [
      { op: 'load', path: 'notes.txt' },
      { op: 'append', path: 'notes.txt', content: 'more' },
      { op: 'replace', path: 'notes.txt', old: 'more', new: 'less' },
      { op: 'save', path: 'notes.txt' },
      { op: 'create', path: 'made/new.txt', content: 'new' },
      { op: 'delete', path: 'made/new.txt', source_id: 'notes' },
    ],
    'memory.recall': [
      { op: 'insert', content: 'the launch moved to May', metadata: { tags: ['launch'] } },
      { op: 'search', query: 'launch: "May"', limit: 5, tags: ['launch'], since: '2020-01-01T00:00:00Z', until: '2100-01-01T00:00:00Z' },
    ],
  };

  it('validate against argSchema, and their outputs against outputSchema', async () => {
    ws = await tempDir();
    await fs.writeFile(path.join(ws, 'notes.txt'), 'first line\nsecond line\nthird\n');
    await fs.mkdir(path.join(ws, 'docs', 'deep'), { recursive: true });
    await fs.writeFile(path.join(ws, 'docs', 'a.md'), 'a.b and more\n');
    await fs.writeFile(path.join(ws, 'docs', 'deep', 'b.md'), 'b\n');
    ctx = { ...testContext(ws, { transport: new HttpTransport(), allowedHosts: () => [`127.0.0.1:${web.port}`] }), ownerId: 'conversation-1' };
    samples['web.fetch-url'] = [{ url: `${web.origin}/page`, maxBytes: 5, timeoutMs: 5000, accept: 'text/plain' }, { url: `${web.origin}/` }];
    const buffers = new FileBufferStore({ dataDir: await tempDir(), workspaceDir: ws, now: () => new Date('2026-01-02T03:04:05Z') });
    await buffers.write('conversation-1', 'notes', 'first line\nsecond line\n', 'replace', 'test');

    const documents = DocumentStore.open({ file: path.join(await tempDir(), 'documents.sqlite'), workspaceDir: () => ws, now: () => new Date('2026-01-02T03:04:05Z') });
    await documents.record('docs/a.md', 'conversation-1');
    const fns = new Map(builtinFunctions());
    registerBufferOps({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, buffers);
    registerDocumentTool({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, () => documents);
    const memory = openTestMemory(await tempDir());
    memory.blocks.create({ owner: 'conversation:conversation-1', label: 'notes', content: 'first' }, 'user');
    memory.blocks.create({ owner: 'conversation:conversation-1', label: 'old', content: 'x', permission: 'Admin' }, 'user');
    memory.blocks.create({ owner: 'conversation:conversation-1', label: 'facts', schema: { kind: 'Map' } }, 'user');
    registerMemoryTools({ register: (id: string, fn: LocalFunction) => fns.set(id, fn) }, { memory: () => memory, actorOf: (o) => actorFor(o, { agentOf: () => undefined }) });
    const sources = new SourceManager({ file: path.join(await tempDir(), 'memory-sources.json'), memory, now: () => new Date(), fileFunction: async () => ({}) });
    await sources.open();
    const sourceFolder = await tempDir();
    await fs.writeFile(path.join(sourceFolder, 'notes.txt'), 'first\n');
    await sources.save({ kind: 'files', id: 'notes', folder: sourceFolder, rules: [{ pattern: '**', permission: 'Admin' }] });
    await sources.save({ kind: 'watch', id: 'inbox', folder: sourceFolder });
    const sourceTools = createSourceTools({ sources: () => sources, actorOf: (o) => actorFor(o, { agentOf: () => undefined }) });
    fns.set(SOURCE_FUNCTION_ID, sourceTools.source).set(FILE_FUNCTION_ID, sourceTools.file);
    const ajv = new Ajv2020(AJV_OPTIONS);
    for (const t of tools) {
      const id = t.local!.functionId;
      const list = samples[id];
      expect(list && list.length > 0, `no sample for ${id}`).toBe(true);
      const validArgs = ajv.compile(t.argSchema);
      const validOut = ajv.compile(t.outputSchema);
      for (const args of list!) {
        expect(validArgs(args), `${id} sample args ${JSON.stringify(args)}: ${ajv.errorsText(validArgs.errors)}`).toBe(true);
        const out = await fns.get(id)!(ctx, args, ctx.signal);
        expect(validOut(out), `${id} output ${JSON.stringify(out).slice(0, 300)}: ${ajv.errorsText(validOut.errors)}`).toBe(true);
        // Outputs are plain JSON.
        expect(JSON.parse(JSON.stringify(out))).toEqual(out);
      }
    }
    await sources.close();
  });

  it('refuse arguments of the wrong type with VALIDATION_FAILED, never a crash', async () => {
    ctx = testContext(await tempDir(), { transport: new HttpTransport(), allowedHosts: () => [] });
    const fns = builtinFunctions();
    const odd = [{}, { path: 42, text: 7, pattern: [], expression: {}, url: null, json: undefined, operation: 'nope', toZone: 5, before: 1, after: 2, content: false }];
    for (const [id, fn] of fns) {
      for (const args of odd) {
        const r = await fn(ctx, args, ctx.signal).then(
          (v) => ({ ok: true as const, v }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        if (!r.ok) expect((r.e as { code?: string }).code, `${id} ${JSON.stringify(args)}: ${String(r.e)}`).toMatch(/^(VALIDATION_FAILED|FORBIDDEN|NOT_FOUND)$/);
      }
      // Not even an object: read as no arguments.
      const e = await fn(ctx, null as unknown as Record<string, unknown>, ctx.signal).then(() => undefined, (x: unknown) => x);
      if (e !== undefined) expect(e, id).toBeInstanceOf(AppError);
      if (e instanceof AppError) expect(e.code, id).toMatch(/^(VALIDATION_FAILED|FORBIDDEN|NOT_FOUND)$/);
    }
  });
});
