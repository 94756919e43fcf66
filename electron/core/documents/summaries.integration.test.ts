/**
 * Documents' model summaries through the whole core: Settings' document summary model, a tool's
 * write, the summary asked of the scripted model server in the background (the write answers
 * first), a failure that keeps the first lines, a second write whose first lines replace the
 * stale summary until its own comes, and no request at all without the setting.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentInfo } from '../../../shared/model/document';
import { useAgentCore } from '../testing/agent-core';
import type { RecordedRequest } from '../testing/scripted-model-server';

const start = useAgentCore();
const FILES = '01941f29-7c00-7445-bfe3-19d44c6cadc8';
const DOCUMENTS = '01941f29-7c15-7d3a-8c41-2f6b9e0a5d17';

type Env = Awaited<ReturnType<typeof start>>;
const startFast = () => start({ config: { documentSummaries: { debounceMs: 10 } } });
const writeFile = (env: Env, path: string, content: string) =>
  env.call('tools.invoke', { bundleId: FILES, slug: 'writefile', version: '1', args: { path, content, mode: 'replace' }, source: 'tester' });
/** What an agent reads of a document through the `documents` tool. */
const toolView = async (env: Env, path: string) =>
  ((await env.call('tools.invoke', { bundleId: DOCUMENTS, slug: 'documents', version: '1', args: { operation: 'get', path }, source: 'tester' })).value as { document: { summary: string; summarySource: string } }).document;
const summaryRequests = (env: Env) => env.server.requests.filter((r) => r.path.endsWith('/chat/completions'));
const userText = (r: RecordedRequest) => String((r.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? '');

/** Polls until `test` holds (the summary comes in the background). */
async function until<T>(get: () => Promise<T>, test: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 12_000;
  for (;;) {
    const v = await get();
    if (test(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const documentWhen = (env: Env, path: string, test: (d: DocumentInfo) => boolean, what: string) => until(() => env.call('documents.get', { path }), test, what);

describe("documents' summaries by Settings' model", () => {
  it("a write is summarized by the model after it answers; a second write's first lines replace the stale summary until its own comes", async () => {
    const env = await startFast();
    await env.call('settings.set', { documentSummaryModel: env.model });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    env.server.script([
      { kind: 'hold', until: held, then: { kind: 'text', text: 'Q3 sales by region: north leads with 30.' } },
      { kind: 'text', text: 'Q3 sales by region, corrected: south leads with 40.' },
    ]);

    const w = await writeFile(env, 'reports/q3.md', '# Q3 sales\n\nnorth 30, south 12\n');
    expect(w.value).toMatchObject({ path: 'reports/q3.md' });
    // The write answered while the model still holds the summary request.
    await until(async () => summaryRequests(env).length, (n) => n === 1, 'the summary request');
    expect(userText(summaryRequests(env)[0]!)).toContain('Document: reports/q3.md (text/markdown, 31 bytes)');
    const before = await env.call('documents.get', { path: 'reports/q3.md' });
    expect(before).toMatchObject({ autoSummary: '# Q3 sales north 30, south 12', summaryInfo: { source: 'first-lines', hash: before.versions![0]!.hash } });
    release();
    const first = await documentWhen(env, 'reports/q3.md', (d) => d.summaryInfo?.source === 'model', 'the model summary');
    expect(first).toMatchObject({ autoSummary: 'Q3 sales by region: north leads with 30.', summaryInfo: { hash: first.versions![0]!.hash, model: `${env.model.providerId}/scripted-model` } });
    // An agent reading it through the documents tool is told where the summary came from.
    expect(await toolView(env, 'reports/q3.md')).toMatchObject({ summary: 'Q3 sales by region: north leads with 30.', summarySource: `model ${env.model.providerId}/scripted-model` });

    await writeFile(env, 'reports/q3.md', '# Q3 sales\n\nnorth 30, south 40\n');
    const second = await documentWhen(env, 'reports/q3.md', (d) => d.summaryInfo?.source === 'model' && d.versions!.length === 2, "the second version's model summary");
    expect(second).toMatchObject({ autoSummary: 'Q3 sales by region, corrected: south leads with 40.', summaryInfo: { hash: second.versions![1]!.hash } });
    expect(summaryRequests(env)).toHaveLength(2);
    expect(userText(summaryRequests(env)[1]!)).toContain('north 30, south 40');
  });

  it("the stale summary is gone as soon as the next write is recorded", async () => {
    const env = await startFast();
    await env.call('settings.set', { documentSummaryModel: env.model });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    env.server.script([{ kind: 'text', text: 'The first draft.' }, { kind: 'hold', until: held, then: { kind: 'text', text: 'The second draft.' } }]);
    await writeFile(env, 'draft.md', 'draft one\n');
    await documentWhen(env, 'draft.md', (d) => d.autoSummary === 'The first draft.', 'the first summary');
    await writeFile(env, 'draft.md', 'draft two\n');
    const now = await env.call('documents.get', { path: 'draft.md' });
    expect(now).toMatchObject({ autoSummary: 'draft two', summaryInfo: { source: 'first-lines', hash: now.versions![1]!.hash } });
    release();
    await documentWhen(env, 'draft.md', (d) => d.autoSummary === 'The second draft.', 'the second summary');
  });

  it('a failure keeps the first lines and records why', async () => {
    const env = await startFast();
    await env.call('settings.set', { documentSummaryModel: env.model });
    env.server.script([{ kind: 'status', status: 500, body: { error: { message: 'the model is overloaded' } } }]);
    await writeFile(env, 'notes.md', '# Notes\nkept as they are\n');
    const doc = await documentWhen(env, 'notes.md', (d) => d.summaryInfo?.failed !== undefined, 'the failure');
    expect(doc.autoSummary).toBe('# Notes kept as they are');
    expect(doc.summaryInfo).toMatchObject({ source: 'first-lines', hash: doc.versions![0]!.hash });
    expect(doc.summaryInfo!.failed).toMatch(/^the summary model .*\/scripted-model could not summarize it: .*overloaded/);
    expect((await toolView(env, 'notes.md')).summarySource).toBe(`first lines (the model could not summarize it: ${doc.summaryInfo!.failed})`);
  });

  it('without a summary model no request is made; with one set afterwards, only the later write is summarized', async () => {
    const env = await startFast();
    expect((await env.call('settings.get', {})).documentSummaryModel).toBeNull();
    env.server.fallback(() => ({ kind: 'text', text: 'A summary.' }));
    await writeFile(env, 'plain.md', '# Plain\nfirst lines only\n');
    expect(await env.call('documents.get', { path: 'plain.md' })).toMatchObject({ autoSummary: '# Plain first lines only', summaryInfo: { source: 'first-lines' } });
    expect((await toolView(env, 'plain.md')).summarySource).toBe('first lines');

    await env.call('settings.set', { documentSummaryModel: env.model });
    await writeFile(env, 'later.md', '# Later\n');
    await documentWhen(env, 'later.md', (d) => d.autoSummary === 'A summary.', 'the later summary');
    // Had the first write been queued, its request would have gone first.
    expect(summaryRequests(env).map((r) => userText(r).split('\n')[0])).toEqual(['Document: later.md (text/markdown, 8 bytes)']);
    expect(await env.call('documents.get', { path: 'plain.md' })).toMatchObject({ autoSummary: '# Plain first lines only', summaryInfo: { source: 'first-lines' } });
  });
});
