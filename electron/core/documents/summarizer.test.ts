/**
 * The document summarizer with a real document store on a temp folder, the real OpenAI client
 * and the scripted model server; the debounce's timers are the test's, fired when it says.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIModelClient } from '../agent/providers/openai-client';
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../testing/scripted-model-server';
import { useTempDirs } from '../testing/temp-dir';
import { DocumentStore } from './document-store';
import { DocumentSummarizer, SUMMARY_SYSTEM, cleanSummary, cutNote, type SummaryModel } from './summarizer';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Timers the test fires itself. */
function manualTimers() {
  const set: { fn: () => void; live: boolean }[] = [];
  return {
    api: {
      set: (fn: () => void) => {
        const h = { fn, live: true };
        set.push(h);
        return h;
      },
      clear: (h: unknown) => {
        (h as { live: boolean }).live = false;
      },
    },
    /** Fires every timer set so far that was not cleared; answers how many. */
    fire: () => set.splice(0).filter((h) => h.live && (h.fn(), true)).length,
    waiting: () => set.filter((h) => h.live).length,
  };
}

type Opts = { model?: Partial<SummaryModel> | null; concurrency?: number };
async function setup(opts: Opts = {}) {
  const server: ScriptedModelServer = await startScriptedModelServer();
  closers.push(() => server.close());
  const dir = await tempDir();
  const workspace = path.join(dir, 'workspace');
  await fs.mkdir(workspace);
  const timers = manualTimers();
  const logs: string[] = [];
  const client = new OpenAIModelClient({ baseUrl: server.url, key: () => 'sk-test', redact: (t) => t });
  const model: SummaryModel | undefined =
    opts.model === null ? undefined : { ref: { providerId: 'p1', model: 'scripted-model' }, client: () => client, contextTokens: 32_768, ...opts.model };
  const store = DocumentStore.open({ file: path.join(dir, 'documents.sqlite'), workspaceDir: () => workspace, now: () => new Date(), onTextVersion: (v) => summaries.schedule(v) });
  const summaries = new DocumentSummarizer({ store, model: () => model, timers: timers.api, log: (m) => logs.push(m), ...(opts.concurrency ? { concurrency: opts.concurrency } : {}) });
  closers.push(() => store.close());
  closers.push(() => summaries.close());
  const write = async (rel: string, content: string) => {
    await fs.mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
    await fs.writeFile(path.join(workspace, rel), content);
    await store.record(rel, 'task 1');
  };
  const chats = () => server.requests.filter((r) => r.path.endsWith('/chat/completions'));
  return { server, store, summaries, timers, logs, write, chats, workspace };
}

type Msg = { role: string; content: string };
const messagesOf = (r: RecordedRequest) => r.body.messages as Msg[];
const userText = (r: RecordedRequest) => messagesOf(r).find((m) => m.role === 'user')!.content;

/** Waits until `n` requests reached the server (they are sent in the background). */
async function requestsReached(chats: () => RecordedRequest[], n: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (chats().length < n) {
    if (Date.now() > end) throw new Error(`${n} requests did not arrive (${chats().length} did)`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('document summaries by a model', () => {
  it('a burst of writes to a document asks once, for the last; the summary records the version it describes', async () => {
    const { server, store, summaries, timers, write, chats } = await setup();
    server.script([{ kind: 'text', text: ' "Q3 sales by region: north leads with 30." ' }]);
    await write('reports/q3.md', '# Q3\n\nnorth 10\n');
    await write('reports/q3.md', '# Q3\n\nnorth 20\n');
    await write('reports/q3.md', '# Q3\n\nnorth 30, south 12\n');
    // Nothing is asked before the wait ends; then one request, for the newest content.
    expect(chats()).toHaveLength(0);
    expect(timers.fire()).toBe(1);
    await summaries.idle();
    expect(chats()).toHaveLength(1);
    const req = chats()[0]!;
    expect(req.body.model).toBe('scripted-model');
    expect(req.body.tools ?? []).toEqual([]);
    expect(messagesOf(req)[0]).toMatchObject({ role: 'system', content: SUMMARY_SYSTEM });
    expect(userText(req)).toBe('Document: reports/q3.md (text/markdown, 25 bytes)\n<document>\n# Q3\n\nnorth 30, south 12\n\n</document>');
    const doc = store.get('reports/q3.md');
    expect(doc.autoSummary).toBe('Q3 sales by region: north leads with 30.');
    expect(doc.summaryInfo).toEqual({ source: 'model', hash: doc.versions!.at(-1)!.hash, model: 'p1/scripted-model' });
  });

  it('asks for a few documents at a time', async () => {
    const { server, summaries, timers, write, chats } = await setup({ concurrency: 2 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.fallback(() => ({ kind: 'hold', until: held, then: { kind: 'text', text: 'A note.' } }));
    for (const n of [1, 2, 3]) await write(`notes/${n}.md`, `note ${n}\n`);
    expect(timers.fire()).toBe(3);
    await requestsReached(chats, 2);
    // The third waits for one of the two to end.
    await new Promise((r) => setTimeout(r, 50));
    expect(chats()).toHaveLength(2);
    release();
    await summaries.idle();
    const asked = chats().map((r) => userText(r).split('\n')[0]);
    // The first two are asked at once (either may reach the server first); the third after them.
    expect(asked.slice(0, 2).sort()).toEqual(['Document: notes/1.md (text/markdown, 7 bytes)', 'Document: notes/2.md (text/markdown, 7 bytes)']);
    expect(asked[2]).toBe('Document: notes/3.md (text/markdown, 7 bytes)');
  });

  it("an answer about a version a later write replaced is dropped: the new version's first lines stay until its own summary", async () => {
    const { server, store, summaries, timers, write, chats } = await setup();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.script([{ kind: 'hold', until: held, then: { kind: 'text', text: 'About version one.' } }, { kind: 'text', text: 'About version two.' }]);
    await write('notes.md', 'version one\n');
    timers.fire();
    await requestsReached(chats, 1);
    // The second write comes while the first version's summary is asked for.
    await write('notes.md', 'version two\n');
    release();
    await summaries.idle();
    expect(store.get('notes.md')).toMatchObject({ autoSummary: 'version two', summaryInfo: { source: 'first-lines' } });
    expect(timers.fire()).toBe(1);
    await summaries.idle();
    const doc = store.get('notes.md');
    expect(doc).toMatchObject({ autoSummary: 'About version two.', summaryInfo: { source: 'model', hash: doc.versions!.at(-1)!.hash } });
    expect(chats()).toHaveLength(2);
  });

  it('a long document is cut to the budget the model can read, and the prompt says so', async () => {
    const { server, store, summaries, timers, write, chats } = await setup({ model: { contextTokens: 2000 } });
    server.script([{ kind: 'text', text: 'A long list of readings.' }]);
    const body = Array.from({ length: 1000 }, (_, i) => `reading ${String(i).padStart(4, '0')}`).join('\n');
    await write('readings.txt', body);
    timers.fire();
    await summaries.idle();
    // Half of a 2,000-token window at about 4 characters a token.
    const text = userText(chats()[0]!);
    expect(text).toContain(cutNote(4000, body.length));
    const inside = /<document>\n([\s\S]*)\n<\/document>$/.exec(text)![1]!;
    expect(inside).toBe(body.slice(0, 4000));
    expect(store.get('readings.txt').autoSummary).toBe('A long list of readings.');
  });

  it("a failure keeps the first lines and says why, on the document and in the log; a provider that is gone is a failure too", async () => {
    const { server, store, summaries, timers, write, logs } = await setup();
    server.script([{ kind: 'status', status: 500, body: { error: { message: 'the model is overloaded' } } }]);
    await write('notes.md', '# Notes\nkept\n');
    timers.fire();
    await summaries.idle();
    const doc = store.get('notes.md');
    expect(doc.autoSummary).toBe('# Notes kept');
    expect(doc.summaryInfo).toMatchObject({ source: 'first-lines', hash: doc.versions![0]!.hash });
    expect(doc.summaryInfo!.failed).toMatch(/^the summary model p1\/scripted-model could not summarize it: .*overloaded/);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^document summary of 'notes\.md': the summary model p1\/scripted-model could not summarize it: .*overloaded.*; its first lines stay its summary$/);

    const gone = await setup({ model: { client: () => { throw new Error("no provider with id 'p1'"); } } });
    await gone.write('a.md', 'alpha\n');
    gone.timers.fire();
    await gone.summaries.idle();
    expect(gone.store.get('a.md')).toMatchObject({ autoSummary: 'alpha', summaryInfo: { source: 'first-lines', failed: "the summary model p1/scripted-model could not summarize it: no provider with id 'p1'" } });
    expect(gone.chats()).toHaveLength(0);
  });

  it('without a summary model nothing is asked: the first lines are the summary', async () => {
    const { store, summaries, timers, write, chats } = await setup({ model: null });
    await write('notes.md', '# Notes\nplain\n');
    expect(timers.waiting()).toBe(0);
    await summaries.idle();
    expect(chats()).toHaveLength(0);
    expect(store.get('notes.md')).toMatchObject({ autoSummary: '# Notes plain', summaryInfo: { source: 'first-lines' } });
  });

  it("cleans the model's answer: one line, no quotes or thinking, cut when too long", () => {
    expect(cleanSummary('  "Sales\n by region."  ')).toBe('Sales by region.');
    expect(cleanSummary('<think>hmm</think>The report.')).toBe('The report.');
    const long = cleanSummary('word '.repeat(300));
    expect(long).toHaveLength(600);
    expect(long.endsWith('…')).toBe(true);
    expect(cleanSummary('   ')).toBe('');
  });
});
