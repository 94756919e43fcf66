import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareVersions } from './versions';

const sorted = (vs: string[]) => [...vs].sort(compareVersions);

describe('compareVersions', () => {
  it('puts a pre-release below its release', () => {
    expect(compareVersions('1.0.0-beta', '1.0.0')).toBeLessThan(0);
    expect(compareVersions('2.0.0', '2.0.0-rc1')).toBeGreaterThan(0);
    expect(compareVersions('2.0.0-rc1', '1.9.9')).toBeGreaterThan(0);
  });

  it("orders SemVer's own example list", () => {
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    expect(sorted([...order].reverse())).toEqual(order);
  });

  it('compares release parts as numbers, of any length', () => {
    expect(sorted(['1.10.0', '1.9.0', '1.2.0', '10.0.0', '2'])).toEqual(['1.2.0', '1.9.0', '1.10.0', '2', '10.0.0']);
    expect(compareVersions('1.99999999999999999999', '1.100000000000000000000')).toBeLessThan(0);
    expect(compareVersions('1.0', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.0+build.2', '1.0.0+build.1')).toBe(0);
    expect(compareVersions('v2', '1.5')).toBeGreaterThan(0);
  });

  it('orders labels that are not SemVer without throwing', () => {
    expect(sorted(['b', 'a', '2024-06-01', '2024-05-31'])).toEqual(['2024-05-31', '2024-06-01', 'a', 'b']);
  });

  it('is a consistent order (antisymmetric and transitive) over arbitrary labels', () => {
    const label = fc.stringMatching(/^[0-9a-z]{1,3}(\.[0-9a-z]{1,3}){0,2}(-[0-9a-z]{1,3}(\.[0-9a-z]{1,3})?)?$/);
    fc.assert(
      fc.property(label, label, label, (a, b, c) => {
        expect(Math.sign(compareVersions(a, b))).toBe(-Math.sign(compareVersions(b, a)) || 0);
        if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0) expect(compareVersions(a, c)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });
});
