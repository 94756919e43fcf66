import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SEARCH_SETTINGS, ToolSearchSettingsSchema } from '../../../shared/model/tool-search';
import { fromToolSearchDraft, toToolSearchDraft, toolSearchFieldOf } from './tool-search-draft';

describe('Settings → Tool search as typed', () => {
  it('round-trips, pinned tools one a line (blank lines and spaces dropped)', () => {
    const s = { ...DEFAULT_TOOL_SEARCH_SETTINGS, pinned: ['echo', 'web/fetch'] };
    expect(fromToolSearchDraft(toToolSearchDraft(s))).toEqual(s);
    expect(fromToolSearchDraft({ ...toToolSearchDraft(s), pinned: ' echo \n\n web/fetch\n' }).pinned).toEqual(['echo', 'web/fetch']);
  });

  it('a box without a number is refused by the schema, naming the field', () => {
    const bad = fromToolSearchDraft({ ...toToolSearchDraft(DEFAULT_TOOL_SEARCH_SETTINGS), maxTools: ' ', results: '50' });
    const issues = ToolSearchSettingsSchema.safeParse(bad).error!.issues.map((i) => i.path.join('.'));
    expect(issues.sort()).toEqual(['maxTools', 'results']);
    expect(toolSearchFieldOf('toolSearch.maxTools')).toBe('maxTools');
    expect(toolSearchFieldOf('toolSearch/pinned/2')).toBe('pinned');
    expect(toolSearchFieldOf('toolOutputs.maxResultBytes')).toBeNull();
    expect(toolSearchFieldOf('toolSearch.maxLoadedTokens')).toBe('maxLoadedTokens');
    expect(toolSearchFieldOf('toolSearch.semantic.model')).toBe('semanticModel');
  });

  it('semantic search round-trips; on without a provider or model is refused on the model box', () => {
    const s = { ...DEFAULT_TOOL_SEARCH_SETTINGS, maxLoadedTokens: 20_000, semantic: { enabled: true, providerId: 'p1', model: 'nomic-embed-text' } };
    expect(fromToolSearchDraft(toToolSearchDraft(s))).toEqual(s);
    const on = fromToolSearchDraft({ ...toToolSearchDraft(DEFAULT_TOOL_SEARCH_SETTINGS), semanticEnabled: true, semanticModel: '  ' });
    const issues = ToolSearchSettingsSchema.safeParse(on).error!.issues;
    expect(issues.map((i) => [i.path.join('.'), i.message])).toEqual([['semantic.model', 'choose a provider and a model to turn semantic search on']]);
    expect(toolSearchFieldOf(`toolSearch.${issues[0]!.path.join('.')}`)).toBe('semanticModel');
  });

  it('settings written before the budget and semantic search read with their defaults', () => {
    const { maxLoadedTokens: _m, semantic: _s, ...old } = DEFAULT_TOOL_SEARCH_SETTINGS;
    expect(ToolSearchSettingsSchema.parse(old)).toEqual(DEFAULT_TOOL_SEARCH_SETTINGS);
  });
});
