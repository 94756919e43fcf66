/**
 * The pure half of script tools in the window: a draft's script fields as the body's `script`
 * object (limits typed as text, checked against shared/model/script-tool.ts's bounds), the
 * placeholders the Settings defaults give the limits, a template applied to a draft, which of
 * the editor's markers stop a save, a run's log lines (live and final), and what each way a
 * script call can fail says to do.
 */
import type { ErrorInfo } from '../../../../shared/errors';
import { formatBytes } from '../../../../shared/bytes';
import { SCRIPT_LIMITS, SCRIPT_NOT_TRUSTED_RULE, ScriptLogLineSchema, type ScriptLogLine, type ScriptSettings } from '../../../../shared/model/script-tool';
import { scriptStrings } from '../../../i18n/script-strings';

const s = scriptStrings;

/** The draft's script fields (all text, as typed). */
export interface ScriptDraftFields {
  scriptSource: string;
  scriptTimeLimitMs: string;
  scriptMemoryLimitMb: string;
  scriptMaxOutputBytes: string;
}
export type ScriptField = keyof ScriptDraftFields;
export type ScriptLimitKey = keyof ScriptSettings;

export const EMPTY_SCRIPT_FIELDS: ScriptDraftFields = { scriptSource: '', scriptTimeLimitMs: '', scriptMemoryLimitMb: '', scriptMaxOutputBytes: '' };

/** Each limit: its draft field, its key in the body, its bounds and its unit. */
export const SCRIPT_LIMIT_FIELDS: readonly { field: Exclude<ScriptField, 'scriptSource'>; key: ScriptLimitKey; min: number; max: number; unit: keyof typeof s.panel.units; example: number }[] = [
  { field: 'scriptTimeLimitMs', key: 'timeLimitMs', ...SCRIPT_LIMITS.timeLimitMs, unit: 'ms', example: 5000 },
  { field: 'scriptMemoryLimitMb', key: 'memoryLimitMb', ...SCRIPT_LIMITS.memoryLimitMb, unit: 'mb', example: 64 },
  { field: 'scriptMaxOutputBytes', key: 'maxOutputBytes', ...SCRIPT_LIMITS.maxOutputBytes, unit: 'bytes', example: 1048576 },
];

export const SCRIPT_FIELDS: readonly ScriptField[] = ['scriptSource', ...SCRIPT_LIMIT_FIELDS.map((l) => l.field)];

/** A saved tool's script object as draft fields (the source is read apart: tools.scriptSource). */
export function scriptFieldsOf(script: Partial<Record<ScriptLimitKey, number>> | undefined, source: string): ScriptDraftFields {
  const text = (n: number | undefined) => (n === undefined ? '' : String(n));
  return {
    scriptSource: source,
    scriptTimeLimitMs: text(script?.timeLimitMs),
    scriptMemoryLimitMb: text(script?.memoryLimitMb),
    scriptMaxOutputBytes: text(script?.maxOutputBytes),
  };
}

/**
 * The body's `script` object: the source as typed, and each limit that is a whole number in its
 * bounds (an empty one is left out: Settings' default applies). A limit that is not is left out
 * too, with its sentence under `errors`: the shared schema never sees it.
 */
export function buildScript(d: ScriptDraftFields): { script: Record<string, unknown>; errors: Partial<Record<ScriptField, string>> } {
  const script: Record<string, unknown> = { source: d.scriptSource };
  const errors: Partial<Record<ScriptField, string>> = {};
  for (const l of SCRIPT_LIMIT_FIELDS) {
    const text = d[l.field].trim();
    if (text === '') continue;
    if (!/^\d+$/.test(text)) {
      errors[l.field] = s.panel.wholeNumber(l.example);
      continue;
    }
    const n = Number(text);
    if (n < l.min || n > l.max) {
      errors[l.field] = s.panel.between(l.min, l.max, s.panel.units[l.unit]);
      continue;
    }
    script[l.key] = n;
  }
  return { script, errors };
}

/** The draft field a path under the body's `script` belongs to (`['timeLimitMs']` → scriptTimeLimitMs). */
export function scriptFieldOf(rest: readonly string[]): ScriptField {
  const hit = SCRIPT_LIMIT_FIELDS.find((l) => l.key === rest[0]);
  return hit ? hit.field : 'scriptSource';
}

/** A limit's placeholder: the default it runs with when left empty. */
export function limitPlaceholder(key: ScriptLimitKey, defaults: ScriptSettings | undefined): string {
  if (!defaults) return '';
  return s.panel.defaultIs(String(defaults[key]));
}

/** The output limit as people read it, for the hint beside the field ('' when it is not a number). */
export function outputSizeHint(text: string, defaults: ScriptSettings | undefined): string {
  const t = text.trim();
  const n = t === '' ? defaults?.maxOutputBytes : /^\d+$/.test(t) ? Number(t) : undefined;
  return n === undefined ? '' : s.panel.outputSize(formatBytes(n));
}

export interface ScriptTemplateLike {
  title: string;
  source: string;
  argSchema: Record<string, unknown>;
}

/**
 * A template applied to a draft: its source always; its argument schema only while the draft's
 * is not written yet (not JSON counts as written: the person is typing it).
 */
export function applyTemplate(argSchemaText: string, template: ScriptTemplateLike): { scriptSource: string; argSchema?: string; keptSchema: boolean } {
  if (argSchemaUnwritten(argSchemaText)) return { scriptSource: template.source, argSchema: JSON.stringify(template.argSchema, null, 2), keptSchema: false };
  return { scriptSource: template.source, keptSchema: true };
}

/** An argument schema with no properties yet (the new draft's `{"type": "object", "properties": {}}`). */
export function argSchemaUnwritten(text: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const props = o.properties;
  const noProps = props === undefined || (typeof props === 'object' && props !== null && Object.keys(props).length === 0);
  return noProps && Object.keys(o).every((k) => ['type', 'properties', 'required', '$schema', 'additionalProperties'].includes(k));
}

/** The argument schema a script's `Args` is typed from: the text's, or the last one that parsed. */
export function argSchemaForTypes(text: string, previous: unknown): unknown {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : previous;
  } catch {
    return previous;
  }
}

/** What the script editor reports of a marker (renderer/editor's EditorProblem, with the checker's code). */
export interface MarkerLike {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
  code?: string;
}

/**
 * Whether a marker says the text is not JavaScript: the checker's grammar errors (1xxx) and
 * TypeScript-only syntax in a JavaScript file (8002–8017). Type errors (2xxx and the rest) do
 * not stop a save: a script may be right where its declarations are not.
 */
export function isSyntaxProblem(m: MarkerLike): boolean {
  if (m.severity !== 'error') return false;
  const code = Number(m.code);
  if (!Number.isInteger(code)) return false;
  return (code >= 1000 && code < 2000) || (code >= 8002 && code <= 8017);
}

export interface ScriptProblems {
  /** Markers that stop a save (the script does not parse). */
  syntax: MarkerLike[];
  /** The others: shown and counted, a save goes ahead. */
  other: MarkerLike[];
}

export const NO_SCRIPT_PROBLEMS: ScriptProblems = { syntax: [], other: [] };

export function splitProblems(list: readonly MarkerLike[]): ScriptProblems {
  if (list.length === 0) return NO_SCRIPT_PROBLEMS;
  const syntax = list.filter(isSyntaxProblem);
  return { syntax, other: list.filter((m) => !isSyntaxProblem(m)) };
}

export function sameProblems(a: ScriptProblems, b: ScriptProblems): boolean {
  const same = (x: MarkerLike[], y: MarkerLike[]) => x.length === y.length && x.every((m, i) => m.line === y[i]!.line && m.column === y[i]!.column && m.message === y[i]!.message);
  return same(a.syntax, b.syntax) && same(a.other, b.other);
}

/** The most log lines one call keeps (the core drops the rest and says so in its last line). */
export const MAX_LIVE_LINES = SCRIPT_LIMITS.logLines + 1;

/** A live `invocation.event` as a log line of this call, or null when it is not one. */
export function liveLogLine(event: { invocationId: string; kind: string; data: unknown }, invocationId: string): ScriptLogLine | null {
  if (event.invocationId !== invocationId || event.kind !== 'log') return null;
  const parsed = ScriptLogLineSchema.safeParse(event.data);
  return parsed.success ? parsed.data : null;
}

/** Lines with one more, kept to the bound. */
export function appendLine(lines: readonly ScriptLogLine[], line: ScriptLogLine): ScriptLogLine[] {
  const next = [...lines, line];
  return next.length > MAX_LIVE_LINES ? next.slice(next.length - MAX_LIVE_LINES) : next;
}

/** The log lines a finished call answered with: its result's `logs`, or its error's `details.logs`. */
export function finalLogs(run: { result?: { logs?: unknown }; error?: Pick<ErrorInfo, 'details'> }): ScriptLogLine[] | undefined {
  const raw = run.result ? run.result.logs : run.error ? record(run.error.details).logs : undefined;
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((l) => {
    const p = ScriptLogLineSchema.safeParse(l);
    return p.success ? [p.data] : [];
  });
}

/** A refusal because the script came from outside the app and is not trusted yet. */
export function isNotTrusted(error: Pick<ErrorInfo, 'code' | 'details'>): boolean {
  return error.code === 'FORBIDDEN' && record(error.details).rule === SCRIPT_NOT_TRUSTED_RULE;
}

export interface ScriptErrorHelp {
  /** What happened, in words (the core's own sentence is shown too). */
  title: string;
  /** What to do about it. */
  fix?: string;
  /** Where the script threw. */
  stack?: string;
}

/**
 * What a failed script call says beyond the core's sentence, by its code and the details the
 * core gives (`limit`: time, memory, output, stack; `phase: 'load'`; `toolError` and `stack`
 * for a script that threw): time limit, memory or output limit, a script that does not load or
 * has no run function or returns what is not JSON, one that threw, one refused something.
 * Null for a refusal of the arguments or the output (the tester lists those), for an untrusted
 * script (the review shows instead) and for any other failure.
 */
export function scriptErrorHelp(error: Pick<ErrorInfo, 'code' | 'details'>): ScriptErrorHelp | null {
  const d = record(error.details);
  const stack = typeof d.stack === 'string' && d.stack.trim() !== '' ? { stack: d.stack } : {};
  const e = s.errors;
  switch (error.code) {
    case 'TIMEOUT':
      return { title: e.timeout, fix: e.timeoutFix };
    case 'PAYLOAD_TOO_LARGE':
      if (d.limit === 'memory') return { title: e.memory, fix: e.memoryFix };
      if (d.limit === 'output') return { title: e.output, fix: e.outputFix };
      return { title: e.tooLarge };
    case 'VALIDATION_FAILED':
      if (d.phase === 'args' || d.phase === 'output' || d.phase === 'draft') return null;
      if (d.phase === 'load') return { title: e.load, fix: e.loadFix, ...stack };
      if (d.limit === 'stack') return { title: e.stackOverflow, fix: e.stackOverflowFix };
      // An error of ctx the script did not catch: where it was thrown.
      if (d.toolError === true && 'stack' in stack) return { title: e.threw, ...stack };
      return { title: e.invalid, fix: e.invalidFix };
    case 'FORBIDDEN':
      if (isNotTrusted(error)) return null;
      return { title: e.forbidden, fix: e.forbiddenFix, ...stack };
    case 'CANCELLED':
      return { title: e.cancelled };
    default:
      // UNAVAILABLE, or the code of a ctx.call the script did not catch (NOT_FOUND, ...).
      return d.toolError === true ? { title: e.threw, ...stack } : null;
  }
}

function record(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
