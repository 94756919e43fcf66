/**
 * The tool editor's draft: every field as the text a person types, the request body built
 * from it, and the errors of both the local checks and the server's answer, each keyed by
 * the form field it belongs to. Pure, so the rules are the ones in shared/ (the same code
 * the store uses to refuse a save).
 */
import type { ErrorInfo } from '../../../../shared/errors';
import { HTTP_METHODS, HttpLimitsSchema } from '../../../../shared/model/http-spec';
import { ToolPutBodySchema, type ToolType, type ToolView } from '../../../../shared/model/tool';
import { labelViolation } from '../../../../shared/model/validation';
import { editorStrings } from '../../../i18n/editor-strings';
import { buildScript, EMPTY_SCRIPT_FIELDS, SCRIPT_FIELDS, scriptFieldOf, scriptFieldsOf, type ScriptDraftFields } from '../script/script-draft';

export type HttpMethod = (typeof HTTP_METHODS)[number];
export type ResponseMode = 'json' | 'text' | 'sse' | 'binary';
export const RESPONSE_MODES: readonly ResponseMode[] = ['json', 'text', 'sse', 'binary'];
export const TOOL_TYPES: readonly ToolType[] = ['http', 'local', 'sequence', 'script'];

/** The script fields (script/script-draft.ts): the source and the limits as typed. */
export interface ToolDraft extends ScriptDraftFields {
  slug: string;
  version: string;
  displayName: string;
  description: string;
  /** Comma-separated. */
  tags: string;
  type: ToolType;
  functionId: string;
  method: HttpMethod;
  urlTemplate: string;
  responseMode: ResponseMode;
  /** Digits, or empty for the default. */
  timeoutMs: string;
  // JSON texts:
  query: string;
  headers: string;
  /** Empty: no body. */
  body: string;
  auth: string;
  limits: string;
  httpAdvanced: string;
  sequence: string;
  argSchema: string;
  outputSchema: string;
  /** A model's call waits for the user's approval. */
  requiresApproval: boolean;
}

export type ToolField = keyof ToolDraft;
/** 'form' holds errors that belong to no single field. */
export type ErrorKey = ToolField | 'form';
export type FieldErrors = Partial<Record<ErrorKey, string[]>>;

const JSON_FIELDS = ['query', 'headers', 'body', 'auth', 'limits', 'httpAdvanced', 'sequence', 'argSchema', 'outputSchema'] as const satisfies readonly ToolField[];
type JsonField = (typeof JSON_FIELDS)[number];
const HTTP_JSON: readonly JsonField[] = ['query', 'headers', 'body', 'auth', 'limits', 'httpAdvanced'];
/** Keys of the HTTP spec that have a field of their own; the rest go to httpAdvanced. */
const HTTP_OWN = new Set<string>(['method', 'urlTemplate', 'responseMode', 'timeoutMs', 'query', 'headers', 'body', 'auth', 'limits']);
const OWN_FIELDS = new Set<string>(['displayName', 'description', 'tags', 'type', 'argSchema', 'outputSchema', 'requiresApproval']);

export function isJsonField(f: ToolField): f is JsonField {
  return (JSON_FIELDS as readonly string[]).includes(f);
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

export function emptyDraft(): ToolDraft {
  return {
    slug: '',
    version: '1',
    displayName: '',
    description: '',
    tags: '',
    type: 'http',
    functionId: '',
    method: 'GET',
    urlTemplate: 'https://',
    responseMode: 'json',
    timeoutMs: '',
    query: '{}',
    headers: '{}',
    body: '',
    auth: pretty({ kind: 'none' }),
    limits: pretty(HttpLimitsSchema.parse({})),
    httpAdvanced: '{}',
    sequence: pretty({ steps: [{ id: 'first', tool: { bundleId: '', slug: '', version: '1' }, args: {} }] }),
    argSchema: pretty({ type: 'object', properties: {}, required: [] }),
    outputSchema: pretty({}),
    requiresApproval: false,
    ...EMPTY_SCRIPT_FIELDS,
  };
}

/**
 * A saved tool as a draft; for a new version the version is cleared (a version is immutable).
 * A script tool's source is not in its view: `scriptSource` is what tools.scriptSource read.
 */
export function draftFromTool(tool: ToolView, opts: { newVersion: boolean; scriptSource?: string }): ToolDraft {
  const base = emptyDraft();
  const h = tool.http;
  const advanced: Record<string, unknown> = {};
  if (h) for (const [k, v] of Object.entries(h)) if (!HTTP_OWN.has(k)) advanced[k] = v;
  return {
    ...base,
    slug: tool.slug,
    version: opts.newVersion ? '' : tool.version,
    displayName: tool.displayName,
    description: tool.description,
    tags: tool.tags.join(', '),
    type: tool.type,
    functionId: tool.local?.functionId ?? '',
    ...(h && {
      method: h.method,
      urlTemplate: h.urlTemplate,
      responseMode: h.responseMode,
      timeoutMs: String(h.timeoutMs),
      query: pretty(h.query),
      headers: pretty(h.headers),
      body: h.body ? pretty(h.body) : '',
      auth: pretty(h.auth),
      limits: pretty(h.limits),
      httpAdvanced: pretty(advanced),
    }),
    ...(tool.sequence && { sequence: pretty(tool.sequence) }),
    ...(tool.script && scriptFieldsOf(tool.script, opts.scriptSource ?? '')),
    argSchema: pretty(tool.argSchema),
    outputSchema: pretty(tool.outputSchema),
    requiresApproval: tool.requiresApproval ?? false,
  };
}

export function sameDraft(a: ToolDraft, b: ToolDraft): boolean {
  return (Object.keys(a) as ToolField[]).every((k) => a[k] === b[k]);
}

/** The fields that matter for a type: the others keep their text but are not sent. */
export function relevantFields(type: ToolType): Set<ToolField> {
  const common: ToolField[] = ['slug', 'version', 'displayName', 'description', 'tags', 'type', 'argSchema', 'outputSchema', 'requiresApproval'];
  const more: Record<ToolType, ToolField[]> = {
    local: ['functionId'],
    http: ['method', 'urlTemplate', 'responseMode', 'timeoutMs', ...HTTP_JSON],
    sequence: ['sequence'],
    mcp: [],
    script: [...SCRIPT_FIELDS],
  };
  return new Set([...common, ...more[type]]);
}

export function parseTags(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

function push(errors: FieldErrors, key: ErrorKey, message: string): void {
  const list = (errors[key] ??= []);
  if (!list.includes(message)) list.push(message);
}

/** Maps a path inside the tool body (zod's, or a server's 'http.query.city') to a form field. */
export function fieldOfPath(path: readonly PropertyKey[]): { field: ErrorKey; rest: string } {
  const p = path.map(String);
  const [head, second] = p;
  const at = (field: ErrorKey, used: number) => ({ field, rest: p.slice(used).join('.') });
  if (head === 'slug' || head === 'version' || head === 'sequence') return at(head, 1);
  if (head === 'local') return at('functionId', 2);
  if (head === 'script') return at(scriptFieldOf(p.slice(1)), 2);
  if (head === 'http') {
    if (second !== undefined && HTTP_OWN.has(second)) return at(second as ToolField, 2);
    return at('httpAdvanced', 1);
  }
  if (head !== undefined && OWN_FIELDS.has(head)) return at(head as ToolField, 1);
  return at('form', 0);
}

/** 'body.http.query.city', 'tags[0]' → ['http', 'query', 'city'], ['tags', '0']. */
export function splitServerPath(p: string): string[] {
  return p
    .replace(/^body(\.|$)/, '')
    .split(/[.[\]]/)
    .filter(Boolean);
}

export interface BuiltDraft {
  /** What 'tools.put' gets as `body` (built even when there are errors, for the tester). */
  body: Record<string, unknown>;
  errors: FieldErrors;
  /** Fields whose text is not JSON: saving is impossible until they are fixed. */
  jsonErrors: Set<ToolField>;
}

/** Parses the JSON fields, builds the body, and checks it with the shared rules. */
export function buildDraft(d: ToolDraft): BuiltDraft {
  const errors: FieldErrors = {};
  const jsonErrors = new Set<ToolField>();
  const relevant = relevantFields(d.type);
  const parsed: Partial<Record<JsonField, unknown>> = {};
  for (const f of JSON_FIELDS) {
    if (!relevant.has(f)) continue;
    if (f === 'body' && d.body.trim() === '') continue;
    try {
      parsed[f] = JSON.parse(d[f]);
    } catch (e) {
      jsonErrors.add(f);
      push(errors, f, editorStrings.tool.invalidJson((e as Error).message));
    }
  }

  for (const kind of ['slug', 'version'] as const) {
    const v = labelViolation(kind, d[kind]);
    if (v) push(errors, kind, v.message);
  }

  const body: Record<string, unknown> = {
    displayName: d.displayName,
    description: d.description,
    tags: parseTags(d.tags),
    type: d.type,
    argSchema: parsed.argSchema,
    outputSchema: parsed.outputSchema,
    isEnabled: true,
  };
  if (d.requiresApproval) body.requiresApproval = true;
  if (d.type === 'local') body.local = { functionId: d.functionId.trim() };
  if (d.type === 'sequence') body.sequence = parsed.sequence;
  if (d.type === 'http') {
    const advanced = parsed.httpAdvanced;
    const http: Record<string, unknown> = advanced && typeof advanced === 'object' && !Array.isArray(advanced) ? { ...advanced } : {};
    if (advanced !== undefined && (typeof advanced !== 'object' || advanced === null || Array.isArray(advanced))) {
      push(errors, 'httpAdvanced', editorStrings.tool.mustBeObject);
    }
    Object.assign(http, { method: d.method, urlTemplate: d.urlTemplate.trim(), responseMode: d.responseMode });
    for (const f of ['query', 'headers', 'body', 'auth', 'limits'] as const) if (parsed[f] !== undefined) http[f] = parsed[f];
    const timeout = d.timeoutMs.trim();
    if (timeout !== '') {
      if (/^\d+$/.test(timeout)) http.timeoutMs = Number(timeout);
      else push(errors, 'timeoutMs', editorStrings.tool.wholeMilliseconds);
    }
    body.http = http;
  }
  if (d.type === 'script') {
    const built = buildScript(d);
    body.script = built.script;
    for (const [f, message] of Object.entries(built.errors)) push(errors, f as ToolField, message);
  }

  const result = ToolPutBodySchema.safeParse(body);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const { field, rest } = fieldOfPath(issue.path);
      if (field !== 'form' && jsonErrors.has(field)) continue;
      push(errors, field, rest ? `${rest}: ${issue.message}` : issue.message);
    }
  }
  return { body, errors, jsonErrors };
}

/** The server's refusal, on the field it concerns. */
export function serverErrors(info: ErrorInfo): FieldErrors {
  const errors: FieldErrors = {};
  const details = (info.details ?? {}) as { field?: unknown; rule?: unknown; issues?: unknown };
  if (info.code === 'CONFLICT' && details.rule === 'exists') {
    push(errors, 'version', editorStrings.tool.conflict);
    return errors;
  }
  if (info.code === 'VALIDATION_FAILED') {
    const issues = Array.isArray(details.issues) ? (details.issues as { field?: unknown; path?: unknown; message?: unknown }[]) : [];
    for (const i of issues) {
      const where = typeof i.field === 'string' ? i.field : typeof i.path === 'string' ? i.path : '';
      const { field } = fieldOfPath(splitServerPath(where));
      push(errors, field, typeof i.message === 'string' ? i.message : info.message);
    }
    if (issues.length === 0 && typeof details.field === 'string') push(errors, fieldOfPath(splitServerPath(details.field)).field, info.message);
  }
  if (Object.keys(errors).length === 0) push(errors, 'form', info.message);
  return errors;
}

export function countErrors(errors: FieldErrors, only?: Set<ToolField>): number {
  return Object.entries(errors).reduce((n, [k, list]) => (only && k !== 'form' && !only.has(k as ToolField) ? n : n + (list?.length ?? 0)), 0);
}
