/**
 * Phrases read as one word, on both sides (tool texts and needs), before stemming and before a
 * need's verb is read (./action.ts): "logged in" and "login" meet, "phone number" is not a
 * phone call, and phrasal verbs say their action ("get rid of" removes, "set up" creates).
 */
export const PHRASES: ReadonlyMap<string, string> = new Map([
  ['log in', 'login'],
  ['logged in', 'login'],
  ['sign in', 'login'],
  ['signed in', 'login'],
  ['text message', 'sms'],
  ['phone number', 'phonenumber'],
  ['phone numbers', 'phonenumber'],
  ['pull request', 'pullrequest'],
  ['pull requests', 'pullrequest'],
  ['get rid of', 'remove'],
  ['got rid of', 'remove'],
  ['set up', 'create'],
  ['sign up', 'register'],
  ['look up', 'lookup'],
  ['look for', 'find'],
  ['pull up', 'show'],
  ['find out', 'find'],
  ['turn into', 'convert'],
  ['turn off', 'disable'],
  ['turn on', 'enable'],
  ['switch off', 'disable'],
  ['switch on', 'enable'],
  ['clean up', 'delete'],
  ['write down', 'note'],
  ['spin up', 'create'],
  ['kick off', 'start'],
  ['fire off', 'send'],
  ['take down', 'remove'],
  ['shut down', 'stop'],
  ['bring back', 'restore'],
  ['wrap up', 'close'],
  ['sign off on', 'approve'],
  ['hand over', 'transfer'],
]);

/** Longest phrase, in words. */
export const MAX_PHRASE_WORDS = Math.max(...[...PHRASES.keys()].map((k) => k.split(' ').length));

const FIRST_WORDS: ReadonlySet<string> = new Set([...PHRASES.keys()].map((k) => k.split(' ')[0]!));

/** The words with every phrase of PHRASES made one word (longest first). */
export function joinPhrases(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!FIRST_WORDS.has(words[i]!)) {
      out.push(words[i]!);
      continue;
    }
    let joined: string | undefined;
    for (let n = Math.min(MAX_PHRASE_WORDS, words.length - i); n >= 2 && !joined; n--) {
      const hit = PHRASES.get(words.slice(i, i + n).join(' '));
      if (hit) {
        joined = hit;
        i += n - 1;
      }
    }
    out.push(joined ?? words[i]!);
  }
  return out;
}
