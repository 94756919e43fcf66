/**
 * The chat's per-conversation extraction thresholds as typed: each field a string, empty
 * meaning "Settings' value". Checked against the contract's schema before it is sent.
 */
import { ExtractionOverridesSchema, type ExtractionOverrides } from '../../../shared/model/settings';

export const EXTRACTION_FIELDS = ['maxChunksForFullMode', 'avgLineBytesForFullMode', 'overlapPercent'] as const;
export type ExtractionField = (typeof EXTRACTION_FIELDS)[number];
export type ExtractionDraft = Record<ExtractionField, string>;

export function toExtractionDraft(o: ExtractionOverrides | undefined): ExtractionDraft {
  const d = {} as ExtractionDraft;
  for (const k of EXTRACTION_FIELDS) d[k] = o?.[k] === undefined ? '' : String(o[k]);
  return d;
}

export type DraftResult = { ok: true; value: ExtractionOverrides | null } | { ok: false; errors: Partial<Record<ExtractionField, string>> };

/** Empty fields are left out; nothing set at all answers null (back to Settings'). */
export function fromExtractionDraft(d: ExtractionDraft): DraftResult {
  const value: Record<string, number> = {};
  const errors: Partial<Record<ExtractionField, string>> = {};
  for (const k of EXTRACTION_FIELDS) {
    const text = d[k].trim();
    if (text === '') continue;
    const n = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n)) {
      errors[k] = 'a whole number';
      continue;
    }
    const one = ExtractionOverridesSchema.shape[k].safeParse(n);
    if (!one.success) errors[k] = rangeOf(k);
    else value[k] = n;
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, value: Object.keys(value).length ? (value as ExtractionOverrides) : null };
}

const RANGES: Record<ExtractionField, [number, number]> = {
  maxChunksForFullMode: [1, 1000],
  avgLineBytesForFullMode: [1, 100_000_000],
  overlapPercent: [0, 50],
};

export function rangeOf(k: ExtractionField): string {
  const [min, max] = RANGES[k];
  return `between ${min} and ${max.toLocaleString('en')}`;
}
