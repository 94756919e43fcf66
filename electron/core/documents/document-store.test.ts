import Database from 'better-sqlite3';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import { useTempDirs } from '../testing/temp-dir';
import { DocumentStore, MAX_VERSIONS, type TextVersion } from './document-store';
import { SUMMARY_MAX_CHARS, mimeTypeOf, summaryOf } from './text-facts';

const tempDir = useTempDirs();
const open: DocumentStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function setup() {
  const dir = await tempDir();
  const workspace = path.join(dir, 'workspace');
  await fs.mkdir(workspace);
  let t = Date.parse('2026-11-24T10:00:00Z');
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  const changed: string[][] = [];
  const file = path.join(dir, 'documents.sqlite');
  const make = () => {
    const s = DocumentStore.open({ file, workspaceDir: () => workspace, now: () => new Date((t += 1000)), problems: (p) => problems.push(p), onChange: (p) => changed.push(p) });
    open.push(s);
    return s;
  };
  const write = (rel: string, content: string | Buffer) => fs.mkdir(path.dirname(path.join(workspace, rel)), { recursive: true }).then(() => fs.writeFile(path.join(workspace, rel), content));
  return { dir, workspace, file, make, write, problems, changed };
}

describe('documents', () => {
  it('records a written file with its facts, and a version only when its content changes', async () => {
    const { make, write, changed } = await setup();
    const docs = make();
    await write('reports/q3.md', '# Q3 analysis\n\nRevenue grew 12%.\n');
    await docs.record('reports/q3.md', 'task 1');
    const first = docs.get('reports/q3.md');
    expect(first).toMatchObject({
      path: 'reports/q3.md',
      createdBy: 'task 1',
      updatedBy: 'task 1',
      mimeType: 'text/markdown',
      sizeBytes: 33,
      tokenCount: 9,
      autoSummary: '# Q3 analysis Revenue grew 12%.',
      description: '',
      tags: [],
    });
    expect(first.versions).toHaveLength(1);
    expect(first.versions![0]).toMatchObject({ seq: 1, sizeBytes: 33, by: 'task 1' });
    expect(first.versions![0]!.hash).toMatch(/^[0-9a-f]{64}$/);

    // The same bytes again: no new version.
    await docs.record('reports/q3.md', 'task 2');
    expect(docs.get('reports/q3.md').versions).toHaveLength(1);
    await write('reports/q3.md', '# Q3 analysis\n\nRevenue grew 13%.\n');
    await docs.record('./reports/q3.md', 'task 2');
    const second = docs.get('reports/q3.md');
    expect(second).toMatchObject({ createdBy: 'task 1', updatedBy: 'task 2', autoSummary: '# Q3 analysis Revenue grew 13%.' });
    expect(second.versions!.map((v) => [v.seq, v.by])).toEqual([
      [1, 'task 1'],
      [2, 'task 2'],
    ]);
    expect(second.versions![0]!.hash).not.toBe(second.versions![1]!.hash);
    expect(changed).toEqual([['reports/q3.md'], ['reports/q3.md']]);
  });

  it('binary files get a hash and size, no tokens or summary', async () => {
    const { make, write } = await setup();
    const docs = make();
    await write('chart.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    await docs.record('chart.png', 'task 3');
    const d = docs.get('chart.png');
    expect(d).toMatchObject({ mimeType: 'image/png', sizeBytes: 8, autoSummary: '' });
    expect(d).not.toHaveProperty('tokenCount');
  });

  it('lists by tags, creator, type and words; describes', async () => {
    const { make, write } = await setup();
    const docs = make();
    await write('data/sales.csv', 'region,amount\nnorth,10\n');
    await docs.record('data/sales.csv', 'user');
    await write('notes/plan.md', 'Plan for the launch\n');
    await docs.record('notes/plan.md', 'task 1');
    await write('notes/chart.svg', '<svg/>');
    await docs.record('notes/chart.svg', 'task 2');
    docs.describe('data/sales.csv', { description: 'Sales by region, Q3', tags: ['sales', 'q3', 'sales', ' '] }, 'user');
    docs.describe('notes/plan.md', { tags: ['q3'] }, 'task 1');
    const names = (q: Parameters<DocumentStore['list']>[0]) => docs.list(q).map((d) => d.path);
    expect(names({})).toEqual(['notes/chart.svg', 'notes/plan.md', 'data/sales.csv']);
    expect(docs.get('data/sales.csv').tags).toEqual(['sales', 'q3']);
    expect(names({ tags: ['q3'] }).sort()).toEqual(['data/sales.csv', 'notes/plan.md']);
    expect(names({ tags: ['q3', 'sales'] })).toEqual(['data/sales.csv']);
    expect(names({ createdBy: 'task 2' })).toEqual(['notes/chart.svg']);
    expect(names({ mimeType: 'text/' })).toEqual(['notes/plan.md', 'data/sales.csv']);
    expect(names({ mimeType: 'image/svg+xml' })).toEqual(['notes/chart.svg']);
    expect(names({ pathPrefix: 'notes/' })).toEqual(['notes/chart.svg', 'notes/plan.md']);
    expect(names({ text: 'REGION q3' })).toEqual(['data/sales.csv']);
    expect(names({ text: 'launch' })).toEqual(['notes/plan.md']);
    expect(names({ limit: 1 })).toHaveLength(1);
    expect(() => docs.get('nope.md')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('keeps the newest versions only', async () => {
    const { make, write } = await setup();
    const docs = make();
    for (let i = 0; i < MAX_VERSIONS + 5; i++) {
      await write('log.txt', `v${i}`);
      await docs.record('log.txt', 'task 1');
    }
    const v = docs.get('log.txt').versions!;
    expect(v).toHaveLength(MAX_VERSIONS);
    expect(v[0]!.seq).toBe(6);
    expect(v.at(-1)!.seq).toBe(MAX_VERSIONS + 5);
  });

  it('a path outside the workspace, or a file that is gone, records nothing and never throws', async () => {
    const { make, problems } = await setup();
    const docs = make();
    await docs.record('../outside.md', 'task 1');
    await docs.record('missing.md', 'task 1');
    expect(docs.list()).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/could not be updated: .*outside|leaves|\.\./);
  });

  it('is kept after a reopen; a damaged database is moved aside and a new one started', async () => {
    const { make, write, file, problems } = await setup();
    const docs = make();
    await write('a.md', 'A');
    await docs.record('a.md', 'task 1');
    docs.close();
    expect(make().get('a.md').createdBy).toBe('task 1');
    open.splice(0).forEach((s) => s.close());
    await fs.writeFile(file, 'this is not a database at all, just text that is long enough to be read');
    await fs.rm(`${file}-wal`, { force: true });
    const fresh = make();
    expect(fresh.list()).toEqual([]);
    expect(problems.at(-1)).toMatchObject({ kind: 'corrupt-file', message: expect.stringMatching(/^the documents database could not be opened/) });
    expect(new Database(problems.at(-1)!.movedTo!, { readonly: true, fileMustExist: true })).toBeTruthy();
  });

  it('keeps records per workspace: another workspace with the same paths shows its own', async () => {
    const { dir, file, workspace } = await setup();
    let current = workspace;
    const other = path.join(dir, 'other-workspace');
    await fs.mkdir(other);
    const docs = DocumentStore.open({ file, workspaceDir: () => current, now: () => new Date() });
    open.push(docs);
    await fs.writeFile(path.join(workspace, 'notes.md'), 'first workspace');
    await docs.record('notes.md', 'task 1');
    current = other;
    expect(docs.list()).toEqual([]);
    expect(() => docs.get('notes.md')).toThrow(/no document 'notes.md'/);
    await fs.writeFile(path.join(other, 'notes.md'), 'second workspace, other bytes');
    await docs.record('notes.md', 'task 2');
    expect(docs.get('notes.md')).toMatchObject({ createdBy: 'task 2', sizeBytes: 29 });
    expect(docs.get('notes.md').versions).toHaveLength(1);
    current = workspace;
    expect(docs.get('notes.md')).toMatchObject({ createdBy: 'task 1', sizeBytes: 15 });
    expect(docs.list().map((d) => d.path)).toEqual(['notes.md']);
  });

  it('a database from before records were per workspace: its records go to the workspace open at the next start', async () => {
    const { file, workspace, make } = await setup();
    const old = new Database(file);
    old.exec(`
      CREATE TABLE documents (path TEXT PRIMARY KEY, created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_by TEXT NOT NULL, updated_at TEXT NOT NULL,
        mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, token_count INTEGER, auto_summary TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]');
      CREATE TABLE document_versions (path TEXT NOT NULL REFERENCES documents (path) ON DELETE CASCADE ON UPDATE CASCADE, seq INTEGER NOT NULL, hash TEXT NOT NULL,
        size_bytes INTEGER NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL, PRIMARY KEY (path, seq));
      INSERT INTO documents VALUES ('old.md', 'task 9', '2026-01-01T00:00:00.000Z', 'task 9', '2026-01-01T00:00:00.000Z', 'text/markdown', 3, 1, 'old', 'kept', '["x"]');
      INSERT INTO document_versions VALUES ('old.md', 1, '${'a'.repeat(64)}', 3, '2026-01-01T00:00:00.000Z', 'task 9');
      PRAGMA user_version = 1;
    `);
    old.close();
    const docs = make();
    expect(docs.get('old.md')).toMatchObject({ createdBy: 'task 9', description: 'kept', tags: ['x'], versions: [{ seq: 1, by: 'task 9' }] });
    // Its summary is its first lines, of the newest version.
    expect(docs.get('old.md').summaryInfo).toEqual({ source: 'first-lines', hash: 'a'.repeat(64) });
    await fs.writeFile(path.join(workspace, 'old.md'), 'new');
    await docs.record('old.md', 'task 10');
    expect(docs.get('old.md').versions!.map((v) => v.by)).toEqual(['task 9', 'task 10']);
  });

  it("a model's summary describes one version: kept only while it is the newest, replaced by the first lines of the next", async () => {
    const { workspace, file, write, changed } = await setup();
    const versions: TextVersion[] = [];
    const docs = DocumentStore.open({ file, workspaceDir: () => workspace, now: () => new Date(), onChange: (p) => changed.push(p), onTextVersion: (v) => versions.push(v) });
    open.push(docs);
    await write('notes.md', '# Notes\nfirst\n');
    await docs.record('notes.md', 'task 1');
    const v1 = docs.get('notes.md').versions![0]!.hash;
    expect(versions).toEqual([{ workspaceDir: workspace, path: 'notes.md', hash: v1, sizeBytes: 14, mimeType: 'text/markdown' }]);
    expect(docs.get('notes.md')).toMatchObject({ autoSummary: '# Notes first', summaryInfo: { source: 'first-lines', hash: v1 } });
    expect(docs.latestHash(workspace, 'notes.md')).toBe(v1);

    expect(docs.setModelSummary(workspace, 'notes.md', v1, 'Notes, the first.', 'p1/m')).toBe(true);
    expect(docs.get('notes.md')).toMatchObject({ autoSummary: 'Notes, the first.', summaryInfo: { source: 'model', hash: v1, model: 'p1/m' } });
    // Words of a model's summary are found by a search.
    expect(docs.list({ text: 'the first.' }).map((d) => d.path)).toEqual(['notes.md']);

    await write('notes.md', '# Notes\nsecond\n');
    await docs.record('notes.md', 'task 2');
    const v2 = docs.latestHash(workspace, 'notes.md')!;
    expect(versions.map((v) => v.hash)).toEqual([v1, v2]);
    // The summary of the first version went with it.
    expect(docs.get('notes.md')).toMatchObject({ autoSummary: '# Notes second', summaryInfo: { source: 'first-lines', hash: v2 } });
    // A late answer about the first version changes nothing.
    const before = changed.length;
    expect(docs.setModelSummary(workspace, 'notes.md', v1, 'Notes, the first.', 'p1/m')).toBe(false);
    expect(docs.setSummaryFailure(workspace, 'notes.md', v1, 'too late')).toBe(false);
    expect(docs.get('notes.md')).toMatchObject({ autoSummary: '# Notes second', summaryInfo: { source: 'first-lines', hash: v2 } });
    expect(changed).toHaveLength(before);
    // A failure for the newest version is recorded beside its first lines; a summary after it clears it.
    expect(docs.setSummaryFailure(workspace, 'notes.md', v2, 'the model is down')).toBe(true);
    expect(docs.get('notes.md')).toMatchObject({ autoSummary: '# Notes second', summaryInfo: { source: 'first-lines', hash: v2, failed: 'the model is down' } });
    expect(docs.setModelSummary(workspace, 'notes.md', v2, 'Notes, the second.', 'p1/m')).toBe(true);
    expect(docs.get('notes.md').summaryInfo).toEqual({ source: 'model', hash: v2, model: 'p1/m' });

    // Binary files are not offered for a summary.
    await write('chart.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    await docs.record('chart.png', 'task 3');
    expect(versions).toHaveLength(2);
  });

  it('text facts: type by extension, summary from the first lines', () => {
    expect(mimeTypeOf('a/b.CSV', true)).toBe('text/csv');
    expect(mimeTypeOf('noext', true)).toBe('text/plain');
    expect(mimeTypeOf('noext', false)).toBe('application/octet-stream');
    expect(summaryOf('\n\n  first  \nsecond\n')).toBe('first second');
    const long = summaryOf('word '.repeat(200));
    expect(long).toHaveLength(SUMMARY_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('the documents tool', () => {
  it('lists, gets and describes; refuses what is missing with a clear error', async () => {
    const { make, write } = await setup();
    const docs = make();
    await write('notes/plan.md', 'Plan for the launch\n');
    await docs.record('notes/plan.md', 'task 1');
    const { createDocumentTool } = await import('./document-tool');
    const run = createDocumentTool(() => docs);
    const ctx = { ownerId: 'task 2' } as Parameters<typeof run>[0];
    const signal = new AbortController().signal;
    expect(await run(ctx, { operation: 'list', text: 'launch' }, signal)).toMatchObject({ operation: 'list', documents: [{ path: 'notes/plan.md', createdBy: 'task 1', summary: 'Plan for the launch' }] });
    expect(await run(ctx, { operation: 'describe', path: 'notes/plan.md', set_tags: ['launch'] }, signal)).toMatchObject({ document: { tags: ['launch'], updatedBy: 'task 2' } });
    expect(await run(ctx, { operation: 'get', path: 'notes/plan.md' }, signal)).toMatchObject({ document: { versions: [{ seq: 1, by: 'task 1' }] } });
    await expect(run(ctx, { operation: 'describe', path: 'notes/plan.md' }, signal)).rejects.toThrow('describe needs description, set_tags, or both');
    await expect(run(ctx, { operation: 'get', path: 'nope.md' }, signal)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(run(ctx, {}, signal)).rejects.toThrow('operation is required: one of list, get, describe');
    await expect(run(ctx, { operation: 'list', tags: 'q3' }, signal)).rejects.toThrow('tags must be a list of strings');
    await expect(createDocumentTool(() => undefined)(ctx, { operation: 'list' }, signal)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
