/**
 * What a need (a request written as a sentence) says, before its words are ranked: the values
 * it carries are told apart from the words that say what to do. A request like "open a bug on
 * acme/web titled 'Login button broken on Safari'" names an action and an object ("open a
 * bug") and carries a payload (the title); the title's words would otherwise count like the
 * action's and pull tools about logins and buttons up.
 *
 * - Quoted text ('…', "…", “…”, `…`) is payload: its words count at PAYLOAD_WEIGHT.
 * - Values with a recognisable kind become the word for that kind, which tools do use: an
 *   e-mail address is "email", a URL "url", a phone number "phone", a money amount "amount",
 *   an @handle "user", a date "date", a version "version".
 * - An issue key (ABC-12) is "issue".
 * - Bare numbers, `#123` references and ids (letters and digits mixed) say which thing, not
 *   what to do: payload too, unless a tool uses the word ("oauth2", "base64").
 */

/**
 * Words a request is full of that say little of which tool it needs ("can you help me find the
 * best, most detailed information…"): they count at LIGHT_WEIGHT. Stems.
 */
export const LIGHT_WORDS: ReadonlySet<string> = new Set(
  ('help find best top latest new recent recommend suggest inform info provid give real world great good ' +
    'look interest specif detail comprehens variou sure possibl abl kindli current todai quick quickli easi easili ' +
    'learn understand explor discov get make creat gener assist includ prefer idea option').split(' '),
);
export const LIGHT_WEIGHT = 0.4;

/** The weight of a word inside quotes, against 1 for a word of the request itself. */
export const PAYLOAD_WEIGHT = 0.25;

export interface NeedParts {
  /** The request with its values and its quoted text taken out. */
  text: string;
  /** The quoted text. */
  payload: string;
  /** Numbers, `#` references and ids: payload too, unless a tool uses the word ("base64", "oauth2", "s3"). */
  values: string;
  /** The kinds of the values it carries ("email", "url", "phone"...), once each. */
  kinds: string[];
}

/** The weight of a value's kind ("email" for an address), against 1 for a word of the request. */
export const KIND_WEIGHT = 0.5;

const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+|\bwww\.[^\s"'<>]+|\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|co|ai|gov|edu)(?:\/[^\s"'<>]*)?(?=[\s,;!?)]|\.?$)/gi;
const EMAIL = /\b[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\b/gi;
const HANDLE = /(?<=^|[\s(,])@[\w][\w.-]*/g;
const MONEY = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?[kmb]?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars?|bucks|euros?|cents|pounds)\b/gi;
const PHONE = /(?<![\w+])\+?\d[\d\s().-]{7,}\d(?!\w)/g;
const DATE = /\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?)?\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/gi;
const VERSION = /\bv?\d+\.\d+(?:\.\d+)+\b|\bv\d+(?:\.\d+)?\b/gi;
const REF = /#\d+\b/g;
const ISSUE_KEY = /\b[A-Z][A-Z0-9]{1,9}-\d+\b/g;
/** Ids: a run of 6 characters or more mixing letters and digits (`ch_3OabC2`, `in_1234567`). */
const ID = /\b(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{6,}\b/gi;
const NUMBER = /\b\d+(?:[.,]\d+)*\b/g;

/** Quoted spans: straight quotes only where they open and close a span (not an apostrophe in "don't"). */
const QUOTED = [/(?<=^|[\s:(=[{,])"([^"\n]{1,500})"/g, /(?<=^|[\s:(=[{,])'([^'\n]{1,500})'(?=$|[\s.,;:!?)\]}])/g, /“([^”\n]{1,500})”/g, /‘([^’\n]{1,500})’/g, /`([^`\n]{1,500})`/g];

/** Quotes around a whole request (a model may quote its query): they are not a payload. */
const WRAPPED = /^\s*(?:"([^"]*)"|“([^“”]*)”|'([^']*)')\s*$/;

/** The request without quotes around all of it. */
export function unwrap(query: string): string {
  const m = WRAPPED.exec(query);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : query;
}

export function needParts(query: string): NeedParts {
  const payload: string[] = [];
  let text = unwrap(query);
  for (const re of QUOTED) {
    text = text.replace(re, (_m, inner: string) => {
      payload.push(inner);
      return ' ';
    });
  }
  const kinds = new Set<string>();
  // Numbers and ids rarely say what to do, but a tool may be named by one ("tool 13", "s3").
  const values: string[] = [];
  const aside = (m: string) => {
    values.push(m);
    return ' ';
  };
  const kind = (k: string) => () => {
    kinds.add(k);
    return ' ';
  };
  text = text
    .replace(EMAIL, kind('email'))
    .replace(URL, kind('url'))
    .replace(HANDLE, kind('user'))
    .replace(MONEY, kind('amount'))
    .replace(DATE, kind('date'))
    .replace(PHONE, kind('phone'))
    .replace(VERSION, kind('version'))
    .replace(REF, aside)
    .replace(ISSUE_KEY, kind('issue'))
    .replace(ID, aside)
    .replace(NUMBER, aside);
  return { text, payload: payload.join(' '), values: values.join(' '), kinds: [...kinds] };
}

/**
 * Where a request asking for two things is cut: at the end of a sentence, at a semicolon, and
 * at a word that joins a second request ("… and also …", "Additionally, …", "… as well as
 * …", "… and then …", "… and can you …", "… and suggest …").
 */
const SENTENCE_END = /(?<=[.?!])["'”’)]*\s+|[;\n]+/;
const JOINS = new RegExp(
  [
    String.raw`,?\s+\b(?:and|but)\s+(?:also|then|additionally|afterwards)\b`,
    String.raw`,?\s+\b(?:also|additionally|afterwards|furthermore|moreover|plus)\b,?`,
    String.raw`,?\s+\bas well as\b`,
    String.raw`,?\s+\b(?:and|but|then)\s+(?=(?:can|could|would|will|please|provide|give|suggest|recommend|show|tell|let|find|get|help|list|check|send|create|book|make|add|post|search|look|fetch|is|are|do|does|how|what|which|where|who|when|i|i'm|i'd|any)\b)`,
    String.raw`,\s+then\b`,
  ].join('|'),
  'i',
);

/**
 * The parts of a request that asks for several things, in order; one part when it asks for one.
 * Quoted text is never cut (a message may hold a full stop or an "and also").
 */
export function splitNeeds(query: string): string[] {
  const quoted: string[] = [];
  let text = unwrap(query).replace(/\uE000/g, ' ');
  for (const re of QUOTED) {
    text = text.replace(re, (m) => {
      quoted.push(m);
      return `\uE000${quoted.length - 1}\uE000`;
    });
  }
  const restore = (part: string) => part.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => quoted[Number(i)]!);
  const parts: string[] = [];
  for (const sentence of text.split(SENTENCE_END)) {
    for (const part of sentence.split(JOINS)) {
      const p = part?.trim();
      if (p) parts.push(restore(p));
    }
  }
  return parts;
}
