/** How Inspect shows a buffer besides its line viewer: the whole text wrapped, or JSON indented. */

/**
 * Buffers up to this many characters can be shown whole (wrapped or formatted) in one read;
 * larger ones stay in the line viewer. The core's limit for one buffers.read (BUFFER_READ_MAX_CHARS).
 */
export const WHOLE_VIEW_MAX_CHARS = 1024 * 1024;

export type TextViewMode = 'lines' | 'wrapped' | 'json';

export type WholeView = { ok: true; text: string } | { ok: false; reason: string };

/** The text as the mode shows it; JSON that does not parse says where, and the caller falls back. */
export function wholeView(text: string, mode: Exclude<TextViewMode, 'lines'>): WholeView {
  if (mode === 'wrapped') return { ok: true, text };
  try {
    return { ok: true, text: JSON.stringify(JSON.parse(text), null, 2) };
  } catch (e) {
    return { ok: false, reason: `not JSON: ${(e as Error).message}` };
  }
}

/** Whether a buffer's text looks like JSON (worth offering the formatted view first). */
export function looksLikeJson(firstChars: string): boolean {
  return /^\s*[[{]/.test(firstChars);
}
