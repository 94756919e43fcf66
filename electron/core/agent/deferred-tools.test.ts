import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SEARCH_SETTINGS, PROVIDER_MAX_TOOLS, type ToolSearchSettings } from '../../../shared/model/tool-search';
import type { ToolView } from '../../../shared/model/tool';
import type { ToolCandidate } from '../routing/directive-runner';
import { TOOL_SEARCH_NAME, deferralReason, searchReason } from './deferred-tools';
import { toolsForModel } from './tools-for-model';

let n = 0;
function tool(bundle: string, slug: string, description = `does ${slug}`): ToolCandidate {
  n++;
  return {
    bundleSlug: bundle,
    tool: {
      id: `id-${n}`,
      bundleId: `b-${bundle}`,
      slug,
      version: '1',
      displayName: slug,
      description,
      tags: [],
      type: 'local',
      argSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: {},
      local: { functionId: 'x.y' },
      isEnabled: true,
      isBuiltIn: false,
      createdAt: '2026-01-01T00:00:00Z',
      modifiedAt: '2026-01-01T00:00:00Z',
    } as ToolView,
  };
}
const many = (count: number) => Array.from({ length: count }, (_, i) => tool('many', `tool-${i}`, `tool number ${i}`));
const settings = (patch: Partial<ToolSearchSettings> = {}) => ({ ...DEFAULT_TOOL_SEARCH_SETTINGS, ...patch });
const set = (usable: ToolCandidate[], patch: Partial<ToolSearchSettings> = {}, extra: { directiveTools?: { toolId: string }[]; contextTokens?: number } = {}) =>
  toolsForModel({ usable, modelRouting: [], toolSearch: { settings: settings(patch), contextTokens: extra.contextTokens ?? 128_000 }, ...(extra.directiveTools ? { directiveTools: extra.directiveTools } : {}) });

describe('when a turn searches', () => {
  it('past the count, past the share of the window, always, never — and past the provider\'s limit whatever Settings say', () => {
    expect(set(many(30)).deferred).toBeUndefined();
    expect(set(many(31)).deferred?.reason).toBe(searchReason.count(31, 30));
    expect(set(many(5), { mode: 'always' }).deferred?.reason).toBe(searchReason.always(5));
    expect(set(many(100), { mode: 'off' }).deferred).toBeUndefined();
    // 126 tools and the two model-only ones are 128: they all fit; one more does not.
    expect(set(many(PROVIDER_MAX_TOOLS - 2), { mode: 'off' }).deferred).toBeUndefined();
    expect(set(many(PROVIDER_MAX_TOOLS - 1), { mode: 'off' }).deferred?.reason).toBe(searchReason.forced(PROVIDER_MAX_TOOLS - 1));
    const small = set(many(10), { maxSchemaPercent: 1 }, { contextTokens: 1000 });
    expect(small.deferred?.reason).toMatch(/^the tools' definitions take about \d+ tokens, more than 1% of the model's 1000-token window/);
    expect(deferralReason({ tools: [], settings: settings({ mode: 'always' }), contextTokens: 1000, others: 2 })).toBeUndefined();
  });

  it('with search on, specs() lists the model-only tools, tool_search and the pinned tools; byName still knows every tool', () => {
    const usable = [...many(40), tool('web', 'fetch'), tool('text', 'fetch')];
    const s = set(usable, { pinned: ['web/fetch', 'tool-3'] }, { directiveTools: [{ toolId: usable[7]!.tool.id }] });
    expect(s.specs().map((x) => x.name).sort()).toEqual(['plan_next_steps', 'stop_and_think', TOOL_SEARCH_NAME, 'tool-3', 'tool-7', 'web__fetch'].sort());
    expect(s.byName('tool-20')?.tool?.slug).toBe('tool-20');
    expect(s.deferred!.visible('tool-20')).toBe(false);
    expect(s.byName(TOOL_SEARCH_NAME)!.spec.description).toContain(`${42 - 3} more tools are available`);
  });

  it('a registry tool named tool_search keeps its place under another name', () => {
    const s = set([...many(40), tool('x', 'tool_search')]);
    expect(s.byName(TOOL_SEARCH_NAME)!.modelOnly).toBeDefined();
    expect(s.names()).toContain('tool_search_2');
    expect(s.byName('tool_search_2')!.tool!.slug).toBe('tool_search');
  });

  it('a search loads what it finds once; tools already given are listed, not loaded again', async () => {
    const s = set([...many(40), tool('sms', 'send-sms', 'Send a text message to a phone number')], { pinned: ['tool-13'] });
    await s.deferred!.prepare();
    const first = s.deferred!.search({ query: 'text a customer', limit: 1 });
    expect(first).toMatchObject({ loaded: ['send-sms'], tools: [{ name: 'send-sms', description: 'Send a text message to a phone number', arguments: 'text: string' }] });
    expect(s.deferred!.search({ query: 'send a text message', limit: 1 }).loaded).toEqual([]);
    expect(s.deferred!.search({ query: 'tool number 13', limit: 1 })).toMatchObject({ loaded: [], tools: [{ name: 'tool-13' }] });
    expect(s.deferred!.search({ query: 'zzz' })).toMatchObject({ loaded: [], tools: [], note: 'no tool matches: try other words, or describe the task differently' });
    expect(s.specs().map((x) => x.name)).toContain('send-sms');
  });
});
