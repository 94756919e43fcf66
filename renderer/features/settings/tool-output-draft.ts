/**
 * Settings → Tool outputs as typed: numbers as the text in their boxes (the size cap in KiB),
 * and back. A box that holds no number becomes NaN, so the core refuses it naming the field
 * and its bounds; nothing typed is lost.
 */
import type { OversizedChoice, ToolOutputSettings } from '../../../shared/model/settings';

export interface ToolOutputDraft {
  baseDir: string;
  maxResultKiB: string;
  contextTokens: string;
  maxOutputTokens: string;
  maxChunksForFullMode: string;
  avgLineBytesForFullMode: string;
  overlapPercent: string;
  perTool: Record<string, OversizedChoice>;
}

export function toToolOutputDraft(s: ToolOutputSettings): ToolOutputDraft {
  return {
    baseDir: s.baseDir,
    maxResultKiB: String(s.maxResultBytes / 1024),
    contextTokens: String(s.defaultWindow.contextTokens),
    maxOutputTokens: String(s.defaultWindow.maxOutputTokens),
    maxChunksForFullMode: String(s.maxChunksForFullMode),
    avgLineBytesForFullMode: String(s.avgLineBytesForFullMode),
    overlapPercent: String(s.overlapPercent),
    perTool: { ...s.perTool },
  };
}

const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

/** The settings to save: the draft over what is saved (models per window are kept as they are). */
export function fromToolOutputDraft(d: ToolOutputDraft, saved: ToolOutputSettings): ToolOutputSettings {
  return {
    ...saved,
    baseDir: d.baseDir.trim(),
    maxResultBytes: Math.round(num(d.maxResultKiB) * 1024),
    defaultWindow: { contextTokens: num(d.contextTokens), maxOutputTokens: num(d.maxOutputTokens) },
    maxChunksForFullMode: num(d.maxChunksForFullMode),
    avgLineBytesForFullMode: num(d.avgLineBytesForFullMode),
    overlapPercent: num(d.overlapPercent),
    perTool: { ...d.perTool },
  };
}

/** The settings field a core refusal names (`toolOutputs.defaultWindow.contextTokens`), as the draft's box. */
export function draftFieldOf(path: string): keyof ToolOutputDraft | null {
  const p = path.replace(/^toolOutputs[./]/, '').replace(/\//g, '.');
  if (p.startsWith('maxResultBytes')) return 'maxResultKiB';
  if (p.startsWith('defaultWindow.contextTokens')) return 'contextTokens';
  if (p.startsWith('defaultWindow.maxOutputTokens')) return 'maxOutputTokens';
  for (const k of ['baseDir', 'maxChunksForFullMode', 'avgLineBytesForFullMode', 'overlapPercent', 'perTool'] as const) if (p.startsWith(k)) return k;
  return null;
}
