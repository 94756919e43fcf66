/**
 * Documents through the whole core: the file tools and routing record what they write, with
 * the conversation as writer; the documents.* operations list, read and describe them.
 */
import { describe, expect, it } from 'vitest';
import { useAgentCore } from '../testing/agent-core';

const start = useAgentCore();
const FILES = '01941f29-7c00-7445-bfe3-19d44c6cadc8';

describe('documents in the core', () => {
  it('writefile, appendfile and output=file: each write is a document version by its conversation', async () => {
    const { core, call } = await start();
    const c = await call('conversations.create', {});
    const run = (slug: string, args: unknown, output?: string) =>
      call('chat.runTool', { conversationId: c.id, bundleId: FILES, slug, version: '1', args, ...(output ? { output } : {}) });

    const w = await run('writefile', { path: 'out/report.md', content: '# Report\nall good\n' });
    expect(w.tool?.status).toBe('ok');
    await run('appendfile', { path: 'out/report.md', content: 'one more line\n' });
    // A read routed into a file: routing writes it.
    await run('readfile', { path: 'out/report.md' }, 'file:copies/report-copy.txt');
    // The tester (no conversation) writes as the user.
    const t = await call('tools.invoke', { bundleId: FILES, slug: 'writefile', version: '1', args: { path: 'by-hand.txt', content: 'x' }, source: 'tester' });
    expect(t.value).toMatchObject({ path: 'by-hand.txt', created: true });
    // Queued when the file was written; reads wait for the queue.
    const list = await call('documents.list', {});
    expect(list.map((d) => d.path).sort()).toEqual(['by-hand.txt', 'copies/report-copy.txt', 'out/report.md']);
    const report = await call('documents.get', { path: 'out/report.md' });
    expect(report).toMatchObject({ createdBy: c.id, updatedBy: c.id, mimeType: 'text/markdown', autoSummary: '# Report all good one more line' });
    expect(report.versions!.map((v) => v.seq)).toEqual([1, 2]);
    expect((await call('documents.get', { path: 'copies/report-copy.txt' })).createdBy).toBe(c.id);
    expect((await call('documents.get', { path: 'by-hand.txt' })).createdBy).toBe('user');

    const described = await call('documents.describe', { path: 'out/report.md', description: 'The weekly report', tags: ['weekly'] });
    expect(described).toMatchObject({ description: 'The weekly report', tags: ['weekly'] });
    expect((await call('documents.list', { tags: ['weekly'] })).map((d) => d.path)).toEqual(['out/report.md']);
    const missing = await core.call('documents.get', { path: 'nope.md' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
