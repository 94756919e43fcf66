import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deletionNeighbourhood, maxEdits, osaDistance, termDeletionDepth } from './fuzzy';

/** Reference OSA distance, no cut-off. */
function refOsa(a: string[], b: string[]): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

const small = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'é', '😀'), maxLength: 10 });

describe('fuzzy', () => {
  it('measures typos as OSA distance', () => {
    const d = (a: string, b: string, max = 5) => osaDistance(Array.from(a), Array.from(b), max);
    expect(d('raedfile', 'readfile')).toBe(1); // swap
    expect(d('readfile', 'readfile')).toBe(0);
    expect(d('redfile', 'readfile')).toBe(1);
    expect(d('rxxdfile', 'readfile')).toBe(2);
    expect(d('abcdef', 'ghijkl', 2)).toBe(3); // cut off at max + 1
  });

  it('agrees with the reference distance (capped)', () => {
    fc.assert(
      fc.property(small, small, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const x = Array.from(a);
        const y = Array.from(b);
        expect(osaDistance(x, y, max)).toBe(Math.min(refOsa(x, y), max + 1));
      }),
      { numRuns: 500 },
    );
  });

  it('allows 1 edit for 3..6 characters and 2 from 7', () => {
    expect([2, 3, 6, 7, 20, 21].map(maxEdits)).toEqual([0, 1, 1, 2, 2, 0]);
  });

  it('finds every term within the allowed edits through shared deletions', () => {
    fc.assert(
      fc.property(small, small, (q, term) => {
        const qc = Array.from(q);
        const tc = Array.from(term);
        const k = maxEdits(qc.length);
        if (k === 0) return;
        const dist = refOsa(qc, tc);
        if (dist > k) return;
        const depth = termDeletionDepth(tc.length);
        expect(depth).toBeGreaterThanOrEqual(0);
        const termDels = deletionNeighbourhood(term, depth);
        const shared = [...deletionNeighbourhood(q, k).keys()].some((del) => termDels.has(del) && termDels.get(del)! <= k);
        expect(shared).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('does not repeat deletions of doubled letters', () => {
    expect([...deletionNeighbourhood('aab', 1).keys()].sort()).toEqual(['aa', 'aab', 'ab']);
  });
});
