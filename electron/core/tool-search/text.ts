/**
 * From what a tool says of itself, and from a need written as a sentence, to terms: markup
 * dropped (HTML tags, markdown links and code marks, URLs), words split at separators (and in
 * a tool's text at case changes and digits too: `GetBalanceTransactions`), folded to lower
 * case, stop words dropped,
 * and each word reduced to its stem (Porter, the `stemmer` package) so "sending", "sends" and
 * "send" meet. Both sides MUST go through `terms()`.
 */
import { stemmer } from 'stemmer';
import { joinPhrases } from './phrases';

/** Words longer than this are not terms (ids, hashes, base64). */
export const MAX_TERM_LEN = 40;

const TAG = /<\/?[A-Za-z][^>]{0,500}>/g;
const MD_LINK = /\[([^\]]{0,300})\]\([^)]{0,1000}\)/g;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const ENTITY = /&[a-z]{2,8};|&#\d{1,6};/gi;
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
/** Whether CAMEL would split a run (tested first: most words have no part to split). */
const HAS_PARTS = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
const WORD = /[\p{L}\p{N}]+/gu;
/** "to-do" is one word (split at the hyphen it would be two stop words). */
const TODO = /\bto-?dos?\b/gi;

/**
 * Words that say nothing of what a tool does, in a description or a request ("I would like
 * you to ..."). Kept small: "all", "new", "my" and the like do carry meaning here or are
 * handled by the field weights.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor of to in on at by for from with without into onto over under about as than then ' +
    'is are was were be been being am do does did doing has have had having will would shall should can could may might must ' +
    'i me my mine we us our ours you your yours he him his she her hers it its they them their theirs ' +
    'this that these those there here which who whom whose what when where why how ' +
    'please want wants wanted need needs needed like would let lets just also so very some any each every such only own same ' +
    'if else not no yes too via per e g eg ie etc use used using uses ' +
    'up out off one ones thing things something anything stuff way kind sort currently right again already still ' +
    'got go going tell know'
  ).split(' '),
);

/** Markup and URLs out, entities as spaces. */
export function plainText(text: string): string {
  return text.replace(TODO, 'todo').replace(MD_LINK, ' $1 ').replace(TAG, ' ').replace(URL, ' ').replace(ENTITY, ' ').replace(/[`*_#>|]/g, ' ');
}

/**
 * The words of a text, lower-cased, phrases joined (./phrases.ts); no stemming, stop words
 * kept. A tool's text (`split`) gives a word written in parts (`GetBalance`, `GitHub`) both
 * whole and in its parts; a need gives it whole, as a person writes a name ("GitHub").
 */
export function words(text: string, split = false): string[] {
  const out: string[] = [];
  for (const run of plainText(text).normalize('NFKC').match(WORD) ?? []) {
    const whole = run.toLowerCase();
    const parts = split && HAS_PARTS.test(run) ? run.split(CAMEL) : [run];
    if (parts.length > 1 && whole.length <= MAX_TERM_LEN) out.push(whole);
    for (const part of parts) {
      const w = part.toLowerCase();
      if (w && w.length <= MAX_TERM_LEN) out.push(w);
    }
  }
  return joinPhrases(out);
}

/** The terms of a name: a word written in parts (`GetBalance`) gives its parts only, stop words out, stemmed, once each. */
export function nameTerms(text: string, skip?: (word: string) => boolean): string[] {
  const out = new Set<string>();
  for (const run of plainText(text).normalize('NFKC').match(WORD) ?? []) {
    for (const part of HAS_PARTS.test(run) ? run.split(CAMEL) : [run]) {
      const w = part.toLowerCase();
      if (w.length >= 2 && w.length <= MAX_TERM_LEN && !STOP_WORDS.has(w) && !skip?.(w)) out.add(stem(w));
    }
  }
  return [...out];
}

/** A tool text's first word, in parts (`GetBalance` opens with "get"). */
export function firstWord(text: string): string | undefined {
  const run = plainText(text).normalize('NFKC').match(WORD)?.[0];
  return run?.split(CAMEL)[0]?.toLowerCase();
}

/**
 * Words Porter's rules would fold into another word of a different meaning: "news" is not
 * "new", "marketing" not a stock "market", "general" not "generate", "university" not
 * "universe". Each is its own stem (its plural and a few forms with it).
 */
const OWN_STEMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    news: 'news',
    marketing: 'marketing',
    general: 'general',
    generally: 'general',
    university: 'university',
    universities: 'university',
    universal: 'universal',
    police: 'police',
    policy: 'policy',
    policies: 'policy',
    organization: 'organiz',
    organizations: 'organiz',
    organisation: 'organiz',
    organisations: 'organiz',
    community: 'community',
    communities: 'community',
    business: 'business',
    businesses: 'business',
    experiment: 'experiment',
    experiments: 'experiment',
    experimental: 'experiment',
    executive: 'executive',
    executives: 'executive',
    animal: 'animal',
    animals: 'animal',
    production: 'production',
    assistant: 'assistant',
    assistants: 'assistant',
    authorize: 'authoriz',
    authorization: 'authoriz',
    authorizations: 'authoriz',
    authorized: 'authoriz',
    authorizes: 'authoriz',
    authorizing: 'authoriz',
    authorise: 'authoriz',
    authorisation: 'authoriz',
  }),
);

const stems = new Map<string, string>(OWN_STEMS);

/** The stem of one lower-case word (cached: tool texts repeat their words a lot). */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = /^\p{N}+$/u.test(word) ? word : stemmer(word);
    if (stems.size > 50_000) {
      stems.clear();
      for (const [w, st] of OWN_STEMS) stems.set(w, st);
    }
    stems.set(word, s);
  }
  return s;
}

/** The terms of a text: its words (split: see words()) less stop words and one-letter words, stemmed. */
export function terms(text: string, split = false): string[] {
  const out: string[] = [];
  for (const w of words(text, split)) {
    if (w.length < 2 || STOP_WORDS.has(w)) continue;
    out.push(stem(w));
  }
  return out;
}
