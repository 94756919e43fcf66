/**
 * The eval case editor's pure half (unit-tested): a case as the form holds it (JSON values
 * as text, the list items with keys for React), made from a saved case or a chat draft, and
 * turned back into the body 'evals.save' takes, with a sentence per field that is not right
 * yet (what the core would refuse, said before it is sent).
 */
import { EvalCaseBodySchema, type EvalAnswerCheck, type EvalArgCheck, type EvalCaseBody, type EvalCaseBodyInput, type EvalCannedResult } from '../../../../shared/model/evals';
import type { ModelRef } from '../../../../shared/model/provider';
import { evalsStrings } from '../../../i18n/evals-strings';

const is = evalsStrings.issues;

export type ArgCheckDraft =
  | { key: number; kind: 'jsonPathEquals'; path: string; value: string }
  | { key: number; kind: 'contains'; text: string; ignoreCase: boolean }
  | { key: number; kind: 'schema'; schema: string };

export type AnswerCheckDraft =
  | { key: number; kind: 'contains'; text: string; ignoreCase: boolean }
  | { key: number; kind: 'regex'; pattern: string; ignoreCase: boolean }
  /** `model`: a model value (modelValue), or '' for the run's judge. */
  | { key: number; kind: 'judge'; rubric: string; model: string };

export interface ExpectedToolDraft {
  key: number;
  tool: string;
  args: ArgCheckDraft[];
}

export interface ResultDraft {
  key: number;
  tool: string;
  kind: 'value' | 'error';
  /** JSON text. */
  value: string;
  code: string;
  message: string;
}

export interface ContextDraft {
  key: number;
  role: 'user' | 'assistant';
  text: string;
}

export interface CaseDraft {
  id?: string;
  name: string;
  prompt: string;
  context: ContextDraft[];
  expect: 'tools' | 'none';
  tools: ExpectedToolDraft[];
  allowOthers: boolean;
  answer: AnswerCheckDraft[];
  scope: EvalCaseBody['scope']['tools'];
  /** One entry per line. */
  named: string;
  toolSearch: EvalCaseBody['scope']['toolSearch'];
  results: ResultDraft[];
  otherCalls: EvalCaseBody['otherCalls'];
  approvals: EvalCaseBody['approvals'];
  /** Seconds, as typed; empty: the run's. */
  timeout: string;
}

/** Issues by field: name, prompt, context.i, tools.i.tool, tools.i.args.j.<field>, answer.i.<field>, results.i.<field>, named, timeout, form. */
export type DraftIssues = Record<string, string>;

let lastKey = 0;
/** A key for a new list item (React's key; never sent). */
export const nextKey = () => ++lastKey;

const SEP = '\u0000';
/** A model as one select value. */
export const modelValue = (m: ModelRef): string => `${m.providerId}${SEP}${m.model}`;
export function parseModel(value: string): ModelRef | null {
  const at = value.indexOf(SEP);
  return at > 0 && at < value.length - 1 ? { providerId: value.slice(0, at), model: value.slice(at + 1) } : null;
}

const json = (v: unknown, indent?: number) => {
  try {
    return JSON.stringify(v, null, indent) ?? '';
  } catch {
    return '';
  }
};

export function newArgCheck(kind: ArgCheckDraft['kind']): ArgCheckDraft {
  const key = nextKey();
  if (kind === 'jsonPathEquals') return { key, kind, path: '', value: '' };
  if (kind === 'contains') return { key, kind, text: '', ignoreCase: false };
  return { key, kind, schema: '' };
}

export function newAnswerCheck(kind: AnswerCheckDraft['kind']): AnswerCheckDraft {
  const key = nextKey();
  if (kind === 'judge') return { key, kind, rubric: '', model: '' };
  return { key, kind, ...(kind === 'regex' ? { pattern: '' } : { text: '' }), ignoreCase: false } as AnswerCheckDraft;
}

export const newExpectedTool = (tool = ''): ExpectedToolDraft => ({ key: nextKey(), tool, args: [] });
export const newResult = (tool = ''): ResultDraft => ({ key: nextKey(), tool, kind: 'value', value: '', code: '', message: '' });
export const newContext = (role: ContextDraft['role'] = 'user'): ContextDraft => ({ key: nextKey(), role, text: '' });

/** A new case: the user's message to write, one expected tool (the one given, if any), this bundle's tools in scope. */
export function emptyDraft(tool = ''): CaseDraft {
  return {
    name: '',
    prompt: '',
    context: [],
    expect: 'tools',
    tools: [newExpectedTool(tool)],
    allowOthers: false,
    answer: [],
    scope: 'bundle',
    named: '',
    toolSearch: 'settings',
    results: [],
    otherCalls: 'run',
    approvals: 'deny',
    timeout: '',
  };
}

function argDraft(a: EvalArgCheck): ArgCheckDraft {
  const key = nextKey();
  switch (a.kind) {
    case 'jsonPathEquals':
      return { key, kind: a.kind, path: a.path, value: json(a.value) };
    case 'contains':
      return { key, kind: a.kind, text: a.text, ignoreCase: !!a.ignoreCase };
    case 'schema':
      return { key, kind: a.kind, schema: a.schema ? json(a.schema, 2) : '' };
  }
}

function answerDraft(a: EvalAnswerCheck): AnswerCheckDraft {
  const key = nextKey();
  switch (a.kind) {
    case 'contains':
      return { key, kind: a.kind, text: a.text, ignoreCase: !!a.ignoreCase };
    case 'regex':
      return { key, kind: a.kind, pattern: a.pattern, ignoreCase: !!a.ignoreCase };
    case 'judge':
      return { key, kind: a.kind, rubric: a.rubric, model: a.model ? modelValue(a.model) : '' };
  }
}

function resultDraft(r: EvalCannedResult): ResultDraft {
  if ('error' in r) return { key: nextKey(), tool: r.tool, kind: 'error', value: '', code: r.error.code, message: r.error.message };
  return { key: nextKey(), tool: r.tool, kind: 'value', value: json(r.value, 2), code: '', message: '' };
}

/** The form of a saved case, or of a body drafted from a chat turn. */
export function toDraft(body: EvalCaseBodyInput & { id?: string }): CaseDraft {
  return {
    ...(body.id ? { id: body.id } : {}),
    name: body.name,
    prompt: body.prompt,
    context: (body.context ?? []).map((c) => ({ key: nextKey(), role: c.role, text: c.text })),
    expect: body.expect.kind,
    tools: body.expect.kind === 'tools' ? body.expect.tools.map((t) => ({ key: nextKey(), tool: t.tool, args: t.args.map(argDraft) })) : [newExpectedTool()],
    allowOthers: body.expect.kind === 'tools' && !!body.expect.allowOthers,
    answer: (body.answer ?? []).map(answerDraft),
    scope: body.scope.tools,
    named: (body.scope.named ?? []).join('\n'),
    toolSearch: body.scope.toolSearch,
    results: (body.results ?? []).map(resultDraft),
    otherCalls: body.otherCalls ?? 'run',
    approvals: body.approvals ?? 'deny',
    timeout: body.timeoutMs !== undefined ? String(body.timeoutMs / 1000) : '',
  };
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

const TOOL_REF = /^([\p{L}\p{Nd}-]+\/)?[\p{L}\p{Nd}-]+$/u;
const NAMED = /^[\p{L}\p{Nd}-]+\/([\p{L}\p{Nd}-]+|\*)$/u;

/**
 * The body 'evals.save' takes (with the id of a saved case), or the issues that stop it:
 * empty required fields, JSON that does not parse, a pattern that is not a regular
 * expression, a named set that names nothing, and whatever else the contract's schema refuses.
 */
export function fromDraft(d: CaseDraft): { ok: true; body: EvalCaseBody & { id?: string } } | { ok: false; issues: DraftIssues } {
  const issues: DraftIssues = {};
  const need = (field: string, text: string) => {
    if (!text.trim()) issues[field] ??= is.required;
  };
  need('name', d.name);
  need('prompt', d.prompt);
  d.context.forEach((c, i) => need(`context.${i}`, c.text));

  // The tool rows are hidden (and not saved) when the case expects no tool.
  const tools = (d.expect === 'tools' ? d.tools : []).map((t, i) => {
    const ref = t.tool.trim();
    if (!ref) issues[`tools.${i}.tool`] = is.required;
    else if (!TOOL_REF.test(ref)) issues[`tools.${i}.tool`] = is.toolRef;
    const args: EvalArgCheck[] = [];
    t.args.forEach((a, j) => {
      const at = `tools.${i}.args.${j}`;
      if (a.kind === 'jsonPathEquals') {
        need(`${at}.path`, a.path);
        const v = a.value.trim() ? parseJson(a.value) : ({ ok: false, message: '' } as const);
        if (!a.value.trim()) issues[`${at}.value`] = is.required;
        else if (!v.ok) issues[`${at}.value`] = is.json(v.message);
        if (v.ok) args.push({ kind: a.kind, path: a.path.trim(), value: v.value });
      } else if (a.kind === 'contains') {
        need(`${at}.text`, a.text);
        args.push({ kind: a.kind, text: a.text, ...(a.ignoreCase ? { ignoreCase: true } : {}) });
      } else {
        if (!a.schema.trim()) {
          args.push({ kind: 'schema' });
          return;
        }
        const v = parseJson(a.schema);
        if (!v.ok) issues[`${at}.schema`] = is.json(v.message);
        else if (typeof v.value !== 'object' || v.value === null || Array.isArray(v.value)) issues[`${at}.schema`] = is.jsonObject;
        else args.push({ kind: 'schema', schema: v.value as Record<string, unknown> });
      }
    });
    return { tool: ref, args };
  });

  const answer: EvalAnswerCheck[] = [];
  d.answer.forEach((a, i) => {
    const at = `answer.${i}`;
    if (a.kind === 'contains') {
      need(`${at}.text`, a.text);
      answer.push({ kind: a.kind, text: a.text, ...(a.ignoreCase ? { ignoreCase: true } : {}) });
    } else if (a.kind === 'regex') {
      need(`${at}.pattern`, a.pattern);
      if (a.pattern) {
        try {
          new RegExp(a.pattern, a.ignoreCase ? 'ui' : 'u');
        } catch (e) {
          issues[`${at}.pattern`] = is.regex((e as Error).message);
        }
      }
      answer.push({ kind: a.kind, pattern: a.pattern, ...(a.ignoreCase ? { ignoreCase: true } : {}) });
    } else {
      need(`${at}.rubric`, a.rubric);
      const model = parseModel(a.model);
      answer.push({ kind: a.kind, rubric: a.rubric, ...(model ? { model } : {}) });
    }
  });

  const named = d.named
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (d.scope === 'named') {
    const bad = named.find((n) => !NAMED.test(n));
    if (bad) issues.named = is.named(bad);
    else if (named.length === 0) issues.named = is.namedEmpty;
  }

  const results: EvalCannedResult[] = [];
  d.results.forEach((r, i) => {
    const at = `results.${i}`;
    const ref = r.tool.trim();
    if (!ref) issues[`${at}.tool`] = is.required;
    else if (!TOOL_REF.test(ref)) issues[`${at}.tool`] = is.toolRef;
    if (r.kind === 'error') {
      need(`${at}.message`, r.message);
      results.push({ tool: ref, error: { code: r.code.trim() || 'TOOL_ERROR', message: r.message } });
      return;
    }
    if (!r.value.trim()) {
      issues[`${at}.value`] = is.required;
      return;
    }
    const v = parseJson(r.value);
    if (!v.ok) issues[`${at}.value`] = is.json(v.message);
    else results.push({ tool: ref, value: v.value });
  });

  let timeoutMs: number | undefined;
  if (d.timeout.trim()) {
    const sec = Number(d.timeout.trim());
    if (!Number.isFinite(sec) || sec < 1 || sec > 1800) issues.timeout = is.timeout;
    else timeoutMs = Math.round(sec * 1000);
  }

  if (Object.keys(issues).length) return { ok: false, issues };

  const candidate = {
    name: d.name.trim(),
    prompt: d.prompt,
    context: d.context.map((c) => ({ role: c.role, text: c.text })),
    expect: d.expect === 'none' ? { kind: 'none' as const } : { kind: 'tools' as const, tools, ...(d.allowOthers ? { allowOthers: true } : {}) },
    answer,
    scope: { tools: d.scope, ...(d.scope === 'named' ? { named } : {}), toolSearch: d.toolSearch },
    results,
    otherCalls: d.otherCalls,
    approvals: d.approvals,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
  const parsed = EvalCaseBodySchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues[fieldOf(issue.path)] ??= issue.message;
    return { ok: false, issues };
  }
  return { ok: true, body: { ...parsed.data, ...(d.id ? { id: d.id } : {}) } };
}

/** The form's field for a path of the contract's schema. */
function fieldOf(path: readonly PropertyKey[]): string {
  const [a, b, c, d, e, f] = path;
  if (a === 'name' || a === 'prompt') return a;
  if (a === 'timeoutMs') return 'timeout';
  if (a === 'context' && typeof b === 'number') return `context.${b}`;
  if (a === 'expect' && b === 'tools' && typeof c === 'number') {
    if (d === 'args' && typeof e === 'number') return `tools.${c}.args.${e}.${String(f ?? 'path')}`;
    return `tools.${c}.tool`;
  }
  if (a === 'answer' && typeof b === 'number') return `answer.${b}.${String(c ?? 'text')}`;
  if (a === 'scope') return 'named';
  if (a === 'results' && typeof b === 'number') return `results.${b}.${c === 'tool' ? 'tool' : 'value'}`;
  return 'form';
}

/** The first field with an issue, in the form's order (to move the focus there). */
export function firstIssue(issues: DraftIssues): string | undefined {
  const order = (k: string) => {
    const head = ['name', 'prompt', 'context', 'tools', 'answer', 'named', 'results', 'timeout', 'form'].indexOf(k.split('.')[0]!);
    return head * 1e6 + (k.match(/\d+/g) ?? []).reduce((n, d, i) => n + Number(d) * 1000 ** (1 - i), 0);
  };
  return Object.keys(issues).sort((a, b) => order(a) - order(b))[0];
}
