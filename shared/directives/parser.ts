/**
 * The directive parser (docs/design/routing.md): `@tools`, `@input` and `@model` lines in a chat
 * message, a workflow step or a context section. Pure: it runs in the core and in the composer.
 *
 * Grammar (docs/routing.md has the user's version):
 * - A directive line starts, after optional blanks, with `@tools`, `@input` or `@model`
 *   followed by a blank or the end of the line. Lines inside a fenced code block
 *   (``` or ~~~) are never directives.
 * - `@tools a(output=variable:x, write-mode=replace), b (output=file:out/{today}.md)`:
 *   tool tokens separated by commas. A `@tools` line that ends with a comma continues on the
 *   next line; a tool token (its name and its parentheses) stays on one line.
 * - `@input SCHEME:VALUE (output=..., write-mode=...)`: one source, parameters optional.
 *   The parameters open with a `(` after a blank or one followed by `name=`; any other `(`
 *   belongs to the source (`file:a(b).md`). The quoted parts of a source are recorded.
 * - `@model none` or `@model NAME`.
 * - Outside parentheses, `#` starts a comment that runs to the end of the line.
 * - A value may be double-quoted, wholly or in part (`file:"notes (1).md"`); inside quotes
 *   `\"` is a quote and `\\` a backslash.
 */
import { BUFFER_NAME_RE, WriteModeSchema, type WriteMode } from '../model/routing';
import type { AggregatedTool, Directive, DirectiveError, HighlightSpan, InputSourceValue, ParsedText, RouteParams, Span, ToolToken } from './types';
import { classifyDestination, isSpace, lexValue, SCHEME_RE, show, trimBlankLines, workspacePathProblem, type QuotedRanges } from './values';

const DIRECTIVE_RE = /^[ \t]*@(tools|input|model)(?=\s|$)/;
const FENCE_RE = /^[ \t]{0,3}(`{3,}|~{3,})/;
const NAME_CHAR = /[\p{L}\p{N}_.-]/u;
const KEY_CHAR = /[A-Za-z0-9_-]/;
/** What follows a `(` that opens a parameter list: blanks, then `name=` or `)`. */
const PARAMS_OPEN_RE = /^\([ \t]*(?:[A-Za-z0-9_-]+[ \t]*=|\))/;
const PARAM_HELP = 'output= or write-mode=';
const WRITE_MODES = WriteModeSchema.options;

export { DESTINATION_HELP, formatDestinationValue, formatToolToken, parseDestination, quoteValue, trimBlankLines, workspacePathProblem } from './values';
interface Line {
  start: number;
  /** End of the content: before `\n` and a `\r` preceding it. */
  end: number;
  /** Start of the next line (after the `\n`). */
  next: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ start, end: text.length, next: text.length });
      return lines;
    }
    lines.push({ start, end: nl > start && text[nl - 1] === '\r' ? nl - 1 : nl, next: nl + 1 });
    start = nl + 1;
  }
}

interface ParamsResult {
  params: RouteParams;
  end: number;
}

class DirectiveParser {
  readonly lines: Line[];
  readonly directives: Directive[] = [];
  readonly errors: DirectiveError[] = [];
  readonly highlights: HighlightSpan[] = [];

  constructor(readonly text: string) {
    this.lines = splitLines(text);
  }

  span(start: number, end: number): Span {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]!.start <= start) lo = mid;
      else hi = mid - 1;
    }
    return { start, end, line: lo + 1, column: start - this.lines[lo]!.start + 1 };
  }

  error(start: number, end: number, message: string): void {
    this.errors.push({ ...this.span(start, end), message });
    this.highlight(start, end, 'error');
  }

  highlight(start: number, end: number, kind: HighlightSpan['kind']): void {
    if (end > start) this.highlights.push({ start, end, kind });
  }

  skipSpace(pos: number, end: number): number {
    while (pos < end && isSpace(this.text[pos])) pos++;
    return pos;
  }

  /** The next `,` or `)` (outside quotes) or the end: where to resume after an error. */
  skipPast(pos: number, end: number, stops: string): number {
    const lexed = lexValue(this.text, pos, end, (ch) => stops.includes(ch));
    return lexed.end;
  }

  /** Parses the directive opening line `li`; answers how many lines it took. */
  parseDirective(li: number): number {
    const line = this.lines[li]!;
    const m = DIRECTIVE_RE.exec(this.text.slice(line.start, line.end))!;
    const kw = m[1] as 'tools' | 'input' | 'model';
    const at = line.start + m[0].length - kw.length - 1;
    const kwEnd = at + kw.length + 1;
    this.highlight(at, kwEnd, 'directive');
    if (kw === 'tools') return this.parseTools(li, at, kwEnd);
    if (kw === 'input') this.parseInput(line, at, kwEnd);
    else this.parseModel(line, at, kwEnd);
    return 1;
  }

  parseTools(first: number, at: number, kwEnd: number): number {
    const tokens: ToolToken[] = [];
    const errorsBefore = this.errors.length;
    let li = first;
    let pos = kwEnd;
    let expectName = true;
    let last = kwEnd;
    // The comma still waiting for its tool: it carries over comment-only lines.
    let comma = -1;
    for (;;) {
      const line = this.lines[li]!;
      for (;;) {
        pos = this.skipSpace(pos, line.end);
        if (pos >= line.end || this.text[pos] === '#') break;
        const ch = this.text[pos]!;
        if (expectName) {
          const r = this.parseToolToken(pos, line.end);
          if (r.token) tokens.push(r.token);
          pos = last = r.end;
          expectName = false;
          comma = -1;
        } else if (ch === ',') {
          expectName = true;
          comma = pos;
          pos = last = pos + 1;
        } else if (ch === ')') {
          this.error(pos, pos + 1, "unbalanced parentheses: ')' without '('");
          pos++;
        } else {
          const to = this.skipPast(pos, line.end, ',');
          this.error(pos, to, `separate tools with commas: got ${show(this.text.slice(pos, to).trim())} after a tool`);
          pos = to;
        }
      }
      if (!(expectName && comma >= 0)) break;
      const next = this.lines[li + 1];
      const nextText = next ? this.text.slice(next.start, next.end) : '';
      if (!next || /^\s*$/.test(nextText) || DIRECTIVE_RE.test(nextText)) {
        this.error(comma, comma + 1, 'this @tools line ends with a comma but no tool follows on the next line');
        break;
      }
      li++;
      pos = next.start;
    }
    if (tokens.length === 0 && this.errors.length === errorsBefore) {
      this.error(at, kwEnd, '@tools needs at least one tool, e.g. @tools readfile');
    }
    if (tokens.length > 0) this.directives.push({ kind: 'tools', tools: tokens, span: this.span(at, last), raw: this.text.slice(at, last) });
    return li - first + 1;
  }

  parseToolToken(pos: number, end: number): { token?: ToolToken; end: number } {
    const start = pos;
    while (pos < end && NAME_CHAR.test(this.text[pos]!)) pos++;
    if (pos < end && this.text[pos] === '/' && pos > start && pos + 1 < end && NAME_CHAR.test(this.text[pos + 1]!)) {
      pos++;
      while (pos < end && NAME_CHAR.test(this.text[pos]!)) pos++;
    }
    if (pos === start) {
      this.error(pos, pos + 1, `expected a tool name: got ${show(this.text[pos]!)}`);
      return { end: Math.max(pos + 1, this.skipPast(pos + 1, end, ',')) };
    }
    const name = this.text.slice(start, pos);
    this.highlight(start, pos, 'tool');
    const open = this.skipSpace(pos, end);
    if (this.text[open] !== '(') return { token: { name, span: this.span(start, pos) }, end: pos };
    const r = this.parseParams(open, end, name);
    return { token: { name, span: this.span(start, r.end), ...r.params }, end: r.end };
  }

  parseParams(open: number, end: number, owner: string): ParamsResult {
    const params: RouteParams = {};
    const seen = new Set<string>();
    let pos = open + 1;
    for (;;) {
      pos = this.skipSpace(pos, end);
      if (pos >= end) {
        this.error(open, end, "unbalanced parentheses: '(' is not closed on this line");
        return { params, end };
      }
      const ch = this.text[pos]!;
      if (ch === ')') return { params, end: pos + 1 };
      const keyStart = pos;
      while (pos < end && KEY_CHAR.test(this.text[pos]!)) pos++;
      const key = this.text.slice(keyStart, pos);
      if (key === '') {
        this.error(keyStart, keyStart + 1, `expected a parameter (${PARAM_HELP}): got ${show(ch)}`);
        pos = this.skipPast(keyStart + 1, end, ',)');
        if (this.text[pos] === ',') pos++;
        continue;
      }
      pos = this.skipSpace(pos, end);
      if (this.text[pos] !== '=') {
        this.error(keyStart, pos, `expected '=' after ${show(key)} (${PARAM_HELP})`);
        pos = this.skipPast(pos, end, ',)');
        if (this.text[pos] === ',') pos++;
        continue;
      }
      this.highlight(keyStart, pos + 1, 'param');
      const valueStart = this.skipSpace(pos + 1, end);
      const lexed = lexValue(this.text, valueStart, end, (c) => c === ',' || c === ')');
      const valueEnd = lexed.end;
      if (lexed.error) {
        this.error(valueStart, valueEnd, lexed.error);
        return { params, end };
      }
      this.checkParam(params, seen, owner, key, lexed.value, keyStart, valueStart, valueEnd);
      pos = valueEnd;
      if (this.text[pos] === ',') pos++;
    }
  }

  checkParam(params: RouteParams, seen: Set<string>, owner: string, key: string, value: string, keyStart: number, vs: number, ve: number): void {
    if (key !== 'output' && key !== 'write-mode') {
      this.error(keyStart, ve, `unknown parameter ${show(key)} for ${show(owner)}: use ${PARAM_HELP}`);
      return;
    }
    if (seen.has(key)) {
      this.error(keyStart, ve, `duplicate parameter ${show(key)} for ${show(owner)}`);
      return;
    }
    seen.add(key);
    const where = ve > vs ? ([vs, ve] as const) : ([keyStart, ve] as const);
    if (key === 'output') {
      const d = classifyDestination(value);
      if (!d.ok) return this.error(where[0], where[1], d.message);
      params.output = d.value;
      this.highlight(vs, ve, 'destination');
      return;
    }
    if (!(WRITE_MODES as readonly string[]).includes(value)) {
      const msg = value === '' ? 'write-mode= needs a value: append, replace or new' : `bad write-mode ${show(value)}: use append, replace or new`;
      return this.error(where[0], where[1], msg);
    }
    params.writeMode = value as WriteMode;
    this.highlight(vs, ve, 'destination');
  }

  /** After the directive's content: blanks, then a comment or nothing. */
  expectEnd(pos: number, line: Line, what: string): void {
    pos = this.skipSpace(pos, line.end);
    if (pos < line.end && this.text[pos] !== '#') {
      this.error(pos, line.end, `unexpected ${show(this.text.slice(pos, line.end))} after ${what} (quote a value that has blanks: "my file.md")`);
    }
  }

  parseInput(line: Line, at: number, kwEnd: number): void {
    const pos = this.skipSpace(kwEnd, line.end);
    if (pos >= line.end || this.text[pos] === '#' || this.text[pos] === '(') {
      this.error(at, kwEnd, '@input needs a source, e.g. @input file:notes.md');
      return;
    }
    // A `(` after a blank, or one followed by `name=`, opens the parameters; any other is part of the source (`file:a(b).md`).
    const opensParams = (c: string, at: number): boolean => c === '(' && (isSpace(this.text[at - 1]) || PARAMS_OPEN_RE.test(this.text.slice(at, line.end)));
    const lexed = lexValue(this.text, pos, line.end, (c, at) => isSpace(c) || opensParams(c, at));
    if (lexed.error) return this.error(pos, lexed.end, lexed.error);
    const source = this.checkSource(lexed.value, pos, lexed.end, lexed.quoted);
    let end = lexed.end;
    let params: RouteParams = {};
    const open = this.skipSpace(end, line.end);
    if (this.text[open] === '(') {
      const r = this.parseParams(open, line.end, `@input ${lexed.value}`);
      params = r.params;
      end = r.end;
    }
    this.expectEnd(end, line, 'the @input directive');
    if (source) this.directives.push({ kind: 'input', source, params, span: this.span(at, end), raw: this.text.slice(at, end) });
  }

  checkSource(raw: string, start: number, end: number, quoted: QuotedRanges | undefined): InputSourceValue | undefined {
    const m = SCHEME_RE.exec(raw);
    if (!m) {
      this.error(start, end, `@input source ${show(raw)} needs a scheme: file:PATH, variable:NAME or url:URL`);
      return undefined;
    }
    const [, scheme, value] = m as unknown as [string, string, string];
    const lower = scheme.toLowerCase();
    let problem: string | null = null;
    if (value === '') problem = `@input ${scheme}: needs a value after the colon`;
    else if (lower === 'file') problem = workspacePathProblem(value, 'file sources');
    else if (lower === 'variable' && !BUFFER_NAME_RE.test(value)) problem = `invalid buffer name ${show(value)}: letters, digits, _ . - (at most 128, not starting with . or -)`;
    if (problem) {
      this.error(start, end, problem);
      return undefined;
    }
    this.highlight(start, end, 'source');
    // The quoted ranges, moved from the whole raw text to the value after `scheme:`.
    const offset = scheme.length + 1;
    const inValue = (quoted ?? []).map(([a, b]): [number, number] => [Math.max(a - offset, 0), b - offset]).filter(([a, b]) => b > a);
    return inValue.length > 0 ? { scheme, value, quoted: inValue } : { scheme, value };
  }

  parseModel(line: Line, at: number, kwEnd: number): void {
    const pos = this.skipSpace(kwEnd, line.end);
    if (pos >= line.end || this.text[pos] === '#') {
      this.error(at, kwEnd, '@model needs a value: a model name, or none');
      return;
    }
    let end = pos;
    while (end < line.end && !isSpace(this.text[end])) end++;
    this.highlight(pos, end, 'param');
    this.expectEnd(end, line, 'the @model value');
    this.directives.push({ kind: 'model', model: this.text.slice(pos, end), span: this.span(at, end), raw: this.text.slice(at, end) });
  }
}

/** Aggregates every `@tools` token: first-seen order, the last output= and write-mode= given win. */
function aggregate(directives: Directive[]): AggregatedTool[] {
  const byName = new Map<string, AggregatedTool>();
  for (const d of directives) {
    if (d.kind !== 'tools') continue;
    for (const t of d.tools) {
      const agg = byName.get(t.name) ?? { name: t.name };
      if (t.output) agg.output = t.output;
      if (t.writeMode) agg.writeMode = t.writeMode;
      byName.set(t.name, agg);
    }
  }
  return [...byName.values()];
}

export function parseDirectives(text: string): ParsedText {
  const p = new DirectiveParser(text);
  const kept: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < p.lines.length; ) {
    const line = p.lines[i]!;
    const content = text.slice(line.start, line.end);
    const f = FENCE_RE.exec(content);
    if (f) {
      const marker = f[1]!;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && content.trim() === marker) fence = null;
    } else if (fence === null && DIRECTIVE_RE.test(content)) {
      i += p.parseDirective(i);
      continue;
    }
    kept.push(text.slice(line.start, line.next));
    i++;
  }
  let modelNone = false;
  let model: string | undefined;
  for (const d of p.directives) {
    if (d.kind !== 'model') continue;
    modelNone = d.model.toLowerCase() === 'none';
    model = modelNone ? undefined : d.model;
  }
  const result: ParsedText = {
    directives: p.directives,
    prompt: trimBlankLines(kept.join('')),
    tools: aggregate(p.directives),
    modelNone,
    errors: p.errors.sort((a, b) => a.start - b.start || a.end - b.end),
    highlights: p.highlights.sort((a, b) => a.start - b.start || a.end - b.end),
  };
  if (model !== undefined) result.model = model;
  return result;
}
