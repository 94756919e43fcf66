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
  maxLoadedTokens: string;
  /** One a line. */
  pinned: string;
  semanticEnabled: boolean;
  semanticProviderId: string;
  semanticModel: string;
}

export function toToolSearchDraft(s: ToolSearchSettings): ToolSearchDraft {
  return {
    mode: s.mode,
    maxTools: String(s.maxTools),
    maxSchemaPercent: String(s.maxSchemaPercent),
    results: String(s.results),
    maxLoadedTokens: String(s.maxLoadedTokens),
    pinned: s.pinned.join('\n'),
    semanticEnabled: s.semantic.enabled,
    semanticProviderId: s.semantic.providerId,
    semanticModel: s.semantic.model,
  };
}

const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

export function fromToolSearchDraft(d: ToolSearchDraft): ToolSearchSettings {
  return {
    mode: d.mode,
    maxTools: num(d.maxTools),
    maxSchemaPercent: num(d.maxSchemaPercent),
    results: num(d.results),
    maxLoadedTokens: num(d.maxLoadedTokens),
    semantic: { enabled: d.semanticEnabled, providerId: d.semanticProviderId, model: d.semanticModel.trim() },
    pinned: d.pinned
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  };
}

const BOXES = ['mode', 'maxTools', 'maxSchemaPercent', 'results', 'maxLoadedTokens', 'pinned'] as const;

/** The draft's box a core refusal names (`toolSearch.maxTools`, `toolSearch/pinned/2`, `toolSearch.semantic.model`). */
export function toolSearchFieldOf(path: string): keyof ToolSearchDraft | null {
  const [field, sub] = path.replace(/^toolSearch[./]/, '').split(/[./]/);
  if (field === 'semantic') return sub === 'providerId' ? 'semanticProviderId' : sub === 'enabled' ? 'semanticEnabled' : 'semanticModel';
  return (BOXES as readonly string[]).includes(field ?? '') ? (field as (typeof BOXES)[number]) : null;
}
