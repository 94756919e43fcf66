/**
 * Settings → Tool search as typed: numbers as the text in their boxes, pinned tools one a line,
 * and back. A box that holds no number becomes NaN, so the core refuses it naming the field
 * and its bounds; nothing typed is lost.
 */
import type { ToolSearchSettings } from '../../../shared/model/tool-search';

export interface ToolSearchDraft {
  mode: ToolSearchSettings['mode'];
  maxTools: string;
  maxSchemaPercent: string;
  results: string;
  /** One a line. */
  pinned: string;
}

export function toToolSearchDraft(s: ToolSearchSettings): ToolSearchDraft {
  return { mode: s.mode, maxTools: String(s.maxTools), maxSchemaPercent: String(s.maxSchemaPercent), results: String(s.results), pinned: s.pinned.join('\n') };
}

const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

export function fromToolSearchDraft(d: ToolSearchDraft): ToolSearchSettings {
  return {
    mode: d.mode,
    maxTools: num(d.maxTools),
    maxSchemaPercent: num(d.maxSchemaPercent),
    results: num(d.results),
    pinned: d.pinned
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  };
}

/** The draft's box a core refusal names (`toolSearch.maxTools`, `toolSearch/pinned/2`). */
export function toolSearchFieldOf(path: string): keyof ToolSearchDraft | null {
  const field = path.replace(/^toolSearch[./]/, '').split(/[./]/)[0];
  return field === 'mode' || field === 'maxTools' || field === 'maxSchemaPercent' || field === 'results' || field === 'pinned' ? field : null;
}
