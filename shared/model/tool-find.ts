/**
 * The palette's two searches, chosen by the shape of what is typed: one word (or a name being
 * typed, `+readf`) goes to the prefix index ('tools.search': prefix > word > fuzzy, paged); two
 * words or more are a sentence ("send a text message to a customer") and go to 'tools.find',
 * which ranks the enabled tools by what they say of themselves (electron/core/tool-search)
 * after the tools whose name starts with the text. Shared, so the palette, the core and their
 * tests apply one rule.
 */

/** A sentence longer than this is refused (the ranking reads a need, not a document). */
export const TOOL_FIND_MAX_QUERY = 1000;
/** The most tools one 'tools.find' answers. */
export const TOOL_FIND_MAX_RESULTS = 50;
export const TOOL_FIND_DEFAULT_RESULTS = 20;

/** The words of a palette query: what lies between blanks, a leading `+` (the palette's trigger) left out. */
export function queryWords(q: string): string[] {
  return q
    .replace(/^[\s+]+/u, '')
    .split(/\s+/u)
    .filter((w) => w !== '');
}

/** Whether the query is a sentence (two words or more) rather than a name or its start. */
export function isSentenceQuery(q: string): boolean {
  return queryWords(q).length >= 2;
}
