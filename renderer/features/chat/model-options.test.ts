import { describe, expect, it } from 'vitest';
import type { Provider } from '../../../shared/model/provider';
import { countModels, modelGroups, modelValue, parseModelValue } from './model-options';
import { countChosen, isToolChosen, latestVersions, toggleBundle, toggleTool } from './tool-selection';

const provider = (id: string, models: string[]): Provider => ({
  id,
  name: `P ${id}`,
  kind: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:11434/v1',
  hasKey: false,
  models,
  createdAt: '',
  updatedAt: '',
});

describe('model options', () => {
  it('round-trips a model reference through a select value, even with slashes and colons', () => {
    const ref = { providerId: 'p1', model: 'qwen/qwen3:8b' };
    expect(parseModelValue(modelValue(ref))).toEqual(ref);
    expect(parseModelValue('')).toBeNull();
    expect(modelValue(null)).toBe('');
  });

  it('groups models by provider, skips providers with none, and keeps a choice no longer listed', () => {
    const ps = [provider('a', ['m1', 'm2']), provider('b', [])];
    expect(modelGroups(ps).map((g) => [g.providerId, g.options.length])).toEqual([['a', 2]]);
    const groups = modelGroups(ps, { providerId: 'b', model: 'gone' });
    expect(groups.at(-1)?.options[0]).toMatchObject({ missing: true, providerName: 'P b' });
    expect(modelGroups(ps, { providerId: 'a', model: 'm1' })).toHaveLength(1);
    expect(countModels(ps)).toBe(2);
  });
});

describe('tool selection', () => {
  const tools = [
    { id: 't1', bundleId: 'b1' },
    { id: 't2', bundleId: 'b1' },
    { id: 't3', bundleId: 'b2' },
  ];
  it('null allows every tool; a choice allows its bundles and tools', () => {
    expect(countChosen(null, tools)).toBe(3);
    let sel = toggleBundle({ bundleIds: [], toolIds: [] }, 'b1', true);
    expect(countChosen(sel, tools)).toBe(2);
    sel = toggleTool(sel, 't3', true);
    expect(isToolChosen(sel, tools[2]!)).toBe(true);
    sel = toggleBundle(toggleBundle(sel, 'b1', true), 'b1', false);
    expect(sel).toEqual({ bundleIds: [], toolIds: ['t3'] });
  });
});

describe('latestVersions', () => {
  it('keeps the highest version of each bundle and slug, in list order', () => {
    const t = (id: string, bundleId: string, slug: string, version: string) => ({ id, bundleId, slug, version });
    const list = [t('a1', 'b', 'calc', '1'), t('x', 'b', 'other', '1'), t('a10', 'b', 'calc', '10'), t('a2', 'b', 'calc', '2'), t('c1', 'c', 'calc', '1')];
    expect(latestVersions(list).map((x) => x.id)).toEqual(['x', 'a10', 'c1']);
  });
});
