import { describe, expect, it } from 'vitest';
import { searchableTool, type ToolOfBundle } from '../tool-search';
import { realTools, type RealTool } from '../tool-search/testing/real-registry';
import { TASKS } from '../tool-search/testing/tasks';
import { matchedWords, SentenceSearch, type FindableTool } from './sentence-search';

const registry = realTools();
const keyOf = new Map(registry.map((t) => [t.tool.id, t.key]));
const findable = (tools: readonly RealTool[]): FindableTool[] => tools.map((t) => ({ tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName }));

/** A search over `tools()` that counts the tools it reads. */
function counted(tools: () => FindableTool[]) {
  let analysed = 0;
  const search = new SentenceSearch(tools, (key: string, t: ToolOfBundle) => {
    analysed++;
    return searchableTool(key, t);
  });
  return { search, analysed: () => analysed };
}

const top = async (search: SentenceSearch, need: string, n: number) => (await search.rank(need, n)).map((h) => keyOf.get(h.id));

describe('the sentence search over the realistic registry', () => {
  // A few of tasks.ts's needs, one per service where it finds its tool first today; the palette
  // lists 20, so the top 5 leaves room for changes to the ranking.
  const needs = [
    'jira/add-comment',
    'stripe/get-payouts',
    'twilio/create-call',
    'box/delete-web-links-id',
    'openai/create-upload',
    'discord/delete-message',
    'asana/duplicate-task',
  ].map((tool) => TASKS.find((t) => t.tool === tool)!);

  it.each(needs)('finds $tool for "$need"', async ({ tool, need }) => {
    const { search } = counted(() => findable(registry));
    expect(await top(search, need, 5)).toContain(tool);
  });

  it('says which words of the sentence a tool matched, as typed', async () => {
    const { search } = counted(() => findable(registry));
    const hits = await search.rank('Delete a message in a Discord channel', 5);
    const hit = hits.find((h) => keyOf.get(h.id) === 'discord/delete-message')!;
    expect(hit.words).toEqual(['Delete', 'message', 'Discord', 'channel']);
  });

  it('reads each tool once across searches, and again only when it changed', async () => {
    const { search, analysed } = counted(() => findable(registry));
    await search.rank('Make an outbound phone call with Twilio', 5);
    expect(analysed()).toBe(registry.length);
    await search.rank('List our Twilio call queues', 5);
    expect(analysed()).toBe(registry.length);
    search.changed(registry[0]!.tool.id);
    await search.rank('List our Twilio call queues', 5);
    expect(analysed()).toBe(registry.length + 1);
    // A bundle's change: the same tools, nothing read again, the ranker built again.
    search.changed();
    await search.rank('List our Twilio call queues', 5);
    expect(analysed()).toBe(registry.length + 1);
  });

  it('follows the registry: a tool switched off is not found, a changed one is found by its new words', async () => {
    let tools = registry;
    const { search } = counted(() => findable(tools));
    const call = registry.find((t) => t.key === 'twilio/create-call')!;
    expect(await top(search, 'Make an outbound phone call with Twilio', 5)).toContain('twilio/create-call');

    tools = registry.filter((t) => t !== call);
    search.changed();
    expect(await top(search, 'Make an outbound phone call with Twilio', 20)).not.toContain('twilio/create-call');

    const renamed = { ...call, tool: { ...call.tool, description: 'Rings a zeppelin hangar from the switchboard.' } };
    tools = [...tools, renamed];
    search.changed(call.tool.id);
    expect(await top(search, 'ring the zeppelin hangar', 1)).toEqual(['twilio/create-call']);
  });
});

describe('matchedWords', () => {
  it('maps matched stems, and the expansions of a word, back to the words typed', () => {
    const of = matchedWords('Deleting the Messages now');
    expect(of(['delet', 'messag'])).toEqual(['Deleting', 'Messages']);
    expect(of([])).toEqual([]);
    expect(of(['unrelated'])).toEqual([]);
  });
});

describe('the palette\'s sentence search with semantic search on', () => {
  const stripeCheckout = registry.find((t) => t.key === 'stripe/post-checkout-sessions') ?? registry.find((t) => t.bundleSlug === 'stripe')!;

  it('a tool found by its meaning alone comes in, matching none of the words; off or failing, the words alone rank', async () => {
    const { search } = counted(() => findable(registry));
    const words = await top(search, 'zzqx qqvv', 5);
    expect(words).toEqual([]);
    let answer: { used: true; keys: string[] } | { used: false; reason: string } = { used: true, keys: [stripeCheckout.tool.id] };
    let on = true;
    search.useSemantic({ enabled: () => on, nearest: () => Promise.resolve(answer) });
    const hits = await search.rank('zzqx qqvv', 5);
    expect(hits).toEqual([{ id: stripeCheckout.tool.id, words: [] }]);
    // Fused: the words' first tool is still in the list beside the tool found by meaning.
    const byWords = (await search.rank('Delete a message in a Discord channel', 5)).map((h) => h.id);
    expect(byWords).toContain(stripeCheckout.tool.id);
    expect(byWords.map((id) => keyOf.get(id))).toContain('discord/delete-message');
    answer = { used: false, reason: 'embeddings: the endpoint answered 500' };
    expect(await search.rank('zzqx qqvv', 5)).toEqual([]);
    on = false;
    answer = { used: true, keys: [stripeCheckout.tool.id] };
    expect(await search.rank('zzqx qqvv', 5)).toEqual([]);
  });
});
