/**
 * The name an MCP client gives itself in `initialize` (clientInfo) is its own claim, and it is
 * shown inside our approval prompt: a hostile one could otherwise write our words there (a bidi
 * override turning text around, line breaks starting a new "paragraph", 20 kB of text pushing
 * the buttons away). It is cleaned once, here, before it leaves the core:
 * - control characters, format characters (bidi embeddings, overrides and isolates, zero-width
 *   characters, soft hyphens, tag characters), private-use, unassigned and lone surrogate code
 *   points, variation selectors and blank fillers are removed;
 * - every run of white space (line and paragraph separators included) becomes one space;
 * - runs of combining marks are kept to two (no towers over the text around it);
 * - it is cut to MCP_CLIENT_NAME_MAX characters, ending in '…' when cut.
 * The window shows it as the client's claim, as plain text.
 */
import { MCP_CLIENT_NAME_MAX } from '../../../shared/model/mcp-serve';

// Cc: controls; Cf: format (bidi, zero-width, soft hyphen, tags); Co: private use; Cn: unassigned; Cs: lone surrogates.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u115F\u1160\u3164\uFFA0\u2800]/gu;
const SPACES = /[\s\p{Z}\u0085]+/gu;
const MARK_RUNS = /(\p{M}{2})\p{M}+/gu;

/** `text` as one clean line of at most `max` characters (code points), '' when nothing is left. */
export function cleanClientText(text: string, max = MCP_CLIENT_NAME_MAX): string {
  // White space first, so a control line break becomes a space rather than vanishing.
  const flat = String(text).replace(SPACES, ' ').replace(INVISIBLE, '').replace(MARK_RUNS, '$1').normalize('NFC').replace(SPACES, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  return `${chars
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`;
}

/** The label of a client for the approval prompt: its name and version as it gave them, cleaned. */
export function clientLabel(name: unknown, version: unknown): string {
  // The name alone says who it claims to be: with none left once cleaned, there is no claim (a
  // version must not stand in for a name), and a version is added only when it looks like one
  // (no spaces, no brackets), so it cannot extend the name ("Claude" + "Desktop (verified)").
  const n = typeof name === 'string' ? cleanClientText(name) : '';
  if (!n) return '';
  const v = typeof version === 'string' ? cleanClientText(version, 24) : '';
  return /^v?\d[\w.+-]*$/.test(v) ? cleanClientText(`${n} ${v}`) : n;
}
