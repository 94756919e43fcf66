/**
 * Redaction of secret values from anything shown or stored: logs, errors, tester output,
 * invocation records, exports. Every occurrence becomes `[redacted]`.
 *
 * What is covered, for each secret value V:
 * - V itself;
 * - V URL-encoded: encodeURIComponent, and every byte as %XX (each in upper- or lowercase
 *   hex), and form encoding (URLSearchParams: space as '+');
 * - V's UTF-8 bytes in hex, lowercase or uppercase;
 * - V as written inside a JSON string (quotes, backslashes, newlines escaped);
 * - V in base64: standard and URL-safe alphabets, with and without '=' padding, also
 *   URL-encoded (as in a query string);
 * - V inside a longer base64 text, such as HTTP Basic auth's base64(`user:password`) when the
 *   password is a secret, whatever the user name: every run of base64 characters long
 *   enough to hold the shortest secret (4n/3 characters for n bytes) is decoded, at each of
 *   the 4 alignments, and a run whose bytes contain V is redacted whole (`Basic [redacted]`).
 * - Overlapping matches of different secrets (or of encodings) are merged, so a longer
 *   secret that contains a shorter one is redacted whole, never half.
 *
 * The values are what the secret store gives (SecretStore.values): each secret's value and,
 * for a secret that is a JSON object of credentials (an OAuth sign-in's token response), its
 * access, refresh and ID tokens and client secret as values of their own (inner-values.ts).
 *
 * Not covered: values derived from a secret (HMAC signatures, a signed request), OAuth tokens
 * not kept in the secret store, hex in mixed case or with separators, other encodings, base64
 * broken across lines, a secret split across two texts redacted separately.
 *
 * Values shorter than 4 characters are not redacted: replacing every 'ab' or '123' in a
 * text would shred it (and the `[redacted]` marks would point at where the value sits),
 * while a 1-3 character value is guessable anyway. Don't use such values as secrets.
 *
 * Matching is one pass of an Aho-Corasick automaton over the text (built from the first 32
 * characters of each encoding, rebuilt only when the set of values changes), so the cost
 * grows with the text, not with the number of secrets.
 */
import type { Redact } from './types';

export const REDACTED = '[redacted]';
/** Values with fewer characters (code points) than this are not redacted. */
export const REDACT_MIN_LENGTH = 4;
/** Shortest run of base64 characters decoded to look for a secret inside (4 bytes). */
const B64_RUN_MIN = 6;

/** Percent-encoding of every byte, `%XX` in upper case. */
function percentAll(value: string): string {
  return Buffer.from(value, 'utf8').toString('hex').toUpperCase().replace(/../g, '%$&');
}

/** Both hex cases of the `%XX` escapes in a URL-encoded text. */
function bothCases(uri: string): string[] {
  return [uri, uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())];
}

/** The forms of a value the redactor looks for (not counting base64 inside longer base64). */
export function encodingsOf(value: string): string[] {
  const forms = new Set<string>([value]);
  for (const f of bothCases(encodeURIComponent(value))) forms.add(f);
  for (const f of bothCases(percentAll(value))) forms.add(f);
  forms.add(new URLSearchParams([['', value]]).toString().slice(1));
  forms.add(JSON.stringify(value).slice(1, -1));
  const hex = Buffer.from(value, 'utf8').toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  const b64 = Buffer.from(value, 'utf8').toString('base64');
  const b64url = Buffer.from(value, 'utf8').toString('base64url');
  for (const f of [b64, b64.replace(/=+$/, ''), b64url, b64url + '='.repeat(b64.length - b64url.length)]) {
    forms.add(f);
    // base64 in a URL: '+', '/' and '=' percent-encoded.
    for (const g of bothCases(encodeURIComponent(f))) forms.add(g);
  }
  return [...forms];
}

function longEnough(v: string): boolean {
  if (v.length < REDACT_MIN_LENGTH) return false;
  if (v.length >= REDACT_MIN_LENGTH * 2) return true;
  let n = 0;
  for (const _ of v) if (++n >= REDACT_MIN_LENGTH) return true;
  return false;
}

/** Builds a Redact over the current secret values; the matcher is rebuilt only when they change. */
export function createRedactor(values: () => readonly string[]): Redact {
  let lastRef: readonly string[] | undefined;
  let lastCopy: string[] = [];
  let state: { text: Matcher; bytes: Matcher; minRun: number; overlap: number; runStart: RegExp } | undefined;

  const current = () => {
    const vals = values();
    if (state && (vals === lastRef || sameList(vals, lastCopy))) {
      lastRef = vals;
      return state;
    }
    const usable = [...new Set(vals.filter((v) => typeof v === 'string' && longEnough(v)))];
    const bytes = usable.map((v) => Buffer.from(v, 'utf8').toString('latin1'));
    // n bytes anywhere in a decoded stream are covered by at least 4n/3 base64 characters.
    const shortest = bytes.reduce((m, b) => Math.min(m, b.length), Number.MAX_SAFE_INTEGER);
    const longest = bytes.reduce((m, b) => Math.max(m, b.length), 0);
    const minRun = Math.max(B64_RUN_MIN, Math.ceil((4 * Math.min(shortest, 1_000_000)) / 3));
    // Enough base64 characters to hold the longest secret at any alignment, a multiple of 4.
    const overlap = 4 * Math.ceil((Math.ceil((4 * longest) / 3) + 8) / 4);
    const runStart = new RegExp(`[A-Za-z0-9+/_-]{${minRun}}`, 'g');
    state = { text: new Matcher(usable.flatMap(encodingsOf)), bytes: new Matcher(bytes), minRun, overlap, runStart };
    lastRef = vals;
    lastCopy = [...vals];
    return state;
  };

  return (text: string): string => {
    if (typeof text !== 'string' || text.length < REDACT_MIN_LENGTH) return text;
    const st = current();
    if (st.text.empty) return text;
    const spans: Span[] = [];
    st.text.find(text, spans);
    findInBase64(text, st, spans);
    if (spans.length === 0) return text;
    return replaceSpans(text, spans);
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** [start, end) in UTF-16 units. */
type Span = [number, number];

/** Characters of a base64 run (both alphabets). */
const B64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') B64_CHAR[c.charCodeAt(0)] = 1;
/** Long runs are decoded a window at a time (a multiple of 4 characters), windows overlapping by `overlap`. */
const B64_WINDOW = 1 << 20;

function isB64(c: number): boolean {
  return c < 128 && B64_CHAR[c] === 1;
}

/**
 * Adds every run of base64 characters (with up to two '=' after it) whose decoded bytes, at
 * one of the 4 alignments, contain a secret. Runs are found by a plain scan (a regular
 * expression would overflow the stack on a run of several MiB).
 */
function findInBase64(text: string, st: { bytes: Matcher; minRun: number; overlap: number; runStart: RegExp }, spans: Span[]): void {
  const n = text.length;
  const { runStart } = st;
  let i = 0;
  while (i < n) {
    // The next stretch of minRun base64 characters (a fixed-length pattern: no backtracking), then the rest of its run.
    runStart.lastIndex = i;
    const m = runStart.exec(text);
    if (!m) return;
    const start = m.index;
    i = start + st.minRun;
    while (i < n && isB64(text.charCodeAt(i))) i++;
    const end = i;
    let pad = 0;
    while (pad < 2 && i < n && text.charCodeAt(i) === 61) {
      i++;
      pad++;
    }
    if (runHolds(text, start, end, st)) spans.push([start, end + pad]);
  }
}

function runHolds(text: string, start: number, end: number, st: { bytes: Matcher; minRun: number; overlap: number }): boolean {
  for (let w = start; w < end; w += B64_WINDOW) {
    const wEnd = Math.min(end, w + B64_WINDOW + st.overlap);
    for (let offset = 0; offset < 4 && wEnd - (w + offset) >= st.minRun; offset++) {
      if (st.bytes.has(Buffer.from(text.slice(w + offset, wEnd), 'base64').toString('latin1'))) return true;
    }
    if (wEnd === end) break;
  }
  return false;
}

function replaceSpans(text: string, spans: Span[]): string {
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let pos = 0;
  let curStart = -1;
  let curEnd = -1;
  const flush = () => {
    if (curStart < 0) return;
    out += text.slice(pos, curStart) + REDACTED;
    pos = curEnd;
  };
  for (const [s, e] of spans) {
    if (curStart >= 0 && s < curEnd) {
      if (e > curEnd) curEnd = e;
      continue;
    }
    flush();
    curStart = s;
    curEnd = e;
  }
  flush();
  return out + text.slice(pos);
}

/** Patterns are indexed by their first PREFIX units; a hit on the prefix is confirmed with startsWith. */
const PREFIX = 32;

/** Aho-Corasick over UTF-16 code units. */
class Matcher {
  readonly empty: boolean;
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  private readonly depth: number[] = [0];
  /** Patterns whose prefix ends at a node, longest first; undefined when none. */
  private readonly groups: (string[] | undefined)[] = [undefined];
  /** The nearest node on the fail chain that has a group, or -1. */
  private readonly dict: number[] = [-1];
  /** 1 for a code unit that starts some pattern: from the root, the scan skips the others in a tight loop. */
  private readonly starts = new Uint8Array(65536);

  constructor(patterns: readonly string[]) {
    const unique = [...new Set(patterns)].filter((p) => p.length > 0);
    this.empty = unique.length === 0;
    for (const p of unique) this.insert(p);
    for (const g of this.groups) g?.sort((a, b) => b.length - a.length);
    this.link();
  }

  private insert(p: string): void {
    let node = 0;
    this.starts[p.charCodeAt(0)] = 1;
    const n = Math.min(p.length, PREFIX);
    for (let i = 0; i < n; i++) {
      const c = p.charCodeAt(i);
      let to = this.next[node]!.get(c);
      if (to === undefined) {
        to = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.depth.push(this.depth[node]! + 1);
        this.groups.push(undefined);
        this.dict.push(-1);
        this.next[node]!.set(c, to);
      }
      node = to;
    }
    (this.groups[node] ??= []).push(p);
  }

  /** Breadth-first: fail links and dictionary links. */
  private link(): void {
    const queue: number[] = [];
    for (const child of this.next[0]!.values()) queue.push(child);
    for (let qi = 0; qi < queue.length; qi++) {
      const u = queue[qi]!;
      for (const [c, v] of this.next[u]!) {
        let f = this.fail[u]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const target = this.next[f]!.get(c);
        this.fail[v] = target !== undefined && target !== v ? target : 0;
        const fv = this.fail[v]!;
        this.dict[v] = this.groups[fv] ? fv : this.dict[fv]!;
        queue.push(v);
      }
    }
  }

  /** Calls `hit(start, end)` for the longest pattern at each start where a pattern occurs; stops when it returns true. */
  private scan(text: string, hit: (start: number, end: number) => boolean): void {
    let state = 0;
    const starts = this.starts;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      if (state === 0) {
        while (i < n && starts[text.charCodeAt(i)] === 0) i++;
        if (i === n) return;
      }
      const c = text.charCodeAt(i);
      let to = this.next[state]!.get(c);
      while (to === undefined && state !== 0) {
        state = this.fail[state]!;
        to = this.next[state]!.get(c);
      }
      state = to ?? 0;
      for (let t = this.groups[state] ? state : this.dict[state]!; t !== -1; t = this.dict[t]!) {
        const start = i + 1 - this.depth[t]!;
        for (const p of this.groups[t]!) {
          if (p.length <= PREFIX || text.startsWith(p, start)) {
            if (hit(start, start + p.length)) return;
            break;
          }
        }
      }
    }
  }

  find(text: string, out: Span[]): void {
    if (this.empty) return;
    this.scan(text, (s, e) => {
      out.push([s, e]);
      return false;
    });
  }

  has(text: string): boolean {
    if (this.empty) return false;
    let found = false;
    this.scan(text, () => (found = true));
    return found;
  }
}

const MAX_DEPTH = 512;

/**
 * A copy of a JSON value with secrets redacted from every string and every object key.
 * A number whose digits are a secret becomes the string `[redacted]`. Byte arrays that
 * contain a secret as UTF-8 become `[redacted]`. Cycles become `[circular]`; nesting deeper
 * than 512 levels becomes `[redacted: too deep]`. Other values pass through.
 */
export function redactDeep(value: unknown, redact: Redact): unknown {
  return walk({ redact, root: undefined, ancestors: undefined, copies: undefined }, value, 0);
}

/**
 * One redactDeep: the objects being walked (for cycles) and the copy of each object already made
 * (so a value that reaches one object by several paths copies it once). Both are made at the
 * first object below the top one: a flat value (most tool results) needs neither.
 */
interface DeepWalk {
  readonly redact: Redact;
  root: object | undefined;
  ancestors: Set<object> | undefined;
  copies: Map<object, unknown> | undefined;
}

function walk(w: DeepWalk, v: unknown, depth: number): unknown {
  if (typeof v === 'string') return w.redact(v);
  if (typeof v === 'number' || typeof v === 'bigint') {
    const s = String(v);
    return w.redact(s) === s ? v : REDACTED;
  }
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_DEPTH) return `${REDACTED.slice(0, -1)}: too deep]`;
  if (ArrayBuffer.isView(v)) {
    const s = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
    return w.redact(s) === s ? v : REDACTED;
  }
  if (v instanceof Date) return v;
  // The top object is reached once, and is every other one's ancestor.
  if (depth === 0) {
    w.root = v;
    return copyOf(w, v, depth);
  }
  const ancestors = (w.ancestors ??= new Set([w.root!]));
  if (ancestors.has(v)) return '[circular]';
  const copies = (w.copies ??= new Map());
  if (copies.has(v)) return copies.get(v);
  ancestors.add(v);
  try {
    const copy = copyOf(w, v, depth);
    copies.set(v, copy);
    return copy;
  } finally {
    ancestors.delete(v);
  }
}

function copyOf(w: DeepWalk, v: object, depth: number): unknown {
  if (Array.isArray(v)) return v.map((x) => walk(w, x, depth + 1));
  return copyObject(w, v as Record<string, unknown>, depth);
}

/** The object's copy, its keys redacted too (two keys that redact alike are told apart: "key (2)"). Each value is walked once. */
function copyObject(w: DeepWalk, v: Record<string, unknown>, depth: number): Record<string, unknown> {
  const keys = Object.keys(v);
  const out: Record<string, unknown> = {};
  // Keys the redaction left as they were are unique already; from the first one it changed,
  // every key is checked against those before it.
  let taken: Set<string> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let key = w.redact(k);
    if (key !== k && !taken) taken = new Set(keys.slice(0, i));
    if (taken) {
      if (taken.has(key)) {
        let n = 2;
        while (taken.has(`${key} (${n})`)) n++;
        key = `${key} (${n})`;
      }
      taken.add(key);
    }
    put(out, key, walk(w, v[k], depth + 1));
  }
  return out;
}

/** Sets an own property, `__proto__` included (an assignment would set the prototype). */
function put(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
