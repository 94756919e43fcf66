/**
 * Values in directives: destinations (`inline`, `discard`, `variable:NAME`, `file:PATH`),
 * quoted values, workspace paths, and writing them back as text. Pure, like the parser.
 */
import { BUFFER_NAME_RE, type Destination } from '../model/routing';
import type { RouteParams } from './types';

export const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):([\s\S]*)$/;
const PATH_MAX = 4096;

export const DESTINATION_HELP = 'inline, discard, variable:NAME or file:PATH';

export type Check<T> = { ok: true; value: T } | { ok: false; message: string };

export const isSpace = (ch: string | undefined): boolean => ch !== undefined && ch !== '\n' && /\s/.test(ch);
export const show = (s: string): string => `'${s.length > 60 ? `${s.slice(0, 60)}…` : s}'`;

/** Why a workspace path given in a directive is refused, or null. `..` anywhere and absolute paths are refused. */
export function workspacePathProblem(p: string, what = 'file destinations'): string | null {
  if (p.includes('\0')) return 'a path must not contain a NUL character';
  if (p.length > PATH_MAX) return `a path may be at most ${PATH_MAX} characters`;
  if (/^[/\\]/.test(p) || /^[A-Za-z]:/.test(p)) return `${what} must be relative to the workspace: got ${show(p)}`;
  if (p.split(/[/\\]/).includes('..')) return `${what} must be relative to the workspace: '..' may not leave it (got ${show(p)})`;
  return null;
}

/** A destination whose text is already unquoted. */
export function classifyDestination(v: string): Check<Destination> {
  if (v === '') return { ok: false, message: `output= needs a destination: ${DESTINATION_HELP}` };
  if (v === 'inline' || v === 'discard') return { ok: true, value: { kind: v } };
  const m = SCHEME_RE.exec(v);
  if (!m) return { ok: false, message: `unknown destination ${show(v)}: use ${DESTINATION_HELP}` };
  const [, kind, rest] = m as unknown as [string, string, string];
  if (kind === 'variable') {
    if (rest === '') return { ok: false, message: 'variable: needs a buffer name (variable:NAME)' };
    if (!BUFFER_NAME_RE.test(rest)) {
      return { ok: false, message: `invalid buffer name ${show(rest)}: letters, digits, _ . - (at most 128, not starting with . or -)` };
    }
    return { ok: true, value: { kind: 'variable', name: rest } };
  }
  if (kind === 'file') {
    if (rest === '') return { ok: false, message: 'file: needs a path relative to the workspace (file:PATH)' };
    const problem = workspacePathProblem(rest);
    return problem ? { ok: false, message: problem } : { ok: true, value: { kind: 'file', path: rest } };
  }
  return { ok: false, message: `unknown destination kind ${show(`${kind}:`)}: use ${DESTINATION_HELP}` };
}

/** Ranges [start, end) of a value that were written inside double quotes. */
export type QuotedRanges = [number, number][];

export interface Lexed {
  value: string;
  end: number;
  error?: string;
  /** The parts of `value` written inside quotes (absent when none was). */
  quoted?: QuotedRanges;
}

/**
 * Reads a value up to a stop character (outside quotes) or `end`; outer unquoted blanks are dropped.
 * `stop` is asked about each unquoted character with its position in `text`.
 */
export function lexValue(text: string, pos: number, end: number, stop: (ch: string, pos: number) => boolean): Lexed {
  const quoted: QuotedRanges = [];
  let out = '';
  let lead = true;
  let keep = 0; // length of `out` that trailing-blank trimming must not cut (quoted text)
  while (pos < end) {
    const ch = text[pos]!;
    if (ch === '"') {
      pos++;
      const from = out.length;
      let closed = false;
      while (pos < end) {
        const c = text[pos]!;
        if (c === '\\' && (text[pos + 1] === '"' || text[pos + 1] === '\\')) {
          out += text[pos + 1];
          pos += 2;
        } else if (c === '"') {
          closed = true;
          pos++;
          break;
        } else {
          out += c;
          pos++;
        }
      }
      if (!closed) return { value: out, end, error: 'unterminated quote: close it with "' };
      lead = false;
      keep = out.length;
      if (keep > from) quoted.push([from, keep]);
      continue;
    }
    if (stop(ch, pos)) break;
    if (!(lead && isSpace(ch))) {
      out += ch;
      lead = false;
    }
    pos++;
  }
  let cut = out.length;
  while (cut > keep && isSpace(out[cut - 1])) cut--;
  const lexed: Lexed = { value: out.slice(0, cut), end: pos };
  if (quoted.length > 0) lexed.quoted = quoted;
  return lexed;
}

/**
 * A destination as the `+` palette's output field or a directive writes it:
 * `inline`, `discard`, `variable:NAME`, `file:PATH` (PATH may be quoted).
 */
export function parseDestination(text: string): { ok: true; destination: Destination } | { ok: false; message: string } {
  const lexed = lexValue(text, 0, text.length, () => false);
  if (lexed.error) return { ok: false, message: lexed.error };
  const r = classifyDestination(lexed.value);
  return r.ok ? { ok: true, destination: r.value } : r;
}

const QUOTE_NEEDED = /[\s,()"#]/;

/** A value quoted when the grammar needs it to read back the same. */
export function quoteValue(v: string): string {
  return v === '' || QUOTE_NEEDED.test(v) ? `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"` : v;
}

/** A destination as a directive writes it (the inverse of parseDestination). */
export function formatDestinationValue(d: Destination): string {
  if (d.kind === 'variable') return `variable:${d.name}`;
  if (d.kind === 'file') return `file:${quoteValue(d.path)}`;
  return d.kind;
}

/** A tool token as a directive writes it: `slug(output=..., write-mode=...)`. */
export function formatToolToken(t: { name: string } & RouteParams): string {
  const params: string[] = [];
  if (t.output) params.push(`output=${formatDestinationValue(t.output)}`);
  if (t.writeMode) params.push(`write-mode=${t.writeMode}`);
  return params.length ? `${t.name}(${params.join(', ')})` : t.name;
}

/** Drops the leading and trailing blank lines (lines of white space only) of a text. */
export function trimBlankLines(s: string): string {
  const lines = s.split('\n');
  let a = 0;
  let b = lines.length;
  while (a < b && /^\s*$/.test(lines[a]!)) a++;
  while (b > a && /^\s*$/.test(lines[b - 1]!)) b--;
  const out = lines.slice(a, b).join('\n');
  return b < lines.length && out.endsWith('\r') ? out.slice(0, -1) : out;
}
