import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDirectives } from '../../../shared/directives/parser';
import type { DirectiveError } from '../../../shared/directives/types';
import type { ToolView } from '../../../shared/model/tool';
import { MemoryBuffers } from '../testing/memory-buffers';
import { useTempDirs } from '../testing/temp-dir';
import { appError } from '../builtin-functions/test-context';
import { DirectiveRunnerImpl, resolveToolName, type ToolCandidate } from './directive-runner';
import { FileInputSource, VariableInputSource, inputSourceMap } from './input-sources';
import { WorkspaceOutputRouter } from './router';
import type { BufferStore } from './types';

const tempDir = useTempDirs();

let nextId = 0;
function tool(bundleSlug: string, slug: string, version = '1.0.0', bundleId = `bundle-${bundleSlug}`): ToolCandidate {
  const t = { id: `tool-${nextId++}`, bundleId, slug, version, modifiedAt: '2026-01-01T00:00:00.000Z' } as unknown as ToolView;
  return { tool: t, bundleSlug };
}

const TOOLS = [tool('files', 'readfile'), tool('files', 'grep', '1.2.0'), tool('files', 'grep', '1.10.0'), tool('web', 'fetch-url'), tool('a', 'dup'), tool('b', 'dup')];

async function setup(opts: { inlineMaxChars?: number } = {}) {
  const base = await fs.realpath(await tempDir());
  const ws = path.join(base, 'ws');
  await fs.mkdir(path.join(ws, 'notes'), { recursive: true });
  await fs.writeFile(path.join(ws, 'myfile1'), 'one');
  await fs.writeFile(path.join(ws, 'myfile2'), 'two');
  await fs.writeFile(path.join(ws, 'myfile3'), 'three');
  for (const d of ['2026-01-01', '2026-01-02', '2026-01-03']) await fs.writeFile(path.join(ws, 'notes', d), `note ${d}`);
  const buffers = new MemoryBuffers();
  const now = () => new Date(2026, 10, 22, 8, 0, 0);
  const workspaceDir = () => ws;
  const router = new WorkspaceOutputRouter({ buffers: buffers as unknown as BufferStore, workspaceDir, now });
  const sources = inputSourceMap([new FileInputSource({ workspaceDir }), new VariableInputSource(buffers as unknown as BufferStore)]);
  const runner = new DirectiveRunnerImpl({ router, sources, tools: { usableTools: () => TOOLS }, now, ...opts });
  return { base, ws, buffers, runner };
}

async function listAll(dir: string): Promise<string[]> {
  return (await fs.readdir(dir, { recursive: true })).map(String).sort();
}

const ctx = { ownerId: 'conv1' };

describe('DirectiveRunner: refusals before anything is written', () => {
  const bad: [string, string, string][] = [
    ['unbalanced parentheses', '@tools readfile(output=variable:x', "unbalanced parentheses: '(' is not closed on this line"],
    ['unknown parameter', '@tools readfile(into=variable:x)', "unknown parameter 'into'"],
    ['variable: with no name', '@input file:myfile2 (output=variable:)', 'variable: needs a buffer name'],
    ['file:../../etc/passwd as a source', '@input file:../../etc/passwd (output=variable:x)', 'file sources must be relative to the workspace'],
    ['file:../../etc/passwd as a destination', '@input file:myfile2 (output=file:../../etc/passwd)', 'file destinations must be relative to the workspace'],
    ['an absolute destination', '@input file:myfile2 (output=file:/tmp/x)', 'file destinations must be relative to the workspace'],
    ['an unknown tool', '@tools web_search_tavily(output=variable:x)', "unknown tool 'web_search_tavily': no enabled tool has this slug"],
    ['an ambiguous tool', '@tools dup', "the tool 'dup' is in several bundles: a/dup, b/dup; write bundle/slug to pick one"],
    ['an unknown scheme', '@input query:select (output=variable:x)', "unknown input source 'query:': use file:, variable:"],
    ['an unknown placeholder in an input destination', '@input file:myfile2 (output=file:out/{week}.md)', 'unknown placeholder {week}'],
    ['an unknown placeholder in a tool destination', '@tools readfile(output=file:out/{week}.md)', 'readfile: unknown placeholder {week}'],
    ['an unknown placeholder in a source', '@input file:{week}.md (output=variable:x)', 'unknown placeholder {week}'],
  ];
  it.each(bad)('%s', async (_, directive, message) => {
    const { runner, buffers, ws } = await setup();
    const before = await listAll(ws);
    // A valid routed input comes first: it must not run either.
    const text = `@input file:myfile1 (output=variable:first)\n@input file:myfile1 (output=file:copy.md)\n${directive}\nplease`;
    const e = await appError(runner.run(parseDirectives(text), ctx));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toMatch(/^the directives have errors: line 3, column \d+: /);
    const errors = (e.details as { errors: DirectiveError[] }).errors;
    expect(errors.map((x) => x.message)).toContainEqual(expect.stringContaining(message));
    for (const x of errors) expect(x.line).toBe(3);
    expect(buffers.writes).toHaveLength(0);
    expect(await listAll(ws)).toEqual(before);
  });

  it('reports every error, sorted, and says how many more there are', async () => {
    const { runner } = await setup();
    const e = await appError(runner.run(parseDirectives('@tools nope1, nope2\n@tools nope3(output=variable:)\n@input x:y'), ctx));
    const errors = (e.details as { errors: DirectiveError[] }).errors;
    expect(errors.map((x) => `${x.line}:${x.column}`)).toEqual(['1:8', '1:15', '2:8', '2:21', '3:1']);
    expect(e.message).toMatch(/\(and 2 more\)$/);
  });
});

describe('DirectiveRunner: running', () => {
  it('the documented pattern: append, append, replace into one buffer, with manifests', async () => {
    const { runner, buffers } = await setup();
    const text = [
      '@input file:myfile1 (output=variable:foo)      # append',
      '@input file:myfile2 (output=variable:foo)      # append',
      'Compare them.',
      '@input file:myfile3 (output=variable:bar, write-mode=replace)',
    ].join('\n');
    const r = await runner.run(parseDirectives(text), ctx);
    expect(buffers.data.get('conv1/foo')).toBe('one\ntwo');
    expect(buffers.data.get('conv1/bar')).toBe('three');
    expect(r.outcomes.map((o) => o.manifest?.text)).toEqual([
      '[input routed] 1 file -> variable:foo (total 3 chars)\npaths: myfile1',
      '[input routed] 1 file -> variable:foo (total 3 chars)\npaths: myfile2',
      '[input routed] 1 file -> variable:bar (total 5 chars)\npaths: myfile3',
    ]);
    expect(r.outcomes[0]!.directive).toBe('@input file:myfile1 (output=variable:foo)');
    expect(r.prompt).toBe(`Compare them.\n\n${r.outcomes.map((o) => o.manifest!.text).join('\n\n')}`);
  });

  it('a glob routed to a buffer, then the buffer routed to a dated file', async () => {
    const { runner, ws } = await setup();
    const r = await runner.run(parseDirectives('@input file:notes/* (output=variable:foo)\n@input variable:foo (output=file:archive/{today})\n@model none'), ctx);
    expect(r.outcomes[0]!.manifest!.text).toBe(
      `[input routed] 3 files -> variable:foo (total ${r.outcomes[0]!.manifest!.totalChars} chars)\npaths: notes/2026-01-01, notes/2026-01-02, notes/2026-01-03`,
    );
    expect(r.outcomes[1]!.manifest!.text).toMatch(/^\[input routed\] 1 buffer -> file:archive\/2026-11-22 \(total \d+ chars\)$/);
    expect(await fs.readFile(path.join(ws, 'archive', '2026-11-22'), 'utf8')).toContain('==> notes/2026-01-02 <==\nnote 2026-01-02');
    expect(r.modelNone).toBe(true);
    expect(r.prompt).toBe(r.outcomes.map((o) => o.manifest!.text).join('\n\n'));
  });

  it('paths with parentheses, quoted or not; a quoted pattern character is literal; notes/a finds notes/a.md', async () => {
    const { runner, buffers, ws } = await setup();
    await fs.writeFile(path.join(ws, 'notes', 'a(b).md'), 'paren');
    await fs.writeFile(path.join(ws, 'notes', 'ab.md'), 'no paren');
    await fs.writeFile(path.join(ws, 'notes', '*.md'), 'star');
    await fs.writeFile(path.join(ws, 'notes', 'a.md'), 'note a');
    const text = [
      '@input file:notes/a(b).md (output=variable:v)',
      '@input file:"notes/a(b).md" (output=variable:w)',
      '@input file:"notes/*.md" (output=variable:star)',
      '@input file:notes/a (output=variable:a)',
      '@model none',
    ].join('\n');
    const r = await runner.run(parseDirectives(text), ctx);
    expect(r.outcomes.map((o) => o.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect([...buffers.data.entries()]).toEqual([
      ['conv1/v', 'paren'],
      ['conv1/w', 'paren'],
      ['conv1/star', 'star'],
      ['conv1/a', 'note a'],
    ]);
    expect(r.outcomes.map((o) => o.manifest!.text.split('\n')[1])).toEqual(['paths: notes/a(b).md', 'paths: notes/a(b).md', 'paths: notes/*.md', 'paths: notes/a.md']);
  });

  it('glob matches left out (a dangling symbolic link) are named under the manifest and in the prompt', async () => {
    const { runner, ws } = await setup();
    await fs.symlink(path.join(ws, 'gone'), path.join(ws, 'notes', '2026-01-04'));
    const r = await runner.run(parseDirectives('@input file:notes/* (output=variable:foo)\n@input file:notes/*'), ctx);
    expect(r.outcomes[0]!.manifest!.text).toBe(
      `[input routed] 3 files -> variable:foo (total ${r.outcomes[0]!.manifest!.totalChars} chars)\npaths: notes/2026-01-01, notes/2026-01-02, notes/2026-01-03\nskipped: notes/2026-01-04 (a link to nothing)`,
    );
    expect(r.prompt.endsWith('==> notes/2026-01-03 <==\nnote 2026-01-03\n\nskipped: notes/2026-01-04 (a link to nothing)')).toBe(true);
  });

  it('inline inputs (none or output=inline) go into the prompt; a failed input is an outcome, the others still run', async () => {
    const { runner, buffers } = await setup();
    const text = 'Summarise.\n@input file:myfile1\n@input file:missing.md (output=variable:m)\n@input file:myfile2 (output=inline)\n@input file:myfile3 (output=discard)';
    const r = await runner.run(parseDirectives(text), ctx);
    expect(r.outcomes).toEqual([
      { directive: '@input file:myfile1', inlineText: 'one' },
      { directive: '@input file:missing.md (output=variable:m)', error: { code: 'NOT_FOUND', message: "'missing.md' does not exist in the workspace" } },
      { directive: '@input file:myfile2 (output=inline)', inlineText: 'two' },
      { directive: '@input file:myfile3 (output=discard)', manifest: expect.objectContaining({ destination: 'discard', text: '[input routed] 1 file -> discard (total 5 chars)\npaths: myfile3' }) },
    ]);
    expect(r.prompt).toBe(
      [
        'Summarise.',
        '[input] file:myfile1\none',
        "[input failed] file:missing.md: 'missing.md' does not exist in the workspace",
        '[input] file:myfile2\ntwo',
        '[input routed] 1 file -> discard (total 5 chars)\npaths: myfile3',
      ].join('\n\n'),
    );
    expect(buffers.writes).toHaveLength(0);
  });

  it('cuts inlined text past the inline limit', async () => {
    const { runner } = await setup({ inlineMaxChars: 2 });
    const r = await runner.run(parseDirectives('@input file:myfile3'), ctx);
    expect(r.outcomes).toEqual([{ directive: '@input file:myfile3', inlineText: 'th', inlineTruncated: true }]);
    expect(r.prompt).toBe('[input] file:myfile3\nth\n[input cut: the first 2 of 5 chars]');
  });

  it('resolves tools: aggregated, merged per tool, highest version, bundle/slug', async () => {
    const { runner } = await setup();
    const r = await runner.run(parseDirectives('@tools readfile(output=variable:a), grep\n@tools files/readfile(write-mode=new), b/dup, fetch-url(output=discard)\n@model gpt-x'), ctx);
    expect(r.tools.map((t) => ({ name: t.name, id: t.tool.id, version: t.tool.version, output: t.output, writeMode: t.writeMode }))).toEqual([
      { name: 'readfile', id: TOOLS[0]!.tool.id, version: '1.0.0', output: { kind: 'variable', name: 'a' }, writeMode: 'new' },
      { name: 'grep', id: TOOLS[2]!.tool.id, version: '1.10.0', output: undefined, writeMode: undefined },
      { name: 'b/dup', id: TOOLS[5]!.tool.id, version: '1.0.0', output: undefined, writeMode: undefined },
      { name: 'fetch-url', id: TOOLS[3]!.tool.id, version: '1.0.0', output: { kind: 'discard' }, writeMode: undefined },
    ]);
    expect(r.model).toBe('gpt-x');
    expect(r.modelNone).toBe(false);
    expect(r.outcomes).toEqual([]);
  });

  it('a cancelled run stops before the next input', async () => {
    const { runner, buffers } = await setup();
    const ac = new AbortController();
    ac.abort();
    expect((await appError(runner.run(parseDirectives('@input file:myfile1 (output=variable:x)'), { ownerId: 'c', signal: ac.signal }))).code).toBe('CANCELLED');
    expect(buffers.writes).toHaveLength(0);
  });

  it('one tool named two ways: the last output= written wins, in document order', async () => {
    const { runner } = await setup();
    const r = await runner.run(parseDirectives('@tools grep(output=variable:a)\n@tools files/grep(output=variable:b)\n@tools grep(output=variable:c, write-mode=new)'), ctx);
    expect(r.tools.map((t) => ({ name: t.name, id: t.tool.id, output: t.output, writeMode: t.writeMode }))).toEqual([
      { name: 'grep', id: TOOLS[2]!.tool.id, output: { kind: 'variable', name: 'c' }, writeMode: 'new' },
    ]);
    const r2 = await runner.run(parseDirectives('@tools files/grep(output=variable:a), grep(output=variable:b)\n@tools files/grep(output=variable:c)'), ctx);
    expect(r2.tools.map((t) => ({ name: t.name, output: t.output }))).toEqual([{ name: 'files/grep', output: { kind: 'variable', name: 'c' } }]);
  });

  it('an unknown tool named twice is reported once, at its first token', async () => {
    const { runner } = await setup();
    const e = await appError(runner.run(parseDirectives('@tools nope, readfile\n@tools nope'), ctx));
    const errors = (e.details as { errors: DirectiveError[] }).errors;
    expect(errors.map((x) => [x.line, x.column, x.message])).toEqual([[1, 8, "unknown tool 'nope': no enabled tool has this slug"]]);
  });

  it('a cancel that lands while an input is read writes nothing', async () => {
    const { runner, buffers } = await setup();
    const ac = new AbortController();
    const slow = { scheme: 'slow', read: async () => (ac.abort(), { text: 'late', count: 1, paths: [] }) };
    const sources = inputSourceMap([slow]);
    const r2 = new DirectiveRunnerImpl({ ...(runner as unknown as { deps: ConstructorParameters<typeof DirectiveRunnerImpl>[0] }).deps, sources });
    const e = await appError(r2.run(parseDirectives('@input slow:x (output=variable:v)'), { ownerId: 'c', signal: ac.signal }));
    expect(e.code).toBe('CANCELLED');
    expect(buffers.writes).toHaveLength(0);
  });

  it('a text without directives is its own prompt', async () => {
    const { runner } = await setup();
    expect(await runner.run(parseDirectives('\nJust a question?\n'), ctx)).toEqual({ outcomes: [], tools: [], modelNone: false, prompt: 'Just a question?' });
  });
});

describe('resolveToolName', () => {
  it('hints the hyphenated slug', () => {
    const r = resolveToolName('fetch_url', TOOLS);
    expect(r).toEqual({ ok: false, message: "unknown tool 'fetch_url': no enabled tool has this slug (did you mean 'fetch-url'?)" });
  });

  it('names two bundles that share a name', () => {
    const same = [tool('x', 's', '1', 'id-1'), tool('x', 's', '1', 'id-2')];
    expect(resolveToolName('x/s', same)).toEqual({ ok: false, message: "the tool 'x/s' is in several bundles: x/s, x/s; two bundles share a name: rename one" });
  });

  it('picks a release over its pre-releases (1.0.0 over 1.0.0-beta, 2.0.0 over 2.0.0-rc1)', () => {
    const beta = tool('t', 'v', '1.0.0-beta');
    const release = tool('t', 'v', '1.0.0');
    const r1 = resolveToolName('v', [release, beta]);
    expect(r1.ok && r1.candidate.tool.id).toBe(release.tool.id);
    const rc = tool('u', 'w', '2.0.0-rc1');
    const two = tool('u', 'w', '2.0.0');
    const r2 = resolveToolName('w', [two, rc, tool('u', 'w', '1.9.0')]);
    expect(r2.ok && r2.candidate.tool.id).toBe(two.tool.id);
  });

  it('an unknown bundle', () => {
    expect(resolveToolName('nope/readfile', TOOLS)).toEqual({ ok: false, message: "unknown tool 'nope/readfile': no enabled tool has this bundle and slug" });
  });
});
