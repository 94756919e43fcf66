import { describe, expect, it } from 'vitest';
import { nextActive, versionMarks } from './palette-rows';

const t = (id: string, slug: string, version: string, bundleId = 'b1') => ({ id, bundleId, slug, version });

describe('versionMarks', () => {
  it('marks the newest of several versions of one tool, numerically, and leaves single versions unmarked', () => {
    const marks = versionMarks([t('a', 'weather', '1.9.0'), t('b', 'weather', '1.10.0'), t('c', 'other', '1'), t('d', 'weather', '1.9.0', 'b2')]);
    expect(marks.get('b')).toBe('newest');
    expect(marks.get('a')).toBe('older');
    expect(marks.get('c')).toBeNull();
    // Same slug in another bundle is another tool.
    expect(marks.get('d')).toBeNull();
  });
});

describe('nextActive', () => {
  it('moves past the twentieth option and wraps only at the true end', () => {
    expect(nextActive(19, 40, true, false)).toBe(20);
    expect(nextActive(39, 40, true, true)).toBe(39);
    expect(nextActive(39, 40, true, false)).toBe(0);
    expect(nextActive(0, 40, false, false)).toBe(39);
    expect(nextActive(0, 40, false, true)).toBe(0);
    expect(nextActive(0, 0, true, false)).toBe(0);
  });
});
