/**
 * Where the `+` palette's query sits in the composer: a `+` at the start of the text or
 * after whitespace, up to the next whitespace, with the caret inside it. Pure, so the
 * composer and its tests agree on every edge.
 */
export interface PaletteTrigger {
  /** Offset of the `+`. */
  start: number;
  /** Offset just past the token (the next whitespace or the end). */
  end: number;
  /** The text after the `+`: what the palette searches for. */
  query: string;
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/** The trigger the caret is in, or null. The caret must be after the `+` (not before it). */
export function findPaletteTrigger(text: string, caret: number): PaletteTrigger | null {
  const at = Math.max(0, Math.min(caret, text.length));
  let start = at;
  while (start > 0 && !isSpace(text[start - 1])) start--;
  if (start === at || text[start] !== '+') return null;
  let end = at;
  while (end < text.length && !isSpace(text[end])) end++;
  return { start, end, query: text.slice(start + 1, end) };
}

/** The text without the trigger token, and where the caret goes; one space around it is dropped too. */
export function removeTrigger(text: string, trigger: Pick<PaletteTrigger, 'start' | 'end'>): { text: string; caret: number } {
  let before = text.slice(0, trigger.start);
  let after = text.slice(trigger.end);
  if (/[ \t]$/.test(before) && (after === '' || /^\s/.test(after))) before = before.slice(0, -1);
  else if ((before === '' || before.endsWith('\n')) && /^[ \t]/.test(after)) after = after.slice(1);
  return { text: before + after, caret: before.length };
}

/**
 * Finds the trigger again when the run ends: where it was if the same token is still there,
 * else the one around the caret; null when the user removed it.
 */
export function locateTrigger(text: string, caret: number, was: PaletteTrigger): PaletteTrigger | null {
  const token = `+${was.query}`;
  if (text.slice(was.start, was.end) === token) {
    const again = findPaletteTrigger(text, was.start + 1);
    if (again && again.start === was.start && again.end === was.end) return again;
  }
  return findPaletteTrigger(text, caret);
}

/** Ctrl/Cmd+K: puts a `+` at the caret (after a space when needed) so the palette opens there. */
export function insertTrigger(text: string, selStart: number, selEnd: number): { text: string; caret: number } {
  const before = text.slice(0, selStart);
  const after = text.slice(selEnd);
  const plus = before === '' || isSpace(before[before.length - 1]) ? '+' : ' +';
  const gap = after !== '' && !isSpace(after[0]) ? ' ' : '';
  return { text: before + plus + gap + after, caret: before.length + plus.length };
}
