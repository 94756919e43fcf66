/**
 * The recipe builder's "paste a curl command": a curl command line becomes an HTTP tool.
 * Pure (no Node, no DOM), so the editor runs it as the user types and the core can too.
 *
 * parseCurl(line) reads the line the way bash would, without running anything:
 * - Quoting: '...', "..." (backslash escapes $ ` " \ and newline), $'...' (ANSI-C escapes),
 *   backslash escapes, and backslash-newline continuations.
 * - Refused, naming what was found: command substitution ($(...), `...`), variables ($VAR,
 *   ${VAR}, $1, $?), arithmetic ($((...))), shell operators (| || & && ; < > >> ( ) and the
 *   like), a line break that starts a second command, unquoted wildcards (* ? [), brace
 *   expansion ({a,b}) and ~. Nothing is ever expanded: the message says what to quote.
 * - The tokenizer is our own rather than shell-quote's parse: that one accepts unterminated
 *   quotes silently, cuts a word at a '#' inside it (so `https://x/a#b` loses `#b` and more),
 *   lets backticks through and reports every unquoted URL with a '?' as a glob.
 *
 * Options: -X/--request, -H/--header, -d/--data/--data-ascii/--data-raw/--data-binary/
 * --data-urlencode (several are joined with '&', as curl does), --json (concatenated; sets
 * Content-Type and Accept), -u/--user, -G/--get, -I/--head, --url, -A/--user-agent,
 * -e/--referer, -b/--cookie, --oauth2-bearer, -m/--max-time, --retry, --max-redirs, -g/--globoff.
 * Ignored with a note: -s -S -L -k -i -v -f -N --compressed --fail-with-body --http1.1 --http2
 * --no-progress-meter, and -o -w -c --connect-timeout --retry-delay --retry-max-time with
 * their values. Anything that reads a file (@file, -K, -b file, -T, -F) or that HTTP tools
 * cannot do (proxies, client certificates, multipart forms) is a clear error, and so is
 * any other option.
 *
 * Credentials never end up in the tool: `-u user:pass` (or user info in the URL) comes back
 * as `credentials`; curlToTool turns it into basic auth with a `passwordSecret` NAME. Tokens
 * in Authorization, Cookie, API-key headers, API-key query parameters and password-like JSON
 * or form fields become `${secret:NAME}` placeholders (or the spec's `auth`). Each such value
 * is listed in `secretsNeeded` WITH its value, so the UI can offer to save it as a secret
 * bound to the tool's host (secrets.set) — the UI must not put that list anywhere else. A value
 * shaped like a credential (a JWT, a vendor token: curl-values.ts) is a secret under any name.
 *
 * Every other value the command gives an argument is kept as that argument's `default`, typed
 * from the value (curl-values.ts), so the tool runs as pasted with no arguments given. Slugs,
 * argument and secret names, and which names are secret-like come from tool-naming.ts, which
 * the OpenAPI import uses too.
 */
import { AppError } from '../errors';
import { HTTP_METHODS, urlTemplateProblems, type HttpAuth } from './http-spec';
import { looksLikeCredential, typedValue, valueSchema } from './curl-values';
import { ToolPutBodySchema, type JsonSchemaObject } from './tool';
import { escapeTemplateText, isNestedSecretField, isSecretField, isSecretName, numberedName, proposeSecretName, singular, slugify, toArgName } from './tool-naming';
import { labelViolation, nfc } from './validation';

/** Longest command line accepted (a pasted command with a large --data). */
export const MAX_CURL_CHARS = 256 * 1024;

export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A refused or unreadable command: VALIDATION_FAILED with a sentence a person can act on. */
export class CurlError extends AppError {
  constructor(message: string) {
    super('VALIDATION_FAILED', message);
    this.name = 'CurlError';
  }
}

export interface CurlHeader {
  name: string;
  value: string;
}

export interface ParsedCurl {
  method: HttpMethod;
  /** scheme://host[:port]/path?query — user info and #fragment removed. */
  url: string;
  /** Headers in the order given, -A/-e/-b/--json ones included. */
  headers: CurlHeader[];
  /** The request body (absent with -G, where the data went into the query). `json` when --json was used. */
  body?: { text: string; json: boolean };
  /** From -u/--user or user info in the URL: store the password as a secret, never in a tool. */
  credentials?: { username: string; password?: string };
  timeoutMs?: number;
  maxRetries?: number;
  maxRedirects?: number;
  /** What was ignored or assumed. */
  notes: string[];
}

/** A secret the tool refers to by name; `value` is what the command held (offer to save it). */
export interface SecretNeeded {
  name: string;
  hosts: string[];
  reason: string;
  value?: string;
}

/** The HTTP spec of a drafted tool: FullHttpSpecSchema's input (its defaults apply on save). */
export interface HttpSpecDraft {
  method: HttpMethod;
  urlTemplate: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: { kind: 'json'; template: unknown } | { kind: 'text'; template: string; contentType: string } | { kind: 'form'; fields: Record<string, string> };
  auth: HttpAuth;
  responseMode: 'json' | 'text';
  timeoutMs?: number;
  limits?: { maxRetries?: number; maxRedirects?: number };
}

/** A ToolPutBody for an HTTP tool, ready for tools.put (slug and version are chosen by the user). */
export interface HttpToolDraft {
  displayName: string;
  description: string;
  tags: string[];
  type: 'http';
  argSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject;
  http: HttpSpecDraft;
  isEnabled: boolean;
}

export interface CurlToolProposal {
  tool: HttpToolDraft;
  suggestedSlug: string;
  /** Entries for Settings → Allowed hosts. */
  hostsProposal: string[];
  secretsNeeded: SecretNeeded[];
  notes: string[];
}

// ---- tokenizer ----------------------------------------------------------------------------

const NAME_START = /[A-Za-z_]/;
const SPECIAL_PARAM = /[0-9@*#?$!-]/;

function describeDollar(line: string, i: number): string | null {
  const next = line[i + 1];
  if (next === '(') return line[i + 2] === '(' ? "arithmetic expansion $((...))" : 'command substitution $(...)';
  if (next === '{') {
    const end = line.indexOf('}', i + 2);
    return `the variable ${end > 0 && end - i < 40 ? line.slice(i, end + 1) : '${...}'}`;
  }
  if (next !== undefined && NAME_START.test(next)) {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(i + 1, i + 41));
    return `the variable $${m ? m[0] : next}`;
  }
  if (next !== undefined && SPECIAL_PARAM.test(next)) return `the shell parameter $${next}`;
  return null;
}

function refuseExpansion(what: string): never {
  throw new CurlError(`${what} is not allowed: nothing is run or expanded here. Paste the value itself, or put it in single quotes if it is meant literally`);
}

const ANSI_SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** Reads $'...' starting at the quote after '$'; returns the text and the index after the closing quote. */
function readAnsiC(line: string, start: number): [string, number] {
  let out = '';
  let i = start;
  for (;;) {
    if (i >= line.length) throw new CurlError(`a $'...' quote is not closed: add a ' at the end`);
    const c = line[i]!;
    if (c === "'") return [out, i + 1];
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = line[i + 1];
    if (e === undefined) throw new CurlError(`a $'...' quote is not closed: add a ' at the end`);
    if (e in ANSI_SIMPLE) {
      out += ANSI_SIMPLE[e];
      i += 2;
      continue;
    }
    const hex = (max: number): number => {
      const m = new RegExp(`^[0-9A-Fa-f]{1,${max}}`).exec(line.slice(i + 2, i + 2 + max));
      if (!m) {
        out += `\\${e}`;
        return 2;
      }
      const cp = parseInt(m[0], 16);
      if (cp > 0x10ffff) throw new CurlError(`the escape \\${e}${m[0]} is not a Unicode character`);
      out += String.fromCodePoint(cp);
      return 2 + m[0].length;
    };
    if (e === 'x') i += hex(2);
    else if (e === 'u') i += hex(4);
    else if (e === 'U') i += hex(8);
    else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(line.slice(i + 1, i + 4))!;
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += 1 + m[0].length;
    } else if (e === 'c' && i + 2 < line.length) {
      out += String.fromCharCode(line.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      out += `\\${e}`;
      i += 2;
    }
  }
}

/** Reads "..." starting after the opening quote; returns the text and the index after the closing quote. */
function readDouble(line: string, start: number): [string, number] {
  let out = '';
  let i = start;
  for (;;) {
    if (i >= line.length) throw new CurlError('a "..." quote is not closed: add a " at the end');
    const c = line[i]!;
    if (c === '"') return [out, i + 1];
    if (c === '\\') {
      const e = line[i + 1];
      if (e === '\n') i += 2;
      else if (e === '\r' && line[i + 2] === '\n') i += 3;
      else if (e !== undefined && '$`"\\'.includes(e)) {
        out += e;
        i += 2;
      } else {
        out += '\\';
        i++;
      }
      continue;
    }
    if (c === '`') refuseExpansion('command substitution `...` (backticks)');
    if (c === '$') {
      const what = describeDollar(line, i);
      if (what) refuseExpansion(what);
    }
    out += c;
    i++;
  }
}

/** Splits a command line into words as bash would, refusing anything bash would expand or run. */
export function tokenizeShell(line: string): string[] {
  if (typeof line !== 'string') throw new CurlError('the command must be text');
  if (line.length > MAX_CURL_CHARS) throw new CurlError(`the command is ${line.length} characters long; at most ${MAX_CURL_CHARS} are accepted`);
  if (line.includes('\0')) throw new CurlError('the command contains a NUL character');
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const end = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === '\\') {
      const e = line[i + 1];
      if (e === undefined) i++;
      else if (e === '\n') i += 2;
      else if (e === '\r' && line[i + 2] === '\n') i += 3;
      else {
        word += e;
        inWord = true;
        i += 2;
      }
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      end();
      i++;
      continue;
    }
    if (c === '\n') {
      end();
      if (/\S/.test(stripComments(line.slice(i + 1)))) {
        throw new CurlError('the text holds more than one command: a line break ends a command (end a line with \\ to continue it on the next)');
      }
      break;
    }
    if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      i = nl < 0 ? line.length : nl;
      continue;
    }
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new CurlError("a '...' quote is not closed: add a ' at the end");
      word += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      const [text, next] = readDouble(line, i + 1);
      word += text;
      inWord = true;
      i = next;
      continue;
    }
    if (c === '$') {
      if (line[i + 1] === "'") {
        const [text, next] = readAnsiC(line, i + 2);
        word += text;
        inWord = true;
        i = next;
        continue;
      }
      if (line[i + 1] === '"') {
        i++;
        continue;
      }
      const what = describeDollar(line, i);
      if (what) refuseExpansion(what);
      word += c;
      inWord = true;
      i++;
      continue;
    }
    if (c === '`') refuseExpansion('command substitution `...` (backticks)');
    if ('|&;<>()'.includes(c)) {
      const op = /^[|&;<>()]+/.exec(line.slice(i, i + 8))![0];
      throw new CurlError(`the shell operator '${op}' is not allowed: paste one curl command, with nothing piped, chained or redirected`);
    }
    if (c === '*' || c === '?' || c === '[') {
      throw new CurlError(`an unquoted '${c}' is a shell wildcard: put the URL or value that holds it in single quotes`);
    }
    if (c === '{') {
      const m = /^\{[^\s{}'"]*\}/.exec(line.slice(i, i + 4096));
      if (m && (m[0].includes(',') || m[0].includes('..'))) throw new CurlError(`'${m[0].slice(0, 40)}' is shell brace expansion: put it in single quotes`);
    }
    if (c === '~' && !inWord) throw new CurlError("an unquoted '~' at the start of a word is the shell's home folder: put it in single quotes");
    word += c;
    inWord = true;
    i++;
  }
  end();
  return words;
}

/** Drops comment lines and trailing comments (for the "anything after a line break?" check). */
function stripComments(rest: string): string {
  return rest
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '$1'))
    .join('\n');
}

// ---- options ------------------------------------------------------------------------------

type OptionKind =
  | 'request'
  | 'header'
  | 'data'
  | 'data-raw'
  | 'data-binary'
  | 'data-urlencode'
  | 'json'
  | 'user'
  | 'url'
  | 'user-agent'
  | 'referer'
  | 'cookie'
  | 'oauth2-bearer'
  | 'max-time'
  | 'retry'
  | 'max-redirs'
  | 'get'
  | 'head'
  | 'globoff'
  | 'ignore-flag'
  | 'ignore-value'
  | 'refuse';

interface OptionSpec {
  kind: OptionKind;
  takesValue: boolean;
  /** For ignored and refused options: why. */
  why?: string;
}

const opt = (kind: OptionKind, takesValue: boolean, why?: string): OptionSpec => ({ kind, takesValue, why });
const IGNORED_FLAG = (why: string) => opt('ignore-flag', false, why);
const IGNORED_VALUE = (why: string) => opt('ignore-value', true, why);
const REFUSED = (why: string, takesValue = true) => opt('refuse', takesValue, why);

const LONG: Record<string, OptionSpec> = {
  request: opt('request', true),
  header: opt('header', true),
  data: opt('data', true),
  'data-ascii': opt('data', true),
  'data-raw': opt('data-raw', true),
  'data-binary': opt('data-binary', true),
  'data-urlencode': opt('data-urlencode', true),
  json: opt('json', true),
  user: opt('user', true),
  url: opt('url', true),
  'user-agent': opt('user-agent', true),
  referer: opt('referer', true),
  cookie: opt('cookie', true),
  'oauth2-bearer': opt('oauth2-bearer', true),
  'max-time': opt('max-time', true),
  retry: opt('retry', true),
  'max-redirs': opt('max-redirs', true),
  get: opt('get', false),
  head: opt('head', false),
  globoff: opt('globoff', false),
  silent: IGNORED_FLAG('only changes what curl prints'),
  'show-error': IGNORED_FLAG('only changes what curl prints'),
  verbose: IGNORED_FLAG('only changes what curl prints'),
  include: IGNORED_FLAG('the tester shows the response headers'),
  location: IGNORED_FLAG('redirects are always followed (at most limits.maxRedirects, checked against Allowed hosts)'),
  insecure: IGNORED_FLAG('TLS certificates are always verified'),
  compressed: IGNORED_FLAG('responses are always decompressed'),
  fail: IGNORED_FLAG('a status outside successCodes is always an error'),
  'fail-with-body': IGNORED_FLAG('a status outside successCodes is always an error'),
  'no-buffer': IGNORED_FLAG('only changes how curl prints'),
  'no-progress-meter': IGNORED_FLAG('only changes what curl prints'),
  'progress-bar': IGNORED_FLAG('only changes what curl prints'),
  'http1.1': IGNORED_FLAG('the HTTP version is negotiated'),
  http2: IGNORED_FLAG('the HTTP version is negotiated'),
  output: IGNORED_VALUE('the tool returns the body'),
  'write-out': IGNORED_VALUE('the tool returns the body'),
  'cookie-jar': IGNORED_VALUE('cookies are not stored between calls'),
  'connect-timeout': IGNORED_VALUE('timeoutMs bounds each attempt'),
  'retry-delay': IGNORED_VALUE('retries back off on their own'),
  'retry-max-time': IGNORED_VALUE('totalTimeoutMs bounds all attempts'),
  form: REFUSED('multipart forms (-F/--form) are not supported by HTTP tools: use --json or -d'),
  'form-string': REFUSED('multipart forms are not supported by HTTP tools: use --json or -d'),
  'upload-file': REFUSED('uploading a file (-T) is not supported: a tool cannot read your files'),
  config: REFUSED('-K/--config reads options from a file: paste them instead'),
  proxy: REFUSED('proxies are not used by HTTP tools'),
  cert: REFUSED('client certificates are not supported by HTTP tools'),
  key: REFUSED('client certificates are not supported by HTTP tools'),
  cacert: REFUSED('custom CA certificates are not supported by HTTP tools'),
  resolve: REFUSED('--resolve is not supported: requests go to the host the URL names'),
  'connect-to': REFUSED('--connect-to is not supported: requests go to the host the URL names'),
  'unix-socket': REFUSED('Unix sockets are not supported by HTTP tools'),
  digest: REFUSED('digest authentication is not supported: use basic (-u), bearer or an API key', false),
  ntlm: REFUSED('NTLM authentication is not supported', false),
  negotiate: REFUSED('Negotiate authentication is not supported', false),
};

const SHORT: Record<string, string> = {
  X: 'request',
  H: 'header',
  d: 'data',
  u: 'user',
  A: 'user-agent',
  e: 'referer',
  b: 'cookie',
  m: 'max-time',
  G: 'get',
  I: 'head',
  g: 'globoff',
  s: 'silent',
  S: 'show-error',
  v: 'verbose',
  i: 'include',
  L: 'location',
  k: 'insecure',
  f: 'fail',
  N: 'no-buffer',
  '#': 'progress-bar',
  o: 'output',
  w: 'write-out',
  c: 'cookie-jar',
  F: 'form',
  T: 'upload-file',
  K: 'config',
  x: 'proxy',
  E: 'cert',
};

function shown(s: string, max = 60): string {
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return `'${cut.replace(/[\p{Cc}]/gu, (ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`)}'`;
}

/** curl's --data-urlencode encoding: every byte but unreserved ones as %XX, UTF-8. */
function urlencode(s: string): string {
  try {
    return encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch {
    throw new CurlError('--data-urlencode holds text that is not well-formed Unicode');
  }
}

function noFile(flag: string, value: string): void {
  if (value.startsWith('@')) throw new CurlError(`${flag} ${shown(value)} reads a file: paste the data itself instead (a tool cannot read your files)`);
}

function dataUrlencode(value: string): string {
  const eq = value.indexOf('=');
  if (eq === 0) return urlencode(value.slice(1));
  if (eq > 0) return `${value.slice(0, eq)}=${urlencode(value.slice(eq + 1))}`;
  if (value.includes('@')) throw new CurlError(`--data-urlencode ${shown(value)} reads a file: paste the data itself instead (name=value)`);
  return urlencode(value);
}

function numberOption(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new CurlError(`${flag} needs a number: got ${shown(value)}`);
  return Math.min(max, Math.max(min, Number(value)));
}

function hasHeader(headers: CurlHeader[], name: string): boolean {
  return headers.some((h) => h.name.toLowerCase() === name.toLowerCase());
}

/** Reads one curl command line. Throws CurlError (VALIDATION_FAILED) with a clear message. */
export function parseCurl(line: string): ParsedCurl {
  const words = tokenizeShell(line);
  if (words.length === 0) throw new CurlError('paste a curl command, e.g. curl https://api.example.com/items');
  const program = words[0]!;
  if (!/^(?:.*\/)?curl(?:\.exe)?$/i.test(program)) throw new CurlError(`the command must start with curl: got ${shown(program)}`);

  const notes: string[] = [];
  const headers: CurlHeader[] = [];
  const urls: string[] = [];
  const data: string[] = [];
  const json: string[] = [];
  let method: string | undefined;
  let get = false;
  let head = false;
  let globoff = false;
  let user: string | undefined;
  let timeoutMs: number | undefined;
  let maxRetries: number | undefined;
  let maxRedirects: number | undefined;
  let optionsEnded = false;

  const apply = (flag: string, spec: OptionSpec, value: string): void => {
    switch (spec.kind) {
      case 'request':
        method = value;
        break;
      case 'header': {
        headers.push(parseHeaderLine(value));
        break;
      }
      case 'data':
      case 'data-binary':
        noFile(flag, value);
        data.push(value);
        break;
      case 'data-raw':
        data.push(value);
        break;
      case 'data-urlencode':
        data.push(dataUrlencode(value));
        break;
      case 'json':
        noFile(flag, value);
        json.push(value);
        break;
      case 'user':
        user = value;
        break;
      case 'url':
        urls.push(value);
        break;
      case 'user-agent':
        headers.push({ name: 'User-Agent', value });
        break;
      case 'referer':
        headers.push({ name: 'Referer', value: value.replace(/;auto$/, '') });
        break;
      case 'cookie':
        if (!value.includes('=')) throw new CurlError(`${flag} ${shown(value)} reads cookies from a file: paste them as 'name=value; name2=value2'`);
        headers.push({ name: 'Cookie', value });
        break;
      case 'oauth2-bearer':
        headers.push({ name: 'Authorization', value: `Bearer ${value}` });
        break;
      case 'max-time':
        timeoutMs = Math.round(numberOption(flag, value, 0.1, 600) * 1000);
        break;
      case 'retry':
        maxRetries = numberOption(flag, value, 0, 10);
        break;
      case 'max-redirs':
        maxRedirects = numberOption(flag, value, 0, 10);
        break;
      case 'get':
        get = true;
        break;
      case 'head':
        head = true;
        break;
      case 'globoff':
        globoff = true;
        break;
      case 'ignore-flag':
      case 'ignore-value':
        notes.push(`${flag} ignored: ${spec.why}`);
        break;
      case 'refuse':
        throw new CurlError(spec.why ?? `${flag} is not supported`);
    }
  };

  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (optionsEnded || !w.startsWith('-') || w === '-') {
      if (w === '-') throw new CurlError("'-' (read from standard input) is not supported");
      urls.push(w);
      continue;
    }
    if (w === '--') {
      optionsEnded = true;
      continue;
    }
    const takeValue = (flag: string): string => {
      const v = words[k + 1];
      if (v === undefined) throw new CurlError(`${flag} needs a value`);
      k++;
      return v;
    };
    if (w.startsWith('--')) {
      const name = w.slice(2);
      const spec = LONG[name];
      if (!spec) throw new CurlError(`the curl option ${shown(w, 40)} is unknown or not supported here`);
      apply(w, spec, spec.takesValue ? takeValue(w) : '');
      continue;
    }
    // A cluster of short options: -sSL, -XPOST, -H'A: b'.
    for (let j = 1; j < w.length; j++) {
      const letter = w[j]!;
      const long = SHORT[letter];
      if (!long) throw new CurlError(`the curl option '-${letter}'${w.length > 2 ? ` (in ${shown(w, 20)})` : ''} is unknown or not supported here`);
      const spec = LONG[long]!;
      const flag = `-${letter}`;
      if (!spec.takesValue) {
        apply(flag, spec, '');
        continue;
      }
      const rest = w.slice(j + 1);
      apply(flag, spec, rest !== '' ? rest : takeValue(flag));
      break;
    }
  }

  if (urls.length === 0) throw new CurlError('the command has no URL');
  if (urls.length > 1) throw new CurlError(`one URL per tool: the command has ${urls.length} (${urls.slice(0, 3).map((u) => shown(u, 40)).join(', ')})`);
  if (data.length && json.length) throw new CurlError('--json and -d/--data cannot be mixed: use one of them');

  const parsedUrl = splitUrl(urls[0]!, globoff, notes);
  let url = parsedUrl.url;
  let credentials: ParsedCurl['credentials'] = parsedUrl.credentials;
  if (user !== undefined) {
    const colon = user.indexOf(':');
    credentials = colon < 0 ? { username: user } : { username: user.slice(0, colon), password: user.slice(colon + 1) };
    if (colon < 0) notes.push('-u gave no password (curl would ask for it): save it as the secret named in auth.passwordSecret');
  }

  let body: ParsedCurl['body'];
  if (json.length) {
    body = { text: json.join(''), json: true };
    if (!hasHeader(headers, 'content-type')) headers.push({ name: 'Content-Type', value: 'application/json' });
    if (!hasHeader(headers, 'accept')) headers.push({ name: 'Accept', value: 'application/json' });
  } else if (data.length) {
    body = { text: data.join('&'), json: false };
  }
  if (get && body) {
    url += (url.includes('?') ? '&' : '?') + body.text;
    body = undefined;
  }

  let finalMethod: string;
  if (method !== undefined) {
    finalMethod = method.toUpperCase();
    if (finalMethod !== method) notes.push(`the method ${shown(method)} is sent as ${finalMethod}`);
  } else finalMethod = head ? 'HEAD' : body ? 'POST' : 'GET';
  if (!(HTTP_METHODS as readonly string[]).includes(finalMethod)) {
    throw new CurlError(`the method ${shown(finalMethod, 20)} is not supported by HTTP tools: use ${HTTP_METHODS.join(', ')}`);
  }
  if (body && (finalMethod === 'GET' || finalMethod === 'HEAD')) {
    throw new CurlError(`a ${finalMethod} request with data: HTTP tools send no body with ${finalMethod}. Add -G to put the data in the query, or use -X POST`);
  }

  return {
    method: finalMethod as HttpMethod,
    url,
    headers,
    ...(body ? { body } : {}),
    ...(credentials ? { credentials } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    ...(maxRedirects !== undefined ? { maxRedirects } : {}),
    notes,
  };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaderLine(line: string): CurlHeader {
  const colon = line.indexOf(':');
  if (colon < 0) {
    // curl's "Name;" sends an empty header.
    const name = line.trim().replace(/;$/, '');
    if (line.trim().endsWith(';') && HEADER_NAME.test(name)) return { name, value: '' };
    throw new CurlError(`-H ${shown(line)} is not a header: write it as 'Name: value'`);
  }
  const name = line.slice(0, colon).trim();
  if (!HEADER_NAME.test(name)) throw new CurlError(`-H ${shown(line)}: ${shown(name, 40)} is not a valid header name`);
  return { name, value: line.slice(colon + 1).trim() };
}

interface SplitUrl {
  url: string;
  credentials?: { username: string; password?: string };
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Checks and normalises the URL: http(s) scheme (https assumed), no user info, no fragment. */
function splitUrl(raw: string, globoff: boolean, notes: string[]): SplitUrl {
  let text = raw.trim();
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:(?!\d)/.test(text) && !/^[^:/]+:\d/.test(text)) throw new CurlError(`${shown(raw)} is not an http or https URL`);
    text = `https://${text}`;
    notes.push('the URL has no scheme: https:// was assumed (curl would use http://)');
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(text);
  if (!m) throw new CurlError(`${shown(raw)} is not a URL`);
  const scheme = m[1]!.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw new CurlError(`only http and https URLs can be HTTP tools: got ${scheme}://`);
  let authority = m[2]!;
  const path = m[3] || '/';
  const query = m[4] ?? '';
  if (m[5]) notes.push('the #fragment of the URL was dropped (it is never sent)');
  let credentials: SplitUrl['credentials'];
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const info = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = info.indexOf(':');
    credentials = colon < 0 ? { username: percentDecode(info) } : { username: percentDecode(info.slice(0, colon)), password: percentDecode(info.slice(colon + 1)) };
    notes.push('the user name and password in the URL became basic auth (the password as a secret)');
  }
  const hostPort = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!hostPort || /[\s\p{Cc}]/u.test(authority)) throw new CurlError(`${shown(raw)} has no valid host`);
  if (hostPort[2] !== undefined && (Number(hostPort[2]) < 1 || Number(hostPort[2]) > 65535)) throw new CurlError(`the port ${hostPort[2]} is out of range`);
  if (!globoff && /[[\]{}]/.test(path + query)) {
    throw new CurlError('curl would expand [...] and {...} in the URL (URL globbing): write one URL, or add -g (--globoff) to send them as they are');
  }
  if (/[\s\p{Cc}]/u.test(path + query)) throw new CurlError('the URL contains spaces or control characters: percent-encode them (%20)');
  const host = hostPort[1]!.toLowerCase();
  const port = hostPort[2] !== undefined ? `:${hostPort[2]}` : '';
  return { url: `${scheme}://${host}${port}${path.startsWith('/') ? path : `/${path}`}${query}`, ...(credentials ? { credentials } : {}) };
}

/** Headers that carry an API key by their name alone. */
const API_KEY_HEADER = /^(?:x-api-key|api-key|apikey|x-apikey|x-auth-token|x-access-token|private-token|x-token|authorization-token)$/i;

/** Transport-owned headers (see electron/core/invoke/http/request.ts). */
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

// ---- curl → tool ---------------------------------------------------------------------------

/**
 * Sets `key` as an own property: a key such as `__proto__` (plain assignment would set the
 * prototype and lose it) is kept as any other.
 */
function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

class Args {
  readonly properties: Record<string, JsonSchemaObject> = {};
  readonly order: string[] = [];
  add(raw: string, schema: JsonSchemaObject): string {
    // Own names only: `constructor` or `toString` is free, and `__proto__` is kept as a name.
    const name = numberedName(toArgName(raw), (n) => Object.hasOwn(this.properties, n));
    setOwn(this.properties, name, schema);
    this.order.push(name);
    return name;
  }
  /** An argument with a default (the command's value) is optional: left out, it takes the default. */
  schema(): JsonSchemaObject {
    const required = this.order.filter((n) => this.properties[n]!.default === undefined);
    return { type: 'object', properties: this.properties, ...(required.length ? { required } : {}), additionalProperties: false };
  }
}

class Secrets {
  readonly list: SecretNeeded[] = [];
  constructor(private readonly host: string) {}
  add(what: string, reason: string, value: string | undefined): string {
    const name = numberedName(proposeSecretName(this.host, what), (n) => this.list.some((s) => s.name === n));
    this.list.push({ name, hosts: [this.host], reason, ...(value !== undefined && value !== '' ? { value } : {}) });
    return name;
  }
}

function formDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24,64})$/i;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes base64 to a Latin-1/UTF-8 string without atob (no DOM or Node APIs here); undefined if malformed. */
function base64Text(s: string): string | undefined {
  const clean = s.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) return undefined;
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of clean.replace(/=+$/, '')) {
    acc = (acc << 6) | B64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  let latin1 = '';
  for (const b of bytes) latin1 += String.fromCharCode(b);
  try {
    return decodeURIComponent(latin1.replace(/[^\x20-\x7e]|%/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`));
  } catch {
    return latin1;
  }
}

/**
 * Turns a parsed curl command into an HTTP tool:
 * - numeric, UUID and long hex path segments become path arguments (`/users/42` → `${userId}`);
 * - each query parameter (its key once) becomes an argument; an API-key-like one (by name or
 *   by the shape of its value) becomes apiKey auth in the query;
 * - a JSON object body's top-level string, number and boolean fields become arguments (the
 *   placeholder keeps the JSON type); a form body's fields too; other bodies stay as text;
 * - Authorization: Bearer/Basic, -u and API-key headers become `auth` (the first credential),
 *   others `${secret:NAME}` placeholders; Cookie becomes a secret header value, and so does
 *   any header or field whose value is shaped like a credential;
 * - each argument has the command's value as `default` and the type read from it, so it is
 *   optional: the tool called with `{}` sends the request as pasted.
 * The result passes ToolPutBodySchema, or this throws a CurlError.
 */
export function curlToTool(parsed: ParsedCurl, opts: { slug?: string } = {}): CurlToolProposal {
  const notes = [...parsed.notes];
  const m = /^(https?):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/.exec(parsed.url);
  if (!m) throw new CurlError(`${shown(parsed.url)} is not an http or https URL`);
  const [, scheme, authority, rawPath, rawQuery] = m as unknown as [string, string, string, string, string | undefined];
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  const host = authority.endsWith(defaultPort) ? authority.slice(0, -defaultPort.length) : authority;
  const hostname = host.startsWith('[') ? host.replace(/\](:\d+)?$/, ']') : host.replace(/:\d+$/, '');
  const args = new Args();
  const secrets = new Secrets(hostname);
  let auth: HttpAuth = { kind: 'none' };

  // -u (or user info in the URL): basic auth, unless an Authorization header replaces it (as in curl).
  if (parsed.credentials) {
    if (parsed.headers.some((h) => h.name.toLowerCase() === 'authorization')) {
      notes.push('-u was ignored: the Authorization header replaces it (as in curl)');
    } else {
      auth = {
        kind: 'basic',
        username: parsed.credentials.username,
        passwordSecret: secrets.add('PASSWORD', `the password of ${parsed.credentials.username || 'the user'} (-u)`, parsed.credentials.password),
      };
    }
  }

  // Path: id-like segments become arguments.
  const segments = (rawPath || '/').split('/');
  const pathOut = segments.map((seg, i) => {
    if (i === 0 || !ID_SEGMENT.test(seg)) return escapeTemplateText(seg);
    const prev = i > 1 ? singular(segments[i - 1]!) : '';
    const name = args.add(prev && !ID_SEGMENT.test(segments[i - 1]!) ? `${prev}Id` : 'id', valueSchema(typedValue(seg), i > 1 ? `Path segment after '${segments[i - 1]!.slice(0, 64)}/'.` : 'Path segment.'));
    notes.push(`the path segment '${seg.slice(0, 64)}' became the argument ${name}`);
    return `\${${name}}`;
  });
  const pathTemplate = pathOut.join('/') || '/';

  // Query: one argument per key; repeated keys and bare flags stay literal.
  const query: Record<string, string> = {};
  const literalQuery: string[] = [];
  const pairs = rawQuery ? rawQuery.split('&').filter((p) => p !== '') : [];
  const keyCount = new Map<string, number>();
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const k = eq < 0 ? undefined : formDecode(p.slice(0, eq));
    if (k !== undefined) keyCount.set(k, (keyCount.get(k) ?? 0) + 1);
  }
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const key = eq < 0 ? undefined : formDecode(p.slice(0, eq));
    const value = eq < 0 ? undefined : formDecode(p.slice(eq + 1));
    if (key === undefined || value === undefined || key === '' || key.length > 256 || keyCount.get(key)! > 1) {
      literalQuery.push(escapeTemplateText(p));
      continue;
    }
    if (isSecretField(key, value)) {
      if (auth.kind === 'none') {
        auth = { kind: 'apiKey', in: 'query', name: key, secret: secrets.add('API_KEY', `the query parameter '${key}'`, value) };
        notes.push(`the query parameter '${key}' looks like an API key: it became apiKey auth with a secret`);
      } else setOwn(query, key, `\${secret:${secrets.add(toArgName(key), `the query parameter '${key}'`, value)}}`);
      continue;
    }
    const name = args.add(key, valueSchema(typedValue(value), `Query parameter '${key}'.`));
    setOwn(query, key, `\${${name}}`);
  }

  // Headers.
  const headers: Record<string, string> = {};
  const headerKey = new Map<string, string>();
  let contentType: string | undefined;
  let accept: string | undefined;
  const setHeader = (name: string, value: string): void => {
    const lower = name.toLowerCase();
    const existing = headerKey.get(lower);
    if (existing !== undefined) {
      setOwn(headers, existing, `${headers[existing]}, ${value}`);
      notes.push(`the header '${name}' was given twice: the values were joined with ', '`);
    } else {
      headerKey.set(lower, name);
      setOwn(headers, name, value);
    }
  };
  const browserHeaders: string[] = [];
  for (const h of parsed.headers) {
    const lower = h.name.toLowerCase();
    if (/[^\t\x20-\x7e]/.test(h.value)) throw new CurlError(`the header '${h.name}' holds a control or non-ASCII character: HTTP tools refuse them in headers`);
    if (RESERVED.has(lower)) {
      notes.push(`the header '${h.name}' was dropped: the transport sets it`);
      continue;
    }
    if (lower.startsWith('sec-') || lower === 'priority') {
      browserHeaders.push(h.name);
      continue;
    }
    if (lower === 'accept-encoding') {
      notes.push(`the header '${h.name}' was dropped: responses are decompressed by the transport`);
      continue;
    }
    if (h.value === '') {
      notes.push(`the empty header '${h.name}' was dropped`);
      continue;
    }
    if (lower === 'content-type') {
      contentType = h.value;
      continue;
    }
    if (lower === 'accept') accept = h.value;
    if (lower === 'authorization') {
      const bearer = /^Bearer\s+(\S+)$/i.exec(h.value);
      const basic = /^Basic\s+(\S+)$/i.exec(h.value);
      const decoded = basic ? base64Text(basic[1]!) : undefined;
      if (bearer && auth.kind === 'none') {
        auth = { kind: 'bearer', secret: secrets.add('TOKEN', 'the bearer token of the Authorization header', bearer[1]) };
        continue;
      }
      if (decoded !== undefined && decoded.includes(':') && auth.kind === 'none') {
        const colon = decoded.indexOf(':');
        auth = { kind: 'basic', username: decoded.slice(0, colon), passwordSecret: secrets.add('PASSWORD', 'the password of the basic Authorization header', decoded.slice(colon + 1)) };
        continue;
      }
      const scheme = /^(\S+)\s+(.+)$/.exec(h.value);
      const name = secrets.add('AUTHORIZATION', 'the credential of the Authorization header', scheme ? scheme[2] : h.value);
      setHeader(h.name, scheme ? `${escapeTemplateText(scheme[1]!)} \${secret:${name}}` : `\${secret:${name}}`);
      continue;
    }
    if (lower === 'cookie' || lower === 'proxy-authorization') {
      setHeader(h.name, `\${secret:${secrets.add(lower === 'cookie' ? 'COOKIE' : 'PROXY_AUTHORIZATION', `the ${h.name} header`, h.value)}}`);
      continue;
    }
    if (API_KEY_HEADER.test(h.name)) {
      if (auth.kind === 'none') {
        auth = { kind: 'apiKey', in: 'header', name: h.name, secret: secrets.add('API_KEY', `the ${h.name} header`, h.value) };
      } else setHeader(h.name, `\${secret:${secrets.add(toArgName(h.name), `the ${h.name} header`, h.value)}}`);
      continue;
    }
    if (looksLikeCredential(h.value)) {
      setHeader(h.name, `\${secret:${secrets.add(toArgName(h.name), `the ${h.name} header (its value looks like a credential)`, h.value)}}`);
      continue;
    }
    setHeader(h.name, escapeTemplateText(h.value));
  }

  if (browserHeaders.length) notes.push(`headers only a browser sends were dropped: ${browserHeaders.join(', ')}`);

  // Body.
  let body: HttpSpecDraft['body'];
  if (parsed.body) {
    const text = parsed.body.text;
    const ct = contentType ?? (parsed.body.json ? 'application/json' : undefined);
    let jsonValue: unknown;
    let isJson = false;
    if (ct === undefined || /json/i.test(ct)) {
      try {
        jsonValue = JSON.parse(text);
        isJson = ct !== undefined || (typeof jsonValue === 'object' && jsonValue !== null);
      } catch {
        if (ct !== undefined) notes.push('the data is not valid JSON: it is sent as text');
      }
      if (isJson && ct === undefined) notes.push('the data is JSON: it is sent as application/json (curl would have sent it as a form)');
    }
    if (isJson) body = { kind: 'json', template: jsonTemplate(jsonValue, args, secrets) };
    else if ((ct === undefined || /^application\/x-www-form-urlencoded\b/i.test(ct)) && formFields(text) !== undefined) {
      const fields: Record<string, string> = {};
      for (const [k, v] of formFields(text)!) {
        setOwn(
          fields,
          k,
          isSecretField(k, v) ? `\${secret:${secrets.add(toArgName(k), `the form field '${k}'`, v)}}` : `\${${args.add(k, valueSchema(typedValue(v), `Form field '${k}'.`))}}`,
        );
      }
      body = { kind: 'form', fields };
    } else {
      body = { kind: 'text', template: escapeTemplateText(text), contentType: ct ?? 'application/x-www-form-urlencoded' };
    }
  } else if (contentType !== undefined) {
    setHeader('Content-Type', escapeTemplateText(contentType));
  }

  const responseMode: 'json' | 'text' = parsed.method === 'HEAD' || (accept !== undefined && accept !== '' && !/json|\*\/\*/i.test(accept)) ? 'text' : 'json';
  const origin = `${scheme}://${authority}`;
  const http: HttpSpecDraft = {
    method: parsed.method,
    urlTemplate: `${origin}${pathTemplate}${literalQuery.length ? `?${literalQuery.join('&')}` : ''}`,
    query,
    headers,
    ...(body ? { body } : {}),
    auth,
    responseMode,
    ...(parsed.timeoutMs !== undefined ? { timeoutMs: Math.max(100, parsed.timeoutMs) } : {}),
    ...(parsed.maxRetries !== undefined || parsed.maxRedirects !== undefined
      ? { limits: { ...(parsed.maxRetries !== undefined ? { maxRetries: parsed.maxRetries } : {}), ...(parsed.maxRedirects !== undefined ? { maxRedirects: parsed.maxRedirects } : {}) } }
      : {}),
  };
  if (responseMode === 'json') notes.push("responseMode is 'json': change it to 'text' if the answer is not JSON");

  const shownPath = rawPath || '/';
  const tool: HttpToolDraft = {
    displayName: `${parsed.method} ${host}${shownPath}`.slice(0, 128),
    description: `Made from a curl command: ${parsed.method} ${origin}${shownPath}`.slice(0, 16_384),
    tags: [],
    type: 'http',
    argSchema: args.schema(),
    outputSchema: responseMode === 'json' ? {} : { type: 'string' },
    http,
    isEnabled: true,
  };

  const urlProblem = urlTemplateProblems(http.urlTemplate)[0];
  if (urlProblem) throw new CurlError(`the URL cannot be a tool's URL: ${urlProblem.message}`);
  const checked = ToolPutBodySchema.safeParse(tool);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new CurlError(`the command does not make a valid HTTP tool: ${issue.path.join('.') || 'tool'}: ${issue.message}`);
  }

  let suggestedSlug: string;
  if (opts.slug !== undefined) {
    const v = labelViolation('slug', opts.slug);
    if (v) throw new CurlError(v.message);
    suggestedSlug = nfc(opts.slug);
  } else {
    const words = (rawPath || '').split('/').filter((s) => s && !ID_SEGMENT.test(s)).slice(-3);
    const hostLabel = proposeSecretName(host, 'x').replace(/_X$/, '').toLowerCase();
    suggestedSlug = slugify([parsed.method.toLowerCase(), ...(words.length ? words : [hostLabel])].join(' '), `${parsed.method.toLowerCase()}-request`);
  }

  return { tool, suggestedSlug, hostsProposal: [host], secretsNeeded: secrets.list, notes };
}

/** `a=1&b=2` as decoded pairs, or undefined if it is not a form (a pair without '=', a bad escape, a repeated key). */
function formFields(text: string): [string, string][] | undefined {
  if (text === '') return undefined;
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const p of text.split('&')) {
    const eq = p.indexOf('=');
    if (eq <= 0) return undefined;
    const k = formDecode(p.slice(0, eq));
    const v = formDecode(p.slice(eq + 1));
    if (k === undefined || v === undefined || seen.has(k) || k.length > 256) return undefined;
    seen.add(k);
    out.push([k, v]);
  }
  return out;
}

/**
 * Top-level scalar fields of a JSON object become placeholders; every other string is escaped.
 * A secret-like string (by its field's name or its shape) becomes a secret placeholder at any depth
 * (below the top level, a field named `key` only by its shape).
 */
function jsonTemplate(value: unknown, args: Args, secrets: Secrets): unknown {
  const escape = (v: unknown, key?: string): unknown => {
    // A number under a credential's name (`"pin": 1234` under `password`) is a secret too, never a literal in the tool.
    if (typeof v === 'number' && key !== undefined && key.toLowerCase() !== 'key' && isSecretName(key)) {
      return `\${secret:${secrets.add(toArgName(key), `the JSON field '${key}'`, String(v))}}`;
    }
    if (typeof v === 'string') {
      return (key !== undefined ? isNestedSecretField(key, v) : looksLikeCredential(v)) ? `\${secret:${secrets.add(toArgName(key ?? 'value'), key !== undefined ? `the JSON field '${key}'` : 'an item of a JSON array', v)}}` : escapeTemplateText(v);
    }
    if (Array.isArray(v)) return v.map((x) => escape(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) setOwn(out, k, escape(x, k));
      return out;
    }
    return v;
  };
  if (!value || typeof value !== 'object' || Array.isArray(value)) return escape(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    let t: unknown;
    if ((typeof v === 'string' && isSecretField(k, v)) || (typeof v === 'number' && isSecretName(k))) t = `\${secret:${secrets.add(toArgName(k), `the JSON field '${k}'`, String(v))}}`;
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') t = `\${${args.add(k, valueSchema(v, `JSON field '${k}'.`))}}`;
    else t = escape(v);
    setOwn(out, k, t);
  }
  return out;
}
