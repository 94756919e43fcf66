/**
 * How findable each tool is by a model's `tool_search`, and which tools it cannot tell apart
 * (docs/tool-search.md, "Findability"). Pure: given the tools a turn would search, it ranks
 * each one's own words against all of them with the real ToolRanker, as a turn does, and reads
 * its name and description:
 *
 * - empty-description, short-description: nothing, or next to nothing beyond the name, to match;
 * - vague-name: a name that says nothing (`tool1`, `get`, `do_it`), or one copied from the
 *   HTTP route (`post-payouts-payout-cancel`) rather than saying what the tool does;
 * - hard-to-find: the tool's display name and first sentence, as a need, do not bring it into
 *   the top TOP (the number of tools a search loads by default); then the same naming its
 *   bundle (a model told to name the service does); and, apart, a need made of its name's words;
 * - collision: two tools each nearly as good a match for the other's own words as for their
 *   own (the ranking cannot tell them apart), or with the same description.
 *
 * Bounded: one to three searches a tool over the whole registry and a look at the few tools
 * each search ranks first, never every pair; the event loop is free between slices.
 */
import { MAX_FINDINGS, type FindabilityReport, type FindingKind, type FindingSeverity as Severity, type FindingTool } from '../../../shared/model/findability';
import type { ToolView } from '../../../shared/model/tool';
import { compareVersions } from '../../../shared/versions';
import { firstSentence, searchableTool, type ToolOfBundle } from './document';
import { AnalysisCache, ToolRanker, type RankedTool, type ToolSource } from './ranker';
import { STOP_WORDS, plainText, terms, words } from './text';

/** A tool must be in this many first results for its own words (tool_search loads 5 by default). */
export const TOP = 5;
/** How deep a search is read: a tool further down is "not found". */
export const RANK_DEPTH = 20;
/** A description with fewer distinct terms than this (stop words aside) is very short. */
export const MIN_DESCRIPTION_TERMS = 3;
/** A description that adds no word to the name is reported when it has fewer terms than this. */
const REPEAT_TERMS = 6;
/** Two tools collide when each scores at least this share of the other's score on the other's own words. */
export const COLLISION_RATIO = 0.9;
/** The longest query made from a tool's words (tool_search takes 1000 characters). */
const MAX_QUERY = 600;

export interface FindabilityTool extends ToolOfBundle {
  /** Unique among the tools: how findings name it. */
  key: string;
  /** Where the ranker's AnalysisCache keeps its analysis (changes when the tool does). */
  cacheKey?: string;
  /** Findings about it are reported (default true). A built-in tool is ranked, not reported on. */
  report?: boolean;
}

export interface ToolFinding {
  kind: FindingKind;
  severity: Severity;
  /** The tool it is about first; a collision's other tool second. */
  keys: string[];
  message: string;
  suggestion: string;
  query?: string;
  rank?: number | null;
}

export interface FindabilityResult {
  findings: ToolFinding[];
  /** Searches run (the work done: at most three a tool reported on). */
  searches: number;
  ranked: number;
  checked: number;
}

export interface FindabilityOptions {
  cache?: AnalysisCache;
  /** Tools checked between two turns of the event loop. */
  slice?: number;
  signal?: AbortSignal;
}

const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { high: 0, medium: 1, low: 2 };
const KIND_ORDER: Readonly<Record<FindingKind, number>> = { 'empty-description': 0, 'vague-name': 1, 'short-description': 2, 'hard-to-find': 3, collision: 4 };

/** Words that name no thing: a name made only of them (and verbs) says nothing. */
const FILLER: ReadonlySet<string> = new Set(
  (
    'tool tools func function functions fn method action actions op ops operation operations endpoint api handler helper helpers ' +
    'util utils misc main default generic thing things stuff data info item items object obj tmp temp foo bar baz qux new my ' +
    'it this that the a an untitled unnamed sample example demo'
  ).split(' '),
);
/** Verbs: a verb alone says what is done but not to what. */
const BARE_VERBS: ReadonlySet<string> = new Set(
  (
    'get set list fetch create add make update edit change delete remove post put patch send read write find search query ' +
    'lookup load save check show view open close start stop retrieve return returns upload download sync do does run exec ' +
    'execute invoke process perform handle call request test'
  ).split(' '),
);
/** Verbs that say an action but no particular one: not proposed in a new name. */
const EMPTY_VERBS: ReadonlySet<string> = new Set('do does run exec execute invoke process perform handle call request test'.split(' '));

/** A verb as a name opens with: "Cancels" → "cancel", "Lists" → "list". */
function baseVerb(word: string): string | undefined {
  for (const w of [word, word.replace(/es$/, ''), word.replace(/s$/, '')]) if (BARE_VERBS.has(w) || ROUTE_ACTIONS.has(w)) return EMPTY_VERBS.has(w) ? undefined : w;
  return undefined;
}

/**
 * A name to propose for a tool whose name says nothing: its verb (else the last verb of its
 * description's first sentence) and the last two words of that sentence that are neither
 * verbs nor filler; placeholders where the text has none.
 */
function nameFromWords(slugWords: readonly string[], text: string): string {
  const lead = text ? words(firstSentence(text)).filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)) : [];
  const objects = lead.filter((w) => !baseVerb(w) && !BARE_VERBS.has(w) && !FILLER.has(w));
  const last = objects.slice(-2);
  const at = last.length ? lead.lastIndexOf(last[0]!) : lead.length;
  const verb = slugWords.map(baseVerb).find(Boolean) ?? lead.slice(0, at).map(baseVerb).filter(Boolean).at(-1) ?? '<verb>';
  return `${verb}-${last.length ? last.join('-') : '<thing>'}`;
}

/** The last segment of `POST /things/{id}/<verb>`: an action on one thing. */
const ROUTE_ACTIONS: ReadonlySet<string> = new Set(
  (
    'cancel close pay void finalize send merge approve reject archive unarchive restore copy move mark capture confirm refund ' +
    'verify resend reopen lock unlock publish submit accept decline attach detach reverse expire reset resume pause start stop ' +
    'apply duplicate'
  ).split(' '),
);
const METHOD_VERB: Readonly<Record<string, string>> = { POST: 'create', PUT: 'update', PATCH: 'update' };

const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const quote = (s: string) => `“${s}”`;
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const ordinal = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
const list = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

interface Entry {
  t: FindabilityTool;
  name: string;
  /** The description without markup, spaces folded. */
  text: string;
  /** The description as written, spaces folded (for quoting). */
  raw: string;
  /** The display name and first sentence: the tool's own words, as a need. */
  query: string;
  /** The slug's words, as a need. */
  nameQuery: string;
  http?: { method: string; urlTemplate: string };
}

/** The name a person reads: `bundle/slug`. */
const nameOf = (t: FindabilityTool) => `${t.bundleSlug}/${t.tool.slug}`;

function entryOf(t: FindabilityTool): Entry {
  const text = plainText(t.tool.description).replace(/\s+/g, ' ').trim();
  const lead = text ? firstSentence(t.tool.description).replace(/\s+/g, ' ') : '';
  const display = t.tool.displayName.trim();
  const sameWords = terms(lead).join(' ') === terms(display, true).join(' ');
  const query = (lead && !sameWords ? `${display}. ${lead}` : display || lead || t.tool.slug).slice(0, MAX_QUERY);
  const http = t.tool.http as { method?: string; urlTemplate?: string } | undefined;
  return {
    t,
    name: nameOf(t),
    text,
    raw: t.tool.description.replace(/\s+/g, ' ').trim(),
    query,
    nameQuery: nameWords(t.tool.slug).join(' '),
    ...(http?.urlTemplate ? { http: { method: (http.method ?? 'GET').toUpperCase(), urlTemplate: http.urlTemplate } } : {}),
  };
}

/** A name's words, lower-case, split at separators, case changes and digits (digits dropped). */
function nameWords(name: string): string[] {
  return words(name.replace(/[_.-]+/g, ' '), true)
    .filter((w, i, all) => !/^\d+$/.test(w) && !(all.length > 1 && i === 0 && all.slice(1).join('') === w))
    .filter((w, i, all) => all.indexOf(w) === i);
}

/**
 * Whether a name's words say something: a word that is neither filler nor a verb (`weather`),
 * or two verbs, the second the object (`create-run`, `get-search`).
 */
function saysSomething(ws: readonly string[]): boolean {
  const meant = ws.filter((w) => w.length > 1 && !FILLER.has(w));
  return meant.some((w) => !BARE_VERBS.has(w)) || meant.length >= 2;
}

/** The path of a URL template (the scheme and host dropped, no query). */
const routePath = (urlTemplate: string) => urlTemplate.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';

/** A route's literal segments and parameter names, and its segments as written (`{id}` kept). */
function routeOf(urlTemplate: string): { segments: string[]; words: Set<string> } {
  const segments = routePath(urlTemplate)
    .split('/')
    .map((s) => s.replace(/\.json$/i, ''))
    .filter((s) => s && !/^v\d+(\.\d+)*$/i.test(s));
  const ws = new Set<string>();
  for (const s of segments) for (const w of nameWords(s.replace(/[${}]/g, ' '))) ws.add(w);
  return { segments, words: ws };
}

const isParam = (segment: string) => /^\$?\{[^}]*\}$/.test(segment);

function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return word.slice(0, -3) + 'y';
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') && word.length > 3 ? word.slice(0, -1) : word;
}

/**
 * A slug copied from the route (`post-payouts-payout-cancel`): it opens with the method and its
 * other words are the path's. Answers a name that says what it does (`cancel-payout`), when
 * one can be made from the route and differs from the slug.
 */
function routeNameFix(e: Entry): string | undefined {
  if (!e.http) return undefined;
  const ws = nameWords(e.t.tool.slug);
  const method = e.http.method.toLowerCase();
  // GET reads as the verb "get"; POST, PUT and PATCH say only how the call is made.
  if (!['post', 'put', 'patch'].includes(method) || ws[0] !== method || ws.length < 2) return undefined;
  const route = routeOf(e.http.urlTemplate);
  if (!ws.slice(1).every((w) => route.words.has(w))) return undefined;
  const segs = route.segments;
  const last = segs.at(-1);
  const literal = (s: string | undefined) => (s && !isParam(s) ? nameWords(s).join('-') : undefined);
  let verb = METHOD_VERB[e.http.method]!;
  let object: string | undefined;
  const action = literal(last);
  if (e.http.method === 'POST' && action && ROUTE_ACTIONS.has(action) && segs.length >= 3 && isParam(segs.at(-2)!)) {
    // POST /payouts/{payout}/cancel: an action on one thing.
    verb = action;
    object = literal(segs.at(-3)) && singular(literal(segs.at(-3))!);
  } else {
    const i = segs.findLastIndex((s) => !isParam(s));
    if (i < 0) return undefined;
    // POST /files/{id}/content: the content of one file.
    const owner = i >= 2 && isParam(segs[i - 1]!) ? literal(segs[i - 2]) : undefined;
    object = [owner && singular(owner), singular(literal(segs[i])!)].filter(Boolean).join('-');
  }
  const fix = [verb, object].filter(Boolean).join('-');
  return fix && fix !== e.t.tool.slug && fix !== ws.join('-') ? fix : undefined;
}

function descriptionFindings(e: Entry): ToolFinding[] {
  if (!e.text) {
    return [
      {
        kind: 'empty-description',
        severity: 'high',
        keys: [e.t.key],
        message: `\`${e.name}\` has no description: a search has only its name to go by, and the model that finds it does not know when to use it.`,
        suggestion: `Write one or two sentences: what it does and to what, what it returns, and when to use it (e.g. ${quote(`${e.t.tool.displayName.trim() || e.t.tool.slug}: <does what, to what>. Returns <what>. Use it when <need>.`)}).`,
      },
    ];
  }
  const own = new Set(terms(e.text));
  const nameTerms = new Set([...terms(e.t.tool.slug, true), ...terms(e.t.tool.displayName, true), ...(e.http ? terms(`${e.http.method} ${routePath(e.http.urlTemplate)}`, true) : [])]);
  const beyond = [...own].filter((t) => !nameTerms.has(t));
  // `get_guild: GET /guilds/{guild_id}`: the route written out, nothing more.
  const isRoute = beyond.length === 0 && /\b(GET|POST|PUT|PATCH|DELETE)\s+\/\S/.test(e.text);
  const short = own.size < MIN_DESCRIPTION_TERMS;
  if (!isRoute && !short && (beyond.length > 0 || own.size >= REPEAT_TERMS)) return [];
  const what = isRoute ? 'is only its name and route' : short ? `is ${own.size === 1 ? 'one word' : `${own.size} words`} long` : 'only repeats its name';
  return [
    {
      kind: 'short-description',
      severity: isRoute ? 'medium' : 'low',
      keys: [e.t.key],
      message: `The description of \`${e.name}\` (${quote(cut(e.raw, 80))}) ${what}: a need written in other words will not meet it.`,
      suggestion: 'Say what it does in the words a person would use, what it returns, and when to use it rather than a tool like it.',
    },
  ];
}

function nameFindings(e: Entry): ToolFinding[] {
  const slugWords = nameWords(e.t.tool.slug);
  const titleWords = nameWords(e.t.tool.displayName);
  const n = e.name;
  if (!saysSomething(slugWords)) {
    const titleSays = saysSomething(titleWords);
    return [
      {
        kind: 'vague-name',
        severity: titleSays ? 'low' : 'medium',
        keys: [e.t.key],
        message: `The name \`${e.t.tool.slug}\` says nothing of what \`${e.name}\` does${titleSays ? ` (its display name ${quote(e.t.tool.displayName)} does)` : ''}: names weigh most in a search.`,
        suggestion: `Rename \`${e.t.tool.slug}\` to a verb and the thing it works on, e.g. \`${nameFromWords(slugWords, e.text || e.t.tool.displayName)}\`.`,
      },
    ];
  }
  const fix = routeNameFix(e);
  if (fix) {
    const titleFromRoute = titleWords[0] === e.http!.method.toLowerCase();
    return [
      {
        kind: 'vague-name',
        severity: 'low',
        keys: [e.t.key],
        message: `\`${n}\` is named after its route (${e.http!.method} …)${titleFromRoute ? `, and so is its display name ${quote(e.t.tool.displayName)}` : ''}: the method says how it is called, not what it does.`,
        suggestion: `Rename \`${e.t.tool.slug}\` to a verb and its object, e.g. \`${fix}\`${titleFromRoute ? ', and give it a display name in words' : ''}.`,
      },
    ];
  }
  return [];
}

/** A tool's place in a search (1 = first), or null when it is not among the RANK_DEPTH first. */
const placeOf = (hits: readonly RankedTool[], key: string) => {
  const i = hits.findIndex((h) => h.key === key);
  return i < 0 ? null : i + 1;
};

interface Searched {
  hits: RankedTool[];
  rank: number | null;
}

/**
 * The report for `tools`: every tool ranks against all of them; findings only for those whose
 * `report` is not false. Findings most severe first.
 */
export async function findability(tools: readonly FindabilityTool[], opts: FindabilityOptions = {}): Promise<FindabilityResult> {
  const slice = opts.slice ?? 16;
  const cache = opts.cache ?? new AnalysisCache(Math.max(5_000, tools.length));
  // The tool as a turn's search reads it: its bundle's slug, not its name (deferred-tools.ts).
  const sources: ToolSource[] = tools.map((t) => ({
    cacheKey: t.cacheKey ?? `findability:${t.key}:${t.tool.slug}:${t.bundleSlug}`,
    make: () => searchableTool(t.key, { tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName ?? '' }),
  }));
  const ranker = await ToolRanker.build(sources, { cache, slice: 25 });
  const entries = tools.map(entryOf);
  const byKey = new Map(entries.map((e) => [e.t.key, e]));
  const reported = entries.filter((e) => e.t.report !== false);
  const findings: ToolFinding[] = [];
  let searches = 0;
  const search = (query: string, key: string): Searched => {
    searches++;
    // A tool's own words are one text, not a request for several things: not cut into parts, so that scores compare.
    const hits = ranker.rank(query, RANK_DEPTH, { split: false });
    return { hits, rank: placeOf(hits, key) };
  };
  /** Each reported tool's search for its own words, kept for the collisions. */
  const own = new Map<string, Searched>();

  for (let i = 0; i < reported.length; i++) {
    if (i > 0 && i % slice === 0) {
      await yieldLoop();
      opts.signal?.throwIfAborted();
    }
    const e = reported[i]!;
    findings.push(...descriptionFindings(e), ...nameFindings(e));
    const first = search(e.query, e.t.key);
    own.set(e.t.key, first);
    const ahead = (s: Searched) =>
      s.hits
        .slice(0, s.rank === null ? TOP : s.rank - 1)
        .slice(0, 3)
        .map((h) => byKey.get(h.key)!.name);
    if (first.rank === null || first.rank > TOP) {
      const withService = search(`${e.t.bundleSlug} ${e.query}`, e.t.key);
      const severity: Severity = withService.rank !== null && withService.rank <= TOP ? 'low' : withService.rank === null ? 'high' : 'medium';
      const where = first.rank === null ? `not in the first ${RANK_DEPTH}` : `${ordinal(first.rank)}`;
      const serviceNote =
        severity === 'low'
          ? ` Naming its bundle finds it (${ordinal(withService.rank!)}).`
          : withService.rank === null
            ? ` Naming its bundle does not help (not in the first ${RANK_DEPTH}).`
            : ` Naming its bundle, it is ${ordinal(withService.rank)}.`;
      const others = ahead(first);
      findings.push({
        kind: 'hard-to-find',
        severity,
        keys: [e.t.key],
        query: e.query,
        rank: first.rank,
        message: `Searched for in its own words (${quote(cut(e.query, 100))}), \`${e.name}\` is ${where}${others.length ? `, after ${list(others)}` : ''}.${serviceNote}`,
        suggestion: others.length
          ? `Say what it returns and when to use it instead of \`${others[0]}\`; open the description with the words a person would use for this need.`
          : 'Open its display name and description with the words a person would use for this need: the thing it works on and what it does to it.',
      });
    } else if (saysSomething(nameWords(e.t.tool.slug)) && e.nameQuery && !routeNameFix(e)) {
      const named = search(e.nameQuery, e.t.key);
      if (named.rank === null || named.rank > TOP) {
        const others = ahead(named);
        findings.push({
          kind: 'hard-to-find',
          severity: 'low',
          keys: [e.t.key],
          query: e.nameQuery,
          rank: named.rank,
          message: `Its description finds \`${e.name}\`, but its name's words (${quote(e.nameQuery)}) put it ${named.rank === null ? `past the first ${RANK_DEPTH}` : ordinal(named.rank)}${others.length ? `, after ${list(others)}` : ''}.`,
          suggestion: others.length ? `Make its name say what sets it apart from \`${others[0]}\`.` : 'Make its name say what it does and to what.',
        });
      }
    }
  }

  findings.push(...collisions(reported, own, byKey, (q, key) => search(q, key)));
  findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.keys[0]! < b.keys[0]! ? -1 : a.keys[0]! > b.keys[0]! ? 1 : 0));
  return { findings, searches, ranked: tools.length, checked: reported.length };
}

/** The score a search gives a tool, or 0 when it is not among the hits. */
const scoreOf = (s: Searched, key: string) => s.hits.find((h) => h.key === key)?.score ?? 0;

/**
 * Pairs the ranking cannot tell apart: for each reported tool, the few tools its own search
 * ranks near it; a pair collides when each scores at least COLLISION_RATIO of the other's own
 * score on the other's own words. Pairs with the same description collide whatever the scores.
 */
function collisions(reported: readonly Entry[], own: Map<string, Searched>, byKey: Map<string, Entry>, search: (q: string, key: string) => Searched): ToolFinding[] {
  const out: ToolFinding[] = [];
  const seen = new Set<string>();
  const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  const add = (a: Entry, b: Entry, same: boolean, ratio: number, sharing = 2) => {
    const k = pairKey(a.t.key, b.t.key);
    if (seen.has(k)) return;
    seen.add(k);
    const sameBundle = a.t.bundleSlug === b.t.bundleSlug;
    const sameName = a.t.tool.slug === b.t.tool.slug || a.t.tool.displayName.trim().toLowerCase() === b.t.tool.displayName.trim().toLowerCase();
    const duplicate = same && sameName;
    const severity: Severity = duplicate ? 'high' : sameBundle ? 'medium' : 'low';
    // The tool reported on first (a built-in is never first), else in key order.
    const [first, second] = a.t.report === false ? [b, a] : b.t.report === false ? [a, b] : a.t.key <= b.t.key ? [a, b] : [b, a];
    const others = sharing > 2 ? ` (${sharing} tools share it)` : '';
    let message: string;
    let suggestion: string;
    if (duplicate) {
      message = `\`${first.name}\` and \`${second.name}\` have the same name and description: a search finds both or neither, and the model picks one at random.`;
      suggestion = `Switch one off or delete it${second.t.report === false ? '' : ', or say in each what sets it apart'}.`;
    } else if (same) {
      message = `\`${first.name}\` and \`${second.name}\` have the same description${others} (${quote(cut(first.raw, 60))}): it describes neither, and only their names tell them apart.`;
      suggestion = `Give each a description of its own: what it does, what it returns, and when to use it instead of \`${second.name}\`.`;
    } else {
      message = `\`${first.name}\` and \`${second.name}\` read alike to a search: each matches the other’s own words about as well as its own (${Math.round(ratio * 100)}%).`;
      suggestion = sameBundle
        ? `Say in each description what it returns and when to use it instead of the other (e.g. “Use \`${first.t.tool.slug}\` to …; for … use \`${second.t.tool.slug}\`”).`
        : `Name the service in each description (e.g. “${capital(first.t.bundleSlug)}: …”), and say what sets each apart, so a search that names the service finds the right one.`;
    }
    out.push({ kind: 'collision', severity, keys: [first.t.key, second.t.key], message, suggestion });
  };

  // The same description, whatever the ranking says (grouped, not paired).
  const byText = new Map<string, Entry[]>();
  for (const e of byKey.values()) {
    if (!e.text) continue;
    const k = e.text.toLowerCase();
    byText.set(k, [...(byText.get(k) ?? []), e]);
  }
  for (const group of byText.values()) {
    if (group.length < 2) continue;
    // A long run of copies (a bundle imported twice) gives one finding per copy, with the first.
    for (const b of group.slice(1)) if (group[0]!.t.report !== false || b.t.report !== false) add(group[0]!, b, true, 1, group.length);
  }

  for (const a of reported) {
    const sa = own.get(a.t.key)!;
    const selfA = scoreOf(sa, a.t.key);
    if (!selfA) continue;
    // The nearest tools on its own words: those scoring close to it.
    for (const h of sa.hits.slice(0, TOP + 1)) {
      if (h.key === a.t.key || h.score < COLLISION_RATIO * selfA) continue;
      const b = byKey.get(h.key)!;
      if (seen.has(pairKey(a.t.key, b.t.key))) continue;
      const sb = own.get(b.t.key) ?? search(b.query, b.t.key);
      if (!own.has(b.t.key)) own.set(b.t.key, sb);
      const selfB = scoreOf(sb, b.t.key);
      const aOnB = scoreOf(sb, a.t.key);
      if (!selfB || aOnB < COLLISION_RATIO * selfB) continue;
      add(a, b, false, Math.min(h.score / selfA, aOnB / selfB));
    }
  }
  return out;
}

const capital = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** A usable tool of the registry and its bundle's slug. */
export interface RegistryTool {
  tool: ToolView;
  bundleSlug: string;
  /** The bundle's display name: searched as a turn searches it. */
  bundleName?: string;
}

/**
 * The tools a turn searches among: one version of each bundle's slug, the highest (as
 * tools-for-model.ts picks it), keyed by id (unique), its analysis kept under id and stamp.
 */
export function searchedTools(usable: readonly RegistryTool[], reportOn?: ReadonlySet<string>): (FindabilityTool & { view: ToolView })[] {
  const newest = new Map<string, RegistryTool>();
  for (const c of usable) {
    const k = `${c.tool.bundleId}\u0000${c.tool.slug}`;
    const prev = newest.get(k);
    if (!prev || compareVersions(c.tool.version, prev.tool.version) > 0 || (compareVersions(c.tool.version, prev.tool.version) === 0 && c.tool.modifiedAt > prev.tool.modifiedAt)) newest.set(k, c);
  }
  return [...newest.values()].map((c) => ({
    key: c.tool.id,
    cacheKey: `${c.tool.id}@${c.tool.modifiedAt}@${c.bundleSlug}@${c.bundleName ?? ''}`,
    tool: c.tool,
    bundleSlug: c.bundleSlug,
    ...(c.bundleName ? { bundleName: c.bundleName } : {}),
    report: !c.tool.isBuiltIn && (!reportOn || reportOn.has(c.tool.bundleId)),
    view: c.tool,
  }));
}

/** The report as the contract carries it (shared/model/findability.ts), for the usable tools of a registry. */
export async function findabilityReport(usable: readonly RegistryTool[], opts: FindabilityOptions & { bundleIds?: readonly string[] } = {}): Promise<FindabilityReport> {
  const tools = searchedTools(usable, opts.bundleIds ? new Set(opts.bundleIds) : undefined);
  const byKey = new Map(tools.map((t) => [t.key, t]));
  const result = await findability(tools, opts);
  const ref = (key: string): FindingTool => {
    const t = byKey.get(key)!;
    return { bundleId: t.view.bundleId, bundleSlug: t.bundleSlug, slug: t.view.slug, version: t.view.version, displayName: t.view.displayName, isBuiltIn: t.view.isBuiltIn };
  };
  const counts = { high: 0, medium: 0, low: 0 };
  for (const f of result.findings) counts[f.severity]++;
  const kept = result.findings.slice(0, MAX_FINDINGS);
  return {
    ranked: result.ranked,
    checked: result.checked,
    findings: kept.map(({ keys, ...f }) => ({ ...f, tools: keys.map(ref) })),
    omitted: result.findings.length - kept.length,
    counts,
  };
}
