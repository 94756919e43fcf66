import { describe, expect, it } from 'vitest';
import { freeBundleName, numberedName, numberedSlug } from './bundle-name';

describe('freeBundleName', () => {
  const taken = [
    { slug: 'weather', displayName: 'Weather' },
    { slug: 'weather-2', displayName: 'Something else' },
  ];
  it('keeps a free name, numbers what clashes with the first number free for both', () => {
    expect(freeBundleName({ slug: 'maps', displayName: 'Maps' }, taken)).toEqual({ slug: 'maps', displayName: 'Maps' });
    expect(freeBundleName({ slug: 'weather', displayName: 'Weather' }, taken)).toEqual({ slug: 'weather-3', displayName: 'Weather (3)' });
    // Only the display name clashes (compared trimmed, without case): the slug stays.
    expect(freeBundleName({ slug: 'forecast', displayName: ' weather ' }, taken)).toEqual({ slug: 'forecast', displayName: ' weather (2)' });
    // Only the slug clashes.
    expect(freeBundleName({ slug: 'weather', displayName: 'Forecasts' }, taken)).toEqual({ slug: 'weather-3', displayName: 'Forecasts' });
  });
  it('stays within the slug and display-name limits', () => {
    const long = 'ä'.repeat(64);
    expect([...numberedSlug(long, 12)].length).toBe(64);
    expect(numberedSlug(long, 12).endsWith('-12')).toBe(true);
    expect(numberedName('𝐀'.repeat(64), 2).length).toBeLessThanOrEqual(128);
    expect(numberedName('𝐀'.repeat(64), 2)).toMatch(/^(𝐀)+ \(2\)$/u);
  });
});
