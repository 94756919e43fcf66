/**
 * Cuts the composer's text into runs for the highlight layer: each run carries the kind of
 * the innermost directive span over it (an error span wins) and whether a directive error
 * covers it. The runs together are exactly the text, so the layer lines up with the caret.
 */
import type { HighlightSpan, Span } from '../../../shared/directives/types';

export type HighlightKind = HighlightSpan['kind'];

export interface Segment {
  text: string;
  kind: HighlightKind | null;
  error: boolean;
}

interface Range {
  start: number;
  end: number;
}

function clamp(r: Range, len: number): Range | null {
  const start = Math.max(0, Math.min(r.start, len));
  let end = Math.max(start, Math.min(r.end, len));
  // A zero-width error (a missing `)` at the end of a word) still marks one character.
  if (end === start) end = Math.min(start + 1, len);
  return end > start ? { start, end } : null;
}

export function segmentText(text: string, highlights: readonly HighlightSpan[], errors: readonly Span[] = []): Segment[] {
  const len = text.length;
  const spans = highlights.flatMap((h) => {
    const r = clamp(h, len);
    return r ? [{ ...r, kind: h.kind }] : [];
  });
  const errs = errors.flatMap((e) => {
    const r = clamp(e, len);
    return r ? [r] : [];
  });
  const cuts = new Set<number>([0, len]);
  for (const r of [...spans, ...errs]) {
    cuts.add(r.start);
    cuts.add(r.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!;
    const b = points[i + 1]!;
    let kind: HighlightKind | null = null;
    let width = Infinity;
    for (const s of spans) {
      if (s.start > a || s.end < b) continue;
      if (s.kind === 'error') {
        kind = 'error';
        break;
      }
      if (s.end - s.start <= width) {
        kind = s.kind;
        width = s.end - s.start;
      }
    }
    const error = errs.some((e) => e.start <= a && e.end >= b);
    const last = out[out.length - 1];
    if (last && last.kind === kind && last.error === error) last.text += text.slice(a, b);
    else out.push({ text: text.slice(a, b), kind, error });
  }
  return out;
}
