/**
 * Editing an HTTP tool proposed from an OpenAPI document before it is saved: leaving out
 * optional arguments (what the import panel's checkboxes and the size budget do) and filling
 * the servers' variables. Pure: the core and the renderer use the same code.
 */
import { parseTemplate, serverVariablesIn } from './http-spec';

type Json = Record<string, unknown>;

export interface ProposedArgument {
  name: string;
  required: boolean;
  description?: string;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The arguments of a proposed tool, in order, each required or optional. */
export function argumentsOf(tool: Json): ProposedArgument[] {
  const schema = tool.argSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    required: required.has(name),
    ...(isObject(s) && typeof s.description === 'string' ? { description: s.description } : {}),
  }));
}

/** Whether a template names one of the arguments. */
function names(template: unknown, drop: ReadonlySet<string>): boolean {
  if (typeof template !== 'string') return false;
  try {
    return parseTemplate(template).some((p) => 'placeholder' in p && p.placeholder.kind === 'arg' && drop.has(p.placeholder.path[0]!));
  } catch {
    return false;
  }
}

const OMIT = Symbol('omit');

function withoutIn(v: unknown, drop: ReadonlySet<string>): unknown {
  if (typeof v === 'string') return names(v, drop) ? OMIT : v;
  if (Array.isArray(v)) return v.map((x) => withoutIn(x, drop)).filter((x) => x !== OMIT);
  if (isObject(v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const kept = withoutIn(x, drop);
      if (kept !== OMIT) Object.defineProperty(out, k, { value: kept, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

function withoutKeys(record: unknown, drop: (key: string, value: unknown) => boolean): Json | undefined {
  if (!isObject(record)) return undefined;
  return Object.fromEntries(Object.entries(record).filter(([k, v]) => !drop(k, v)));
}

/**
 * A copy of the tool without the optional arguments named (required ones are kept): out of
 * argSchema, and every query value, header, form or multipart field and JSON property that
 * holds one.
 */
export function dropArguments(tool: Json, dropNames: Iterable<string>): Json {
  const optional = new Set(argumentsOf(tool).filter((a) => !a.required).map((a) => a.name));
  const drop = new Set([...dropNames].filter((n) => optional.has(n)));
  if (!drop.size) return tool;
  const schema = tool.argSchema as Json;
  const properties = withoutKeys(schema.properties, (k) => drop.has(k));
  const out: Json = { ...tool, argSchema: { ...schema, properties } };
  if (isObject(tool.http)) {
    const http: Json = { ...tool.http };
    const queryGone = new Set(Object.entries(isObject(http.query) ? http.query : {}).filter(([, v]) => names(v, drop)).map(([k]) => k));
    for (const k of ['query', 'headers'] as const) if (isObject(http[k])) http[k] = withoutKeys(http[k], (_k, v) => names(v, drop));
    if (isObject(http.queryEncoding)) http.queryEncoding = withoutKeys(http.queryEncoding, (k) => queryGone.has(k));
    const body = http.body;
    if (isObject(body)) {
      if (body.kind === 'json') {
        const template = withoutIn(body.template, drop);
        if (template === OMIT) delete http.body;
        else http.body = { ...body, template };
      } else if (body.kind === 'form' || body.kind === 'multipart') {
        const gone = new Set(Object.entries(isObject(body.fields) ? body.fields : {}).filter(([, v]) => names(v, drop)).map(([k]) => k));
        const next: Json = { ...body, fields: withoutKeys(body.fields, (k) => gone.has(k)) };
        if (isObject(body.encoding)) next.encoding = withoutKeys(body.encoding, (k) => gone.has(k));
        if (Array.isArray(body.files)) next.files = body.files.filter((f) => !gone.has(f as string));
        http.body = next;
      }
    }
    out.http = http;
  }
  return out;
}

const VALUE = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,252}$/;

/** The text with each `{name}` outside placeholders replaced; throws an Error naming a variable that is unfilled or not usable. */
export function fillVariables(text: string, values: Readonly<Record<string, string>>): string {
  for (const name of serverVariablesIn(text)) {
    const value = (Object.hasOwn(values, name) ? values[name] : undefined)?.trim() ?? '';
    if (value === '') throw new Error(`fill in the server variable {${name}} (e.g. your own domain)`);
    if (!VALUE.test(value)) throw new Error(`the value of {${name}} may hold only letters, digits, '.', '_', '~' and '-'`);
  }
  // Only text before the query and outside ${...} placeholders holds variables.
  const q = text.search(/[?#]/);
  const head = q >= 0 ? text.slice(0, q) : text;
  const tail = q >= 0 ? text.slice(q) : '';
  return head.replace(/(\$\$\{|\$\{[^}]*\}|\{([^{}\s/?#]{1,128})\})/g, (m, _all, name: string | undefined) => (name !== undefined && Object.hasOwn(values, name) ? values[name]!.trim() : m)) + tail;
}

/** A copy of the tool with its URL's server variables filled in. */
export function fillServerVariables(tool: Json, values: Readonly<Record<string, string>>): Json {
  if (!isObject(tool.http) || typeof tool.http.urlTemplate !== 'string') return tool;
  return { ...tool, http: { ...tool.http, urlTemplate: fillVariables(tool.http.urlTemplate, values) } };
}
