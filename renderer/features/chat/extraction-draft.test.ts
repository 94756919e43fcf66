import { describe, expect, it } from 'vitest';
import { ExtractionOverridesSchema } from '../../../shared/model/settings';
import { EXTRACTION_FIELDS, fromExtractionDraft, rangeOf, toExtractionDraft } from './extraction-draft';

describe('the per-conversation extraction draft', () => {
  it('round-trips set fields and leaves empty ones to Settings', () => {
    const d = toExtractionDraft({ maxChunksForFullMode: 3 });
    expect(d).toEqual({ maxChunksForFullMode: '3', avgLineBytesForFullMode: '', overlapPercent: '' });
    expect(fromExtractionDraft({ ...d, overlapPercent: ' 0 ' })).toEqual({ ok: true, value: { maxChunksForFullMode: 3, overlapPercent: 0 } });
  });

  it('nothing set answers null: back to Settings', () => {
    expect(fromExtractionDraft(toExtractionDraft(undefined))).toEqual({ ok: true, value: null });
  });

  it('says which field is wrong and why', () => {
    const r = fromExtractionDraft({ maxChunksForFullMode: '0', avgLineBytesForFullMode: '1.5', overlapPercent: '51' });
    expect(r).toEqual({
      ok: false,
      errors: { maxChunksForFullMode: 'between 1 and 1,000', avgLineBytesForFullMode: 'a whole number', overlapPercent: 'between 0 and 50' },
    });
  });

  it("its ranges are the contract's: the bounds pass, one past them does not", () => {
    for (const k of EXTRACTION_FIELDS) {
      const [min, max] = rangeOf(k).replace(/,/g, '').match(/\d+/g)!.map(Number) as [number, number];
      expect(ExtractionOverridesSchema.safeParse({ [k]: min }).success).toBe(true);
      expect(ExtractionOverridesSchema.safeParse({ [k]: max }).success).toBe(true);
      expect(ExtractionOverridesSchema.safeParse({ [k]: min - 1 }).success).toBe(false);
      expect(ExtractionOverridesSchema.safeParse({ [k]: max + 1 }).success).toBe(false);
    }
  });
});
