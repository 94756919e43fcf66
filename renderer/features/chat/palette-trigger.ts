/**
 * Where the `+` palette's query sits in the composer: a `+` at the start of a line or after a
 * blank, then what follows it on that line up to the caret (through the end of the word the
 * caret is in). Blanks do not close it, so a need can be typed as a sentence ("+send a text to
 * a customer"); a line break, Escape, a pick, or the caret moving before the `+` does. Two
 * exceptions keep plain text plain: a `+` followed by a blank (`1 + 2`) is a trigger only while
 * the caret is right after it, and one followed by anything but a letter (`+1`, `+15550100`,
 * `x += 1`, `++i`, `+/-`) only while the caret is in its first word, as a name. Pure, so the composer and its tests agree on every edge.
 */
export interface PaletteTrigger {
  /** Offset of the `+`. */
  start: number;
  /** Offset just past the query (the end of the word the caret is in). */
  end: number;
  /** The text after the `+`: what the palette searches for. */
  query: string;
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);
const isLineBreak = (ch: string | undefined) => ch === '\n' || ch === '\r';

/** Whether the `+` at `plus` opens the palette for a caret at `at` (see the exceptions above). */
function opens(text: string, plus: number, at: number): boolean {
  const next = text[plus + 1];
  if (plus + 1 === at || next === undefined) return true;
  if (isSpace(next)) return false;
  // Not a letter (`+1`, `+=`, `++i`, `+/-`): a tool name at most, so only while the caret is in that first word.
  if (!/[\p{L}_]/u.test(next)) return !/\s/.test(text.slice(plus + 1, at));
  return true;
}

/** The trigger the caret is in, or null. The caret must be after the `+` (not before it), on its line. */
export function findPaletteTrigger(text: string, caret: number): PaletteTrigger | null {
  const at = Math.max(0, Math.min(caret, text.length));
  for (let plus = at - 1; plus >= 0; plus--) {
    const ch = text[plus];
    if (isLineBreak(ch)) return null;
    if (ch !== '+' || (plus > 0 && !isSpace(text[plus - 1])) || !opens(text, plus, at)) continue;
    let end = at;
    while (end < text.length && !isSpace(text[end])) end++;
    return { start: plus, end, query: text.slice(plus + 1, end) };
  }
  return null;
}

/** The text without the `+query`, and where the caret goes; one space around it is dropped too. */
export function removeTrigger(text: string, trigger: Pick<PaletteTrigger, 'start' | 'end'>): { text: string; caret: number } {
  let before = text.slice(0, trigger.start);
  let after = text.slice(trigger.end);
  if (/[ \t]$/.test(before) && (after === '' || /^\s/.test(after))) before = before.slice(0, -1);
  else if ((before === '' || before.endsWith('\n')) && /^[ \t]/.test(after)) after = after.slice(1);
  return { text: before + after, caret: before.length };
}

/**
 * Finds the trigger again when the run ends: where it was if the same `+query` is still there,
 * else the one around the caret; null when the user removed it.
 */
export function locateTrigger(text: string, caret: number, was: PaletteTrigger): PaletteTrigger | null {
  const token = `+${was.query}`;
  if (text.slice(was.start, was.end) === token) {
    const again = findPaletteTrigger(text, was.end);
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
