/**
 * Settings → Allowed hosts, said for a person: what is wrong with one entry and how to fix it.
 * ALLOWED_HOST_PATTERN is the rule (AllowedHostSchema in settings.ts refuses with these words);
 * the rest explains a refusal, most often a pasted URL where the host alone belongs.
 */

/** A host name, optionally `*.`-prefixed, with an optional :port; `private:` before it for a private-network host. */
export const ALLOWED_HOST_PATTERN = /^(private:)?(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^(private:)?\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const isHost = (s: string) => s.length >= 1 && s.length <= 261 && ALLOWED_HOST_PATTERN.test(s);

/** One refused entry: its line (1-based, counting the non-empty lines as saved), the text, why, and the fix when one is obvious. */
export interface AllowedHostProblem {
  line: number;
  entry: string;
  message: string;
  /** The entry as it should be typed, when the fix is clear (e.g. the host of a pasted URL). */
  suggestion?: string;
}

/** Why `entry` is not an allowed-host entry, or null when it is one. */
export function explainAllowedHost(entry: string): { message: string; suggestion?: string } | null {
  if (isHost(entry)) return null;
  const privatePrefix = entry.startsWith('private:') ? 'private:' : '';
  const rest = entry.slice(privatePrefix.length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
    try {
      const url = new URL(rest);
      const host = url.host;
      if (host && isHost(privatePrefix + host)) {
        return { message: 'a URL was pasted; keep only the host', suggestion: privatePrefix + host };
      }
    } catch {
      // not a URL after all: fall through to the general message
    }
    return { message: 'a URL was pasted; keep only the host name, without the scheme or path' };
  }
  if (/[/?#]/.test(rest)) {
    const host = rest.split(/[/?#]/)[0] ?? '';
    if (host && isHost(privatePrefix + host)) {
      return { message: 'a path was included; keep only the host', suggestion: privatePrefix + host };
    }
    return { message: 'keep only the host name, without a path' };
  }
  if (/\s/.test(entry)) return { message: 'a host name has no spaces; put one host on each line' };
  if (rest.includes('@')) return { message: 'user names and passwords do not belong here; keep only the host' };
  if (/\*/.test(rest)) return { message: 'a wildcard may only be the first label, as in *.example.com' };
  if (/^[0-9a-f:]+$/i.test(rest) && rest.includes(':')) {
    return { message: 'an IPv6 address goes in square brackets', suggestion: `${privatePrefix}[${rest}]` };
  }
  if (entry.length > 261) return { message: 'too long for a host name' };
  return { message: 'not a host name: use letters, digits, dots and dashes, optionally *. before it and :port after it' };
}

/** Every refused entry of the lines as typed (empty lines ignored, as saving does). */
export function allowedHostProblems(entries: readonly string[]): AllowedHostProblem[] {
  const problems: AllowedHostProblem[] = [];
  entries.forEach((entry, i) => {
    const why = explainAllowedHost(entry);
    if (why) problems.push({ line: i + 1, entry, ...why });
  });
  return problems;
}

/** An entry and what is wrong with it, the entry cut to 80 characters: `“entry”: why — write fix`. */
export function entryProblemText(entry: string, why: Pick<AllowedHostProblem, 'message' | 'suggestion'>): string {
  const shown = entry.length > 80 ? `${entry.slice(0, 77)}…` : entry;
  return `“${shown}”: ${why.message}${why.suggestion ? ` — write ${why.suggestion}` : ''}`;
}

/** One problem as a sentence: which entry, what is wrong, the fix. */
export function describeAllowedHostProblem(p: AllowedHostProblem): string {
  return `Line ${p.line}, ${entryProblemText(p.entry, p)}.`;
}
