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
  });
});
