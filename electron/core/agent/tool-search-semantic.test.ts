/**
 * Semantic search in a turn's tool_search (docs/tool-search.md, "Semantic search"), against a
 * local embeddings endpoint (../tool-search/testing/fake-embeddings.ts): a tool the words miss
 * is found by its meaning, loaded and called; an endpoint that fails or is late leaves the
 * search by words, said on the card, and the turn goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { call, harness, type Harness } from '../testing/agent-harness';
import { SemanticSearch, VectorCache, type SemanticTarget } from '../tool-search';
import { fakeEmbeddings, type FakeEmbeddings } from '../tool-search/testing/fake-embeddings';
import { TOOL_SEARCH_NAME, type ToolSearchValue } from './deferred-tools';

const tempDir = useTempDirs();
const open: Harness[] = [];
const servers: FakeEmbeddings[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const s of servers.splice(0)) await s.close();
});

/** Travel tools, and enough others that the turn searches. */
const TOOLS: [string, string][] = [
  ['reserve-car', 'Reserve a car at a pick-up location'],
  ['search-flights', 'Search flights between two airports'],
  ['find-hotel', 'Find a hotel room for given dates'],
  ['convert-currency', 'Convert an amount between currencies'],
  ['get-weather', 'Weather forecast for a city'],
  ['translate-text', 'Translate text into another language'],
  ...Array.from({ length: 30 }, (_, i): [string, string] => [`office-${i}`, `Office tool number ${i} for documents and spreadsheets`]),
];

async function setup(opts: { maxWaitMs?: number } = {}) {
  const s = await fakeEmbeddings();
  servers.push(s);
  const dir = await tempDir();
  const target: SemanticTarget = { providerId: 'p-embed', model: 'bag-of-words', connection: { baseUrl: s.baseUrl, key: () => undefined } };
  const semantic = new SemanticSearch({ target: () => target, cache: () => VectorCache.open({ dataDir: dir }), ...opts });
  const h = await harness(dir, { semantic });
  open.push(h);
  for (const [slug, description] of TOOLS) {
    await h.store.putTool(h.bundleId, slug, '1', { displayName: slug, description, tags: [], type: 'local', argSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 20 } } }, outputSchema: { type: 'object' }, local: { functionId: 'test.echo' }, isEnabled: true });
  }
  const c = h.conversations.create(undefined, { providerId: 'p1', model: 'm1' });
  const send = async (text: string) => {
    await h.chat.send(c.id, text);
    await h.loop.settled(c.id);
  };
  const cards = () => h.conversations.messages(c.id).filter((m) => m.tool && m.tool.status !== 'running').map((m) => m.tool!);
  return { h, s, send, cards };
}

describe('semantic search in a turn', () => {
  it('finds by meaning a tool the words miss; it is loaded and called', async () => {
    const { h, s, send, cards } = await setup();
    h.models.script = [
      { toolCalls: [call(TOOL_SEARCH_NAME, { query: 'lend me some wheels', limit: 3 })] },
      { toolCalls: [call('reserve-car', { text: 'Lisbon airport' })] },
      { text: 'reserved' },
    ];
    await send('I need wheels in Lisbon');
    const [search, car] = cards();
    const value = search!.value as ToolSearchValue;
    expect(value.semantic).toEqual({ used: true });
    expect(value.tools[0]!.name).toBe('reserve-car');
    expect(value.loaded).toContain('reserve-car');
    expect(h.models.requests[1]!.tools.map((t) => t.name)).toContain('reserve-car');
    expect(car).toMatchObject({ slug: 'reserve-car', status: 'ok' });
    // What went to the endpoint: the tools' texts and the model's query, nothing of the conversation.
    const sent = s.requests.flatMap((r) => r.input);
    expect(sent).toContain('lend me some wheels');
    expect(sent.some((t) => t.includes('I need wheels'))).toBe(false);
  });

  it('an endpoint answering 500: the search answers by words and says so; the turn goes on', async () => {
    const { h, s, send, cards } = await setup();
    s.mode = 'fail';
    h.models.script = [{ toolCalls: [call(TOOL_SEARCH_NAME, { query: 'weather forecast for Paris' })] }, { toolCalls: [call('get-weather', { text: 'Paris' })] }, { text: 'sunny' }];
    await send('weather?');
    const [search, weather] = cards();
    expect(search!.status).toBe('ok');
    const value = search!.value as ToolSearchValue;
    expect(value.semantic).toEqual({ used: false, note: expect.stringMatching(/^embeddings: the endpoint answered 500: .*: ranked by words only$/) as unknown });
    expect(value.tools[0]!.name).toBe('get-weather');
    expect(weather).toMatchObject({ slug: 'get-weather', status: 'ok' });
  });

  it('an endpoint that does not answer in time: the search answers by words and says so', async () => {
    const { h, s, send, cards } = await setup({ maxWaitMs: 200 });
    s.mode = 'hang';
    h.models.script = [{ toolCalls: [call(TOOL_SEARCH_NAME, { query: 'translate text into French' })] }, { text: 'ok' }];
    await send('translate');
    const value = cards()[0]!.value as ToolSearchValue;
    expect(value.semantic).toEqual({ used: false, note: expect.stringMatching(/^the embeddings did not come within 0.2 s.*: ranked by words only$/) as unknown });
    expect(value.tools[0]!.name).toBe('translate-text');
    expect(h.conversations.messages(h.conversations.list()[0]!.id).at(-1)).toMatchObject({ role: 'assistant', text: 'ok' });
  });
});
