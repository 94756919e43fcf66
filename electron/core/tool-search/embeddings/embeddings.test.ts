/**
 * Semantic search's parts against a local endpoint (../testing/fake-embeddings.ts, a
 * bag-of-words embedding with a few words of the same meaning): the client (batches, order,
 * key, errors, bounds), the vector cache (persisted, bounded, a corrupt file moved aside),
 * the service (tools embedded once, again when their text changes, failures and late answers
 * said, not thrown) and the fusion with the word ranking.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { useTempDirs } from '../../testing/temp-dir';
import { searchableTool, type ToolOfBundle } from '../document';
import { ToolRanker } from '../ranker';
import { DIMS, fakeEmbeddings, type FakeEmbeddings } from '../testing/fake-embeddings';
import { BATCH_SIZE, EmbeddingsClient } from './client';
import { fuse, nearest } from './fusion';
import { FAILURE_PAUSE_MS, SemanticSearch, type SemanticDoc, type SemanticTarget } from './semantic';
import { embeddingText } from './tool-text';
import { VECTORS_FILE, VectorCache, vectorKey } from './vector-cache';

const tempDir = useTempDirs();
const servers: FakeEmbeddings[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(): Promise<FakeEmbeddings> {
  const s = await fakeEmbeddings();
  servers.push(s);
  return s;
}

const KEY = 'sk-embed-SECRET-42';
const client = (s: FakeEmbeddings, key: string | null = KEY) => new EmbeddingsClient({ baseUrl: s.baseUrl, key: () => key ?? undefined }, 'bag-of-words');
const failure = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a failure');
};

describe('embeddings client', () => {
  it('sends the texts in batches with the key, and answers one vector per text in order', async () => {
    const s = await server();
    s.shuffle = true;
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const texts = Array.from({ length: BATCH_SIZE + 3 }, (_, i) => `reserve car ${letters[i % 26]}${letters[Math.floor(i / 26)]}`);
    const vs = await client(s).embed(texts);
    expect(vs).toHaveLength(texts.length);
    expect(vs.every((v) => v.length === DIMS)).toBe(true);
    expect(s.requests.map((r) => r.input.length)).toEqual([BATCH_SIZE, 3]);
    expect(s.requests[0]).toMatchObject({ auth: `Bearer ${KEY}`, model: 'bag-of-words' });
    // In order although the server answered in reverse: the first text's vector is its own.
    const [first] = await client(s).embed([texts[0]!]);
    expect(Array.from(vs[0]!)).toEqual(Array.from(first!));
    expect(Array.from(vs[1]!)).not.toEqual(Array.from(first!));
  });

  it('no key: no Authorization header', async () => {
    const s = await server();
    await client(s, null).embed(['x']);
    expect(s.requests[0]!.auth).toBeUndefined();
  });

  it('a failing endpoint is one clear sentence, without the key even when the server echoes it', async () => {
    const s = await server();
    s.mode = 'fail';
    const e = await failure(client(s).embed(['x']));
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toMatch(/^embeddings: the endpoint answered 500: model crashed/);
    expect(e.message).not.toContain(KEY);
    expect(e.message).toContain('[redacted]');
  });

  it('a slow endpoint is a TIMEOUT; an unreachable one says so; a web page, a short or a huge answer are refused', async () => {
    const s = await server();
    s.mode = 'hang';
    expect(await failure(client(s).embed(['x'], { timeoutMs: 100 }))).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/did not answer within 0.1 s/) as unknown });
    s.mode = 'not-json';
    expect((await failure(client(s).embed(['x']))).message).toMatch(/did not answer JSON: is .*\/v1\/embeddings an embeddings endpoint\?/);
    s.mode = 'short';
    expect((await failure(client(s).embed(['x', 'y']))).message).toBe('embeddings: 2 texts were sent and 1 vectors came back');
    s.mode = 'huge';
    expect((await failure(client(s).embed(['x']))).message).toMatch(/the answer is larger than 32 MB/);
    const gone = new EmbeddingsClient({ baseUrl: 'http://127.0.0.1:9/v1', key: () => undefined }, 'm');
    expect(await failure(gone.embed(['x']))).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/^embeddings: could not reach 127.0.0.1:9/) as unknown });
  });
});

describe('vector cache', () => {
  const vec = (...xs: number[]) => Float32Array.from(xs);

  it('keeps vectors across a restart, in an atomic file', async () => {
    const dir = await tempDir();
    const a = await VectorCache.open({ dataDir: dir });
    a.set(vectorKey('p', 'm', 'text one'), vec(1, 2, 3));
    await a.flush();
    const b = await VectorCache.open({ dataDir: dir });
    expect(Array.from(b.get(vectorKey('p', 'm', 'text one'))!)).toEqual([1, 2, 3]);
    // Another model or text is another key.
    expect(b.get(vectorKey('p', 'other', 'text one'))).toBeUndefined();
    expect((await fs.readdir(path.dirname(path.join(dir, VECTORS_FILE)))).filter((f) => f !== 'vectors.json')).toEqual([]);
  });

  it('is bounded: the vectors used longest ago go first', async () => {
    const dir = await tempDir();
    const c = await VectorCache.open({ dataDir: dir, maxBytes: 3 * 12 });
    const k = (i: number) => vectorKey('p', 'm', `t${i}`);
    for (let i = 0; i < 3; i++) c.set(k(i), vec(i, i, i));
    c.get(k(0));
    c.set(k(3), vec(3, 3, 3));
    expect([0, 1, 2, 3].map((i) => c.has(k(i)))).toEqual([true, false, true, true]);
    expect(c.size).toBe(3);
  });

  it('a corrupt file is moved aside and said; the cache starts empty and is written again', async () => {
    const dir = await tempDir();
    const file = path.join(dir, VECTORS_FILE);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{"format":"toolsmith-tool-vectors","version":1,"entries":[{"k":"zz","v":"AAAA"}');
    const problems: string[] = [];
    const c = await VectorCache.open({ dataDir: dir, problem: (m) => problems.push(m) });
    expect(c.size).toBe(0);
    expect(problems).toEqual([expect.stringMatching(/^tool vectors could not be read \(not valid JSON.*\): moved to vectors\.json\.corrupt-.*; they are embedded again$/)]);
    const names = await fs.readdir(path.dirname(file));
    expect(names.some((n) => n.startsWith('vectors.json.corrupt-'))).toBe(true);
    c.set(vectorKey('p', 'm', 'x'), vec(1));
    await c.flush();
    expect((await VectorCache.open({ dataDir: dir })).size).toBe(1);
    // Valid JSON of another shape is set aside too.
    await fs.writeFile(file, JSON.stringify({ format: 'toolsmith-tool-vectors', version: 1, entries: [{ k: 'a'.repeat(64), v: 'AAA' }] }));
    const again: string[] = [];
    expect((await VectorCache.open({ dataDir: dir, problem: (m) => again.push(m) })).size).toBe(0);
    expect(again[0]).toMatch(/not a file of tool vectors/);
  });
});

/** Tools of a travel desk: the car tool says "reserve a car", never "lend" or "wheels". */
const TRAVEL: [string, string][] = [
  ['reserve-car', 'Reserve a car at a pick-up location'],
  ['search-flights', 'Search flights between two airports'],
  ['book-hotel', 'Find a hotel room for given dates'],
  ['convert-currency', 'Convert an amount between currencies'],
  ['get-weather', 'Weather forecast for a city'],
  ['translate-text', 'Translate text into another language'],
];

function docsOf(tools: [string, string][], stamp = 'v1'): SemanticDoc[] {
  return tools.map(([slug, description]) => ({ key: slug, cacheKey: `${slug}@${stamp}@${description}`, make: () => tool(slug, description) }));
}
function tool(slug: string, description: string): ToolOfBundle {
  return { tool: { slug, displayName: slug.replace(/-/g, ' '), description, tags: [], argSchema: { type: 'object' } }, bundleSlug: 'travel' };
}

describe('semantic search', () => {
  async function service(s: FakeEmbeddings, opts: { maxWaitMs?: number; now?: () => number } = {}) {
    const dir = await tempDir();
    const cache = VectorCache.open({ dataDir: dir });
    let on = true;
    const target: SemanticTarget = { providerId: 'p1', model: 'bag-of-words', connection: { baseUrl: s.baseUrl, key: () => KEY } };
    const sem = new SemanticSearch({ target: () => (on ? target : undefined), cache: () => cache, ...opts });
    return { sem, dir, cache, off: () => (on = false) };
  }
  const toolTexts = (s: FakeEmbeddings) => s.requests.filter((r) => r.input.length > 1 || r.input[0]!.includes('\n')).flatMap((r) => r.input);

  it('finds a tool by meaning: the query shares no word with it', async () => {
    const s = await server();
    const { sem } = await service(s);
    const near = await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near).toMatchObject({ used: true });
    expect(near.used && near.keys[0]).toBe('reserve-car');
    // What was sent: each tool's text once, then the query.
    expect(toolTexts(s)).toHaveLength(TRAVEL.length);
    expect(s.requests.at(-1)!.input).toEqual(['lend me some wheels']);
  });

  it('embeds a tool once; a tool whose text changes is embedded again, alone', async () => {
    const s = await server();
    const { sem, cache } = await service(s);
    await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    await sem.nearest('a hotel room', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(toolTexts(s)).toHaveLength(TRAVEL.length);
    const changed = TRAVEL.map(([slug, d]): [string, string] => (slug === 'get-weather' ? [slug, 'Rain and sun tomorrow in a town'] : [slug, d]));
    s.requests.length = 0;
    await sem.nearest('rain tomorrow', docsOf(changed, 'v2'), { timeLimitMs: 5_000 });
    expect(s.requests).toHaveLength(2);
    expect(s.requests.map((r) => r.input)).toEqual(expect.arrayContaining([['rain tomorrow'], [expect.stringContaining('Rain and sun tomorrow in a town') as unknown]]));
    expect((await cache).size).toBe(TRAVEL.length + 1);
  });

  it('vectors of another size (the model changed under the same name) are forgotten and embedded again', async () => {
    const s = await server();
    const { sem, cache } = await service(s);
    const c = await cache;
    // What an older model left: three numbers a tool where the model now gives DIMS.
    for (const d of docsOf(TRAVEL)) c.set(vectorKey('p1', 'bag-of-words', embeddingText(d.make()), s.baseUrl), new Float32Array([1, 2, 3]));
    const first = await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(first).toEqual({ used: false, reason: `the query's vector has ${DIMS} dimensions and the tools' 3: the model changed; the tools are embedded again` });
    await expect.poll(() => toolTexts(s).length).toBe(TRAVEL.length);
    const near = await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near.used && near.keys[0]).toBe('reserve-car');
  });

  it('a restart reads the vectors from the data folder and embeds only the query', async () => {
    const s = await server();
    const dir = await tempDir();
    const target: SemanticTarget = { providerId: 'p1', model: 'bag-of-words', connection: { baseUrl: s.baseUrl, key: () => KEY } };
    const first = VectorCache.open({ dataDir: dir });
    await new SemanticSearch({ target: () => target, cache: () => first }).nearest('x', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    await (await first).flush();
    s.requests.length = 0;
    const second = VectorCache.open({ dataDir: dir });
    const near = await new SemanticSearch({ target: () => target, cache: () => second }).nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near.used && near.keys[0]).toBe('reserve-car');
    expect(s.requests.map((r) => r.input)).toEqual([['lend me some wheels']]);
  });

  it('an endpoint that fails is said, not thrown, and left alone for a while', async () => {
    const s = await server();
    let t = 1_000_000;
    const { sem } = await service(s, { now: () => t });
    s.mode = 'fail';
    const near = await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near).toEqual({ used: false, reason: expect.stringMatching(/^embeddings: the endpoint answered 500/) as unknown });
    expect(JSON.stringify(near)).not.toContain(KEY);
    const asked = s.requests.length;
    s.mode = 'ok';
    expect((await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 })).used).toBe(false);
    expect(s.requests.length).toBe(asked);
    t += FAILURE_PAUSE_MS;
    expect((await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 })).used).toBe(true);
  });

  it('a late endpoint: the search answers why when its time limit comes, with the progress of the tools being embedded', async () => {
    const s = await server();
    const { sem } = await service(s, { maxWaitMs: 150 });
    s.mode = 'hang';
    const near = await sem.nearest('lend me some wheels', docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near).toEqual({ used: false, reason: 'the embeddings did not come within 0.15 s (the tools are still being embedded: 0 of 6)' });
  });

  it('off: nothing is sent', async () => {
    const s = await server();
    const { sem, off } = await service(s);
    off();
    expect(sem.enabled()).toBe(false);
    expect(await sem.nearest('x', docsOf(TRAVEL), { timeLimitMs: 1_000 })).toEqual({ used: false, reason: 'semantic search is off' });
    sem.warm(docsOf(TRAVEL));
    expect(s.requests).toEqual([]);
  });

  it('Test: one sentence, its dimensions; or the error', async () => {
    const s = await server();
    const { sem } = await service(s);
    const target: SemanticTarget = { providerId: 'p1', model: 'bag-of-words', connection: { baseUrl: s.baseUrl, key: () => KEY } };
    expect(await sem.test(target)).toMatchObject({ ok: true, dimensions: DIMS, message: expect.stringMatching(/^64 dimensions in \d+ ms$/) as unknown });
    s.mode = 'fail';
    expect(await sem.test(target)).toEqual({ ok: false, message: expect.stringMatching(/^embeddings: the endpoint answered 500/) as unknown });
  });
});

describe('fusion with the word ranking', () => {
  it('the words\' list is the floor; a tool found by meaning alone comes in', () => {
    expect(fuse(['a', 'b', 'c'], [], 3)).toEqual(['a', 'b', 'c']);
    expect(fuse(['a', 'b', 'c'], ['c', 'x'], 2)).toEqual(['c', 'a']);
    expect(fuse(['a', 'b'], ['x'], 3)).toEqual(['a', 'x', 'b']);
    expect(nearest(Float32Array.from([1, 0]), [{ key: 'same', v: Float32Array.from([2, 0]) }, { key: 'away', v: Float32Array.from([-1, 0]) }], 5)).toEqual([{ key: 'same', similarity: 1 }]);
  });

  it('the word ranking misses the car tool for "lend me some wheels"; fused with meaning, it is first', async () => {
    const s = await server();
    const dir = await tempDir();
    const target: SemanticTarget = { providerId: 'p1', model: 'bag-of-words', connection: { baseUrl: s.baseUrl, key: () => undefined } };
    const sem = new SemanticSearch({ target: () => target, cache: () => VectorCache.open({ dataDir: dir }) });
    const ranker = new ToolRanker(TRAVEL.map(([slug, d]) => searchableTool(slug, tool(slug, d))));
    const query = 'lend me some wheels';
    const lexical = ranker.rank(query, ranker.size).map((h) => h.key);
    expect(lexical).not.toContain('reserve-car');
    const near = await sem.nearest(query, docsOf(TRAVEL), { timeLimitMs: 5_000 });
    expect(near.used && fuse(lexical, near.keys, 3)[0]).toBe('reserve-car');
  });
});
