/**
 * HTTP tools from an OpenAPI 3 document: every operation proposed as a ToolPutBody the user
 * picks from (and may edit) before saving.
 *
 * Reading the document:
 * - JSON or YAML, at most MAX_OPENAPI_BYTES. YAML through the `yaml` package with few
 *   aliases allowed (MAX_YAML_ALIASES: an alias bomb — "billion laughs" — is refused while
 *   parsing) and one document only. The parsed value is then walked without recursion with a
 *   budget of nodes and depth, so a deep or huge document is refused before anything
 *   recursive touches it.
 * - Anything that is not an object with `openapi: "3.x.y"` is refused with a clear message
 *   (Swagger 2.0 is named as such: convert it to OpenAPI 3 first).
 *
 * Each path + method (get, put, post, delete, patch, head; options and trace have no HTTP
 * tool method and are left out) becomes one proposal:
 * - slug: the operationId in slug form (`listPets` → `list-pets`), else method + path; made
 *   unique within the document (`-2`, `-3`);
 * - urlTemplate: the first server URL (server variables replaced by their defaults; the
 *   operation's or path's own `servers` win) + the path, `{name}` → `${name}`. A document
 *   with no absolute http(s) server gets `https://example.invalid` and a warning;
 * - path parameters → `${arg}` in the path; query → `http.query`; header → `http.headers`;
 *   cookie → one Cookie header; an application/json (or +json) body → a JSON template whose
 *   top-level properties are arguments; a form body → form fields; text/plain → a text body;
 * - argSchema: the parameters' and fields' schemas (description, enum, ... kept; `$ref`s to
 *   the document inlined at most MAX_REF_DEPTH deep, recursion cut; OpenAPI 3.0's
 *   `nullable`, `example` and boolean exclusiveMinimum/Maximum converted to JSON Schema
 *   2020-12; unknown keywords dropped). Arrays and objects in the URL or headers become one
 *   string argument (with a warning), as URL parts take scalars only.
 *   Decision: OPTIONAL parameters and body fields are left out, each named in the warnings:
 *   an HTTP tool renders every placeholder it names and refuses a call that does not give
 *   one, so an optional parameter would become a required one. Every argument in argSchema
 *   is therefore in `required`.
 * - auth from the operation's (else the document's) first security requirement: apiKey in
 *   a header or query → apiKey; apiKey in a cookie → the Cookie header; http bearer → bearer;
 *   http basic → basic (username to fill in); oauth2 with a clientCredentials flow → oauth2
 *   client_credentials (clientId to fill in); other OAuth2 flows and OpenID Connect → bearer
 *   with a token the user pastes. Secret names are proposed (GITHUB_TOKEN, ...).
 * - responseMode json (outputSchema `{}`) unless the success responses are text only or
 *   have no body (text, outputSchema `{type: 'string'}`). The documented response schema is
 *   not made the outputSchema: real APIs often differ from their documents, and a tool's
 *   output is validated.
 * Proposals pass ToolPutBodySchema, and their argSchemas compile (checked here).
 */
import { parse as parseYaml } from 'yaml';
import { AppError } from '../../../shared/errors';
import { escapeTemplateText, proposeSecretName, slugify, toArgName, uniqueSlug } from '../../../shared/model/curl';
import type { HttpAuth } from '../../../shared/model/http-spec';
import { ToolPutBodySchema, type JsonSchemaObject } from '../../../shared/model/tool';
import { OpenApiImportSchema, type OpenApiImport, type OpenApiOperation } from '../../../shared/model/transfer';
import { schemaCompileViolation } from '../store/schema-check';

export const MAX_OPENAPI_BYTES = 4 * 1024 * 1024;
/** Operations proposed at most; the rest are named in a warning. */
export const MAX_OPERATIONS = 1000;
/** YAML aliases allowed: real API documents rarely use any. */
export const MAX_YAML_ALIASES = 50;
const MAX_DOC_NODES = 500_000;
const MAX_DOC_DEPTH = 256;
/** `$ref`s followed inside one another, at most. */
export const MAX_REF_DEPTH = 16;
/** Schema nodes one argSchema may be built from (SCHEMA_LIMITS allows 2000 objects). */
const SCHEMA_NODE_BUDGET = 1500;
const SCHEMA_MAX_DEPTH = 24;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;
const PLACEHOLDER_HOST = 'https://example.invalid';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);
/** OpenAPI: header parameters with these names SHALL be ignored. */
const IGNORED_HEADER_PARAMS = new Set(['accept', 'content-type', 'authorization']);

type Json = Record<string, unknown>;

const refused = (message: string): never => {
  throw new AppError('VALIDATION_FAILED', message);
};

function isObject(v: unknown): v is Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function own(o: Json, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---- reading the text ------------------------------------------------------------------------

function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 300);
}

function readDocument(text: string): unknown {
  if (typeof text !== 'string') refused('the OpenAPI document must be text');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_OPENAPI_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `the document is ${bytes} bytes; at most ${MAX_OPENAPI_BYTES} (4 MiB) are accepted`, { bytes, limit: MAX_OPENAPI_BYTES });
  }
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') refused('the document is empty: paste an OpenAPI 3 document (JSON or YAML)');
  let jsonError: string | undefined;
  if (/^\s*[{[]/.test(body)) {
    try {
      return JSON.parse(body);
    } catch (e) {
      jsonError = (e as Error).message;
    }
  }
  try {
    return parseYaml(body, { maxAliasCount: MAX_YAML_ALIASES, uniqueKeys: true, logLevel: 'error', prettyErrors: true });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/alias count|resource exhaustion/i.test(msg)) refused(`the YAML uses too many aliases (more than ${MAX_YAML_ALIASES} expansions): refused as a possible alias bomb`);
    if (e instanceof RangeError || /call stack/i.test(msg)) refused('the document is nested too deeply to read');
    return refused(jsonError !== undefined ? `the document is not valid JSON: ${firstLine(jsonError)}` : `the document is neither JSON nor valid YAML: ${firstLine(msg)}`);
  }
}

/** Refuses values JSON cannot carry, and documents too large or deep, without recursion. */
function checkShape(doc: unknown): void {
  const stack: [unknown, number][] = [[doc, 1]];
  let nodes = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) refused('the document holds a number JSON cannot carry (.inf or .nan)');
      continue;
    }
    if (++nodes > MAX_DOC_NODES) refused(`the document is too large: more than ${MAX_DOC_NODES} objects and arrays`);
    if (depth > MAX_DOC_DEPTH) refused(`the document is nested too deeply: more than ${MAX_DOC_DEPTH} levels`);
    if (Array.isArray(v)) for (const x of v) stack.push([x, depth + 1]);
    else if (isObject(v)) for (const x of Object.values(v)) stack.push([x, depth + 1]);
    else refused(`the document holds a value JSON cannot carry (${v instanceof Uint8Array ? 'binary data' : typeof v})`);
  }
}

function checkVersion(doc: unknown): Json {
  if (!isObject(doc)) return refused(`this is not an OpenAPI document: it is ${Array.isArray(doc) ? 'an array' : doc === null ? 'null' : `a ${typeof doc}`}, not an object with "openapi": "3.x.y"`);
  const swagger = own(doc, 'swagger');
  if (swagger !== undefined && own(doc, 'openapi') === undefined) {
    return refused(`this is Swagger ${String(swagger).slice(0, 10)}; convert it to OpenAPI 3 first (for example with swagger2openapi, or by importing it into editor.swagger.io and saving as OpenAPI 3)`);
  }
  const v = own(doc, 'openapi');
  if (v === undefined) return refused('this is not an OpenAPI 3 document: it has no "openapi": "3.x.y" field');
  if (typeof v !== 'string') return refused(`"openapi" must be a string such as "3.0.3": got ${JSON.stringify(v)}${typeof v === 'number' ? ' (in YAML, quote it: openapi: "3.0.3")' : ''}`);
  if (!/^3\.\d+\.\d+(?:-[\w.]+)?$/.test(v)) return refused(`only OpenAPI 3 documents are supported: "openapi" is ${JSON.stringify(v.slice(0, 20))}, not "3.x.y"`);
  return doc;
}

// ---- references ------------------------------------------------------------------------------

class Ctx {
  constructor(readonly doc: Json) {}

  /** The value at a local `#/...` reference, or undefined. */
  lookup(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (pointer === '') return this.doc;
    if (!pointer.startsWith('/')) return undefined;
    let cur: unknown = this.doc;
    for (const raw of pointer.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
      else if (isObject(cur)) cur = own(cur, key);
      else return undefined;
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  /** Follows `$ref` chains of a non-schema object (parameter, body, path item, scheme). */
  deref(v: unknown, warnings: string[]): Json | undefined {
    let cur = v;
    for (let hops = 0; hops <= MAX_REF_DEPTH; hops++) {
      if (!isObject(cur)) return undefined;
      const ref = own(cur, '$ref');
      if (typeof ref !== 'string') return cur;
      const next = this.lookup(ref);
      if (next === undefined) {
        warnings.push(`the reference ${ref.slice(0, 100)} could not be resolved (only references inside the document are followed)`);
        return undefined;
      }
      cur = next;
    }
    warnings.push('a chain of references is too long (or loops): left out');
    return undefined;
  }
}

// ---- schemas -------------------------------------------------------------------------------

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const NUMBERS = ['minimum', 'maximum', 'multipleOf'];
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains'];
const STRINGS = ['format', 'title', 'contentMediaType', 'contentEncoding'];
const BOOLEANS = ['uniqueItems', 'readOnly', 'writeOnly', 'deprecated'];

interface SchemaBudget {
  nodes: number;
  notes: Set<string>;
}

/**
 * An OpenAPI schema as a self-contained JSON Schema 2020-12: references inlined (bounded,
 * recursion cut), 3.0 keywords converted, unknown ones dropped.
 */
function convertSchema(ctx: Ctx, schema: unknown, budget: SchemaBudget, refs: string[] = [], depth = 0): JsonSchemaObject {
  if (schema === true || schema === undefined) return {};
  if (schema === false) return { not: {} };
  if (!isObject(schema)) return {};
  if (++budget.nodes > SCHEMA_NODE_BUDGET) {
    budget.notes.add('a schema is too large: parts of it were replaced by {} (any value)');
    return {};
  }
  if (depth > SCHEMA_MAX_DEPTH) {
    budget.notes.add('a schema is nested too deeply: its deepest parts were replaced by {} (any value)');
    return {};
  }
  const ref = own(schema, '$ref');
  if (typeof ref === 'string') {
    if (refs.includes(ref) || refs.length >= MAX_REF_DEPTH) {
      budget.notes.add(`the recursive schema ${ref.slice(0, 100)} was cut at its second use (replaced by {})`);
      return {};
    }
    const target = ctx.lookup(ref);
    if (target === undefined) {
      budget.notes.add(`the schema reference ${ref.slice(0, 100)} could not be resolved: replaced by {}`);
      return {};
    }
    const inlined = convertSchema(ctx, target, budget, [...refs, ref], depth + 1);
    // 3.1 allows keywords beside $ref (description, ...): they win.
    const beside = Object.keys(schema).filter((k) => k !== '$ref');
    if (!beside.length) return inlined;
    const rest = convertSchema(ctx, Object.fromEntries(beside.map((k) => [k, schema[k]])), budget, refs, depth + 1);
    return { ...inlined, ...rest };
  }
  const out: JsonSchemaObject = {};
  const type = own(schema, 'type');
  let types: string[] | undefined;
  if (typeof type === 'string' && TYPES.has(type)) types = [type];
  else if (Array.isArray(type)) types = [...new Set(type.filter((t): t is string => typeof t === 'string' && TYPES.has(t)))];
  if (types && own(schema, 'nullable') === true && !types.includes('null')) types.push('null');
  if (types && types.length) out.type = types.length === 1 ? types[0] : types;
  const enumValues = own(schema, 'enum');
  if (Array.isArray(enumValues)) out.enum = own(schema, 'nullable') === true && !enumValues.includes(null) ? [...enumValues, null] : enumValues;
  if (Object.hasOwn(schema, 'const')) out.const = schema.const;
  if (Object.hasOwn(schema, 'default')) out.default = schema.default;
  const description = str(own(schema, 'description'));
  if (description !== undefined) out.description = description.slice(0, 4000);
  for (const k of STRINGS) if (typeof own(schema, k) === 'string') out[k] = schema[k];
  for (const k of BOOLEANS) if (typeof own(schema, k) === 'boolean') out[k] = schema[k];
  for (const k of NUMBERS) if (typeof own(schema, k) === 'number') out[k] = schema[k];
  for (const k of COUNTS) {
    const n = own(schema, k);
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[k] = n;
  }
  for (const k of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const v = own(schema, k);
    const bound = k === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    if (typeof v === 'number') out[k] = v;
    else if (v === true && typeof out[bound] === 'number') {
      out[k] = out[bound];
      delete out[bound];
    }
  }
  const pattern = own(schema, 'pattern');
  if (typeof pattern === 'string') {
    try {
      new RegExp(pattern, 'u');
      out.pattern = pattern;
    } catch {
      budget.notes.add(`the pattern ${JSON.stringify(pattern.slice(0, 60))} is not a JavaScript regular expression: left out`);
    }
  }
  const examples = own(schema, 'examples');
  if (Array.isArray(examples)) out.examples = examples.slice(0, 5);
  else if (Object.hasOwn(schema, 'example')) out.examples = [schema.example];
  const required = own(schema, 'required');
  if (Array.isArray(required)) {
    const names = [...new Set(required.filter((r): r is string => typeof r === 'string'))];
    if (names.length) out.required = names;
  }
  const dependentRequired = own(schema, 'dependentRequired');
  if (isObject(dependentRequired)) {
    const d: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(dependentRequired)) if (Array.isArray(v) && v.every((x) => typeof x === 'string')) d[k] = v as string[];
    out.dependentRequired = d;
  }
  for (const k of SCHEMA_MAPS) {
    const m = own(schema, k);
    if (!isObject(m)) continue;
    const converted: Record<string, JsonSchemaObject> = {};
    for (const [name, sub] of Object.entries(m)) Object.defineProperty(converted, name, { value: convertSchema(ctx, sub, budget, refs, depth + 1), enumerable: true, writable: true, configurable: true });
    out[k] = converted;
  }
  for (const k of SCHEMA_LISTS) {
    const list = own(schema, k);
    if (Array.isArray(list) && list.length) out[k] = list.map((sub) => convertSchema(ctx, sub, budget, refs, depth + 1));
  }
  for (const k of SCHEMA_ONE) {
    if (!Object.hasOwn(schema, k)) continue;
    const sub = schema[k];
    if (k === 'items' && Array.isArray(sub)) out.prefixItems = sub.map((x) => convertSchema(ctx, x, budget, refs, depth + 1));
    else if (typeof sub === 'boolean' || isObject(sub)) out[k] = typeof sub === 'boolean' ? sub : convertSchema(ctx, sub, budget, refs, depth + 1);
  }
  return out;
}

/** The top-level properties and required names of an object schema, allOf members merged. */
function objectShape(ctx: Ctx, schema: unknown, depth = 0): { properties: [string, unknown][]; required: Set<string>; isObject: boolean } {
  const shape = { properties: [] as [string, unknown][], required: new Set<string>(), isObject: false };
  let s = schema;
  for (let hops = 0; hops < MAX_REF_DEPTH && isObject(s) && typeof own(s, '$ref') === 'string'; hops++) s = ctx.lookup(own(s, '$ref') as string);
  if (!isObject(s) || depth > 8) return shape;
  const props = own(s, 'properties');
  if (isObject(props)) {
    shape.isObject = true;
    for (const [k, v] of Object.entries(props)) shape.properties.push([k, v]);
  }
  const req = own(s, 'required');
  if (Array.isArray(req)) for (const r of req) if (typeof r === 'string') shape.required.add(r);
  const all = own(s, 'allOf');
  if (Array.isArray(all)) {
    for (const part of all) {
      const sub = objectShape(ctx, part, depth + 1);
      if (sub.isObject) shape.isObject = true;
      for (const p of sub.properties) if (!shape.properties.some(([k]) => k === p[0])) shape.properties.push(p);
      for (const r of sub.required) shape.required.add(r);
    }
  }
  if (own(s, 'type') === 'object') shape.isObject = true;
  return shape;
}

// ---- servers -------------------------------------------------------------------------------

function serverUrls(list: unknown): { absolute: string[]; relative: boolean } {
  const absolute: string[] = [];
  let relative = false;
  if (!Array.isArray(list)) return { absolute, relative };
  for (const s of list) {
    if (!isObject(s) || typeof own(s, 'url') !== 'string') continue;
    let url = own(s, 'url') as string;
    const vars = own(s, 'variables');
    url = url.replace(/\{([^{}]+)\}/g, (m, name: string) => {
      const v = isObject(vars) ? own(vars, name) : undefined;
      const d = isObject(v) ? own(v, 'default') : undefined;
      return typeof d === 'string' || typeof d === 'number' ? String(d) : m;
    });
    if (/^https?:\/\//i.test(url) && !/[{}\s]/.test(url)) {
      try {
        const u = new URL(url);
        absolute.push(`${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`);
      } catch {
        // not a URL: skipped
      }
    } else if (url.startsWith('/') || url === '') relative = true;
  }
  return { absolute: [...new Set(absolute)], relative };
}

function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

// ---- operations ----------------------------------------------------------------------------

class Args {
  readonly properties: Record<string, JsonSchemaObject> = {};
  readonly order: string[] = [];
  add(raw: string, schema: JsonSchemaObject): string {
    const base = toArgName(raw);
    let name = base;
    for (let n = 2; Object.hasOwn(this.properties, name); n++) name = `${base.slice(0, 60)}_${n}`;
    Object.defineProperty(this.properties, name, { value: schema, enumerable: true, writable: true, configurable: true });
    this.order.push(name);
    return name;
  }
  schema(): JsonSchemaObject {
    return { type: 'object', properties: this.properties, required: [...this.order], additionalProperties: false };
  }
}

interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  raw: Json;
}

function paramsOf(ctx: Ctx, pathItem: Json, op: Json, warnings: string[]): Param[] {
  const byKey = new Map<string, Param>();
  for (const list of [own(pathItem, 'parameters'), own(op, 'parameters')]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const p = ctx.deref(item, warnings);
      const name = p && str(own(p, 'name'));
      const where = p && str(own(p, 'in'));
      if (!p || name === undefined || name === '' || !['path', 'query', 'header', 'cookie'].includes(where ?? '')) {
        if (p) warnings.push('a parameter without a valid name and "in" was left out');
        continue;
      }
      byKey.set(`${where}\u0000${name}`, { name, in: where as Param['in'], required: where === 'path' || own(p, 'required') === true, raw: p });
    }
  }
  return [...byKey.values()];
}

/** A parameter's argument schema: scalars as they are; arrays and objects become one string. */
function paramSchema(ctx: Ctx, p: Param, budget: SchemaBudget, warnings: string[]): JsonSchemaObject {
  let raw = own(p.raw, 'schema');
  const content = own(p.raw, 'content');
  if (raw === undefined && isObject(content)) {
    const first = Object.values(content)[0];
    raw = isObject(first) ? own(first, 'schema') : undefined;
  }
  let schema = convertSchema(ctx, raw, budget);
  const t = schema.type;
  const structured = t === 'array' || t === 'object' || (Array.isArray(t) && (t.includes('array') || t.includes('object'))) || (t === undefined && (schema.properties !== undefined || schema.items !== undefined));
  if (structured || isObject(content)) {
    warnings.push(`the ${p.in} parameter '${p.name}' is ${structured ? 'an array or object' : 'serialised content'}: it is sent as one string (e.g. comma-separated values)`);
    schema = { type: 'string' };
  }
  const description = str(own(p.raw, 'description'));
  if (description !== undefined) schema.description = description.slice(0, 4000);
  if (own(p.raw, 'deprecated') === true) schema.deprecated = true;
  if (Object.hasOwn(p.raw, 'example') && !structured) schema.examples = [p.raw.example];
  return schema;
}

const CONTROL = /\p{Cc}/gu;
const CONTROL_BUT_LINES = /[^\P{Cc}\n\t]/gu;

function pickBody(content: Json): { type: string; media: Json } | undefined {
  const entries = Object.entries(content).filter((e): e is [string, Json] => isObject(e[1]));
  const find = (test: (t: string) => boolean) => entries.find(([t]) => test(t.toLowerCase().split(';')[0]!.trim()));
  const hit =
    find((t) => t === 'application/json') ??
    find((t) => /^[\w.-]+\/[\w.-]+\+json$/.test(t) || t.endsWith('/json')) ??
    find((t) => t === 'application/x-www-form-urlencoded') ??
    find((t) => t.startsWith('text/'));
  return hit && { type: hit[0].toLowerCase().split(';')[0]!.trim(), media: hit[1] };
}

function isScalarSchema(s: JsonSchemaObject): boolean {
  const t = s.type;
  return !(t === 'array' || t === 'object' || (Array.isArray(t) && (t.includes('array') || t.includes('object'))));
}

interface AuthChoice {
  auth: HttpAuth;
  cookie?: string;
}

function authOf(ctx: Ctx, op: Json, serverUrl: string | undefined, nameHost: string, warnings: string[]): AuthChoice {
  const security = own(op, 'security') ?? own(ctx.doc, 'security');
  if (!Array.isArray(security) || security.length === 0) return { auth: { kind: 'none' } };
  const components = own(ctx.doc, 'components');
  const schemes = isObject(components) ? own(components, 'securitySchemes') : undefined;
  const secret = (what: string) => proposeSecretName(nameHost, what);
  const unsupported: string[] = [];
  for (const requirement of security) {
    if (!isObject(requirement)) continue;
    const names = Object.keys(requirement);
    if (names.length === 0) return { auth: { kind: 'none' } }; // {} = anonymous access allowed
    for (const name of names) {
      const scheme = isObject(schemes) ? ctx.deref(own(schemes, name), warnings) : undefined;
      if (!scheme) {
        unsupported.push(`'${name}' (not defined in components.securitySchemes)`);
        continue;
      }
      const others = names.filter((n) => n !== name);
      if (others.length) warnings.push(`the security requirement also needs ${others.map((n) => `'${n}'`).join(', ')}: only '${name}' was set up`);
      const type = str(own(scheme, 'type'));
      if (type === 'apiKey') {
        const keyName = str(own(scheme, 'name'));
        const where = str(own(scheme, 'in'));
        if (!keyName) {
          unsupported.push(`'${name}' (an apiKey scheme without a name)`);
          continue;
        }
        if (where === 'header' && HEADER_NAME.test(keyName)) return { auth: { kind: 'apiKey', in: 'header', name: keyName.slice(0, 128), secret: secret('API_KEY') } };
        if (where === 'query') return { auth: { kind: 'apiKey', in: 'query', name: keyName.slice(0, 128), secret: secret('API_KEY') } };
        if (where === 'cookie' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(keyName)) {
          return { auth: { kind: 'none' }, cookie: `${keyName}=\${secret:${secret('API_KEY')}}` };
        }
        unsupported.push(`'${name}' (an apiKey in ${where ?? 'nowhere'})`);
        continue;
      }
      if (type === 'http') {
        const s = str(own(scheme, 'scheme'))?.toLowerCase();
        if (s === 'bearer') return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
        if (s === 'basic') {
          warnings.push('basic auth: fill in auth.username');
          return { auth: { kind: 'basic', username: '', passwordSecret: secret('PASSWORD') } };
        }
        unsupported.push(`'${name}' (HTTP ${s ?? 'unknown'} authentication)`);
        continue;
      }
      if (type === 'oauth2') {
        const flows = own(scheme, 'flows');
        const cc = isObject(flows) ? own(flows, 'clientCredentials') : undefined;
        const tokenUrl = isObject(cc) ? absoluteUrl(str(own(cc, 'tokenUrl')), serverUrl) : undefined;
        if (tokenUrl) {
          const scopes = Array.isArray(requirement[name]) ? (requirement[name] as unknown[]).filter((x): x is string => typeof x === 'string') : [];
          warnings.push('OAuth2 client credentials: fill in auth.clientId, and save the client secret under the proposed name');
          return {
            auth: { kind: 'oauth2', grant: 'client_credentials', tokenUrl, clientId: 'CLIENT-ID', clientSecret: secret('CLIENT_SECRET'), ...(scopes.length ? { scope: scopes.join(' ').slice(0, 1024) } : {}) },
          };
        }
        warnings.push(`'${name}' is OAuth2 without a client-credentials flow: set up as a bearer token you paste as the secret`);
        return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
      }
      if (type === 'openIdConnect') {
        warnings.push(`'${name}' is OpenID Connect: set up as a bearer token you paste as the secret`);
        return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
      }
      unsupported.push(`'${name}' (type ${type ?? 'missing'})`);
    }
  }
  if (unsupported.length) warnings.push(`security left out: ${unsupported.join(', ')}; set up auth by hand`);
  return { auth: { kind: 'none' } };
}

function absoluteUrl(url: string | undefined, base: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = base ? new URL(url, `${base}/`) : new URL(url);
    return /^https?:$/.test(u.protocol) && u.href.length <= 2048 ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function responseMode(ctx: Ctx, op: Json, warnings: string[]): 'json' | 'text' {
  const responses = own(op, 'responses');
  if (!isObject(responses)) return 'json';
  const keys = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort();
  const picked = keys.length ? keys : Object.hasOwn(responses, 'default') ? ['default'] : [];
  const types: string[] = [];
  for (const k of picked) {
    const r = ctx.deref(responses[k], warnings);
    const content = r && own(r, 'content');
    if (isObject(content)) types.push(...Object.keys(content).map((t) => t.toLowerCase()));
  }
  if (types.some((t) => t.includes('json'))) return 'json';
  if (types.length === 0) return picked.length ? 'text' : 'json';
  return 'text';
}

function sanitiseLine(s: string, max: number): string {
  return s.replace(CONTROL, ' ').trim().slice(0, max);
}

interface OperationInput {
  path: string;
  method: (typeof METHODS)[number];
  op: Json;
  pathItem: Json;
  docServers: { absolute: string[]; relative: boolean };
  slugs: Set<string>;
  hosts: Set<string>;
  nameHost: string;
}

function buildOperation(ctx: Ctx, o: OperationInput): OpenApiOperation {
  const { path, method, op, pathItem } = o;
  const warnings: string[] = [];
  const METHOD = method.toUpperCase() as Uppercase<typeof method>;
  const budget: SchemaBudget = { nodes: 0, notes: new Set() };
  const args = new Args();

  // Server: the operation's, the path's, then the document's.
  const own1 = serverUrls(own(op, 'servers'));
  const own2 = serverUrls(own(pathItem, 'servers'));
  const servers = own1.absolute.length ? own1 : own2.absolute.length ? own2 : o.docServers;
  for (const s of [...own1.absolute, ...own2.absolute]) o.hosts.add(hostOf(s));
  const serverUrl = servers.absolute[0];
  if (!serverUrl) warnings.push(`the document names no absolute http(s) server: the URL starts with ${PLACEHOLDER_HOST}; put the API's host there (and add it to Allowed hosts)`);
  const base = serverUrl ?? PLACEHOLDER_HOST;

  const params = paramsOf(ctx, pathItem, op, warnings);
  const optional: string[] = [];

  // Path: {name} → ${arg}; literal text escaped.
  const pathParams = new Map(params.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  let urlPath = '';
  let last = 0;
  for (const m of path.matchAll(/\{([^{}]+)\}/g)) {
    urlPath += escapeTemplateText(path.slice(last, m.index));
    const name = m[1]!;
    const p = pathParams.get(name);
    let schema: JsonSchemaObject;
    if (p) {
      schema = paramSchema(ctx, p, budget, warnings);
      pathParams.delete(name);
    } else {
      warnings.push(`the path parameter '${name}' is not declared: it became a string argument`);
      schema = { type: 'string' };
    }
    urlPath += `\${${args.add(name, schema)}}`;
    last = m.index + m[0].length;
  }
  urlPath += escapeTemplateText(path.slice(last));
  for (const name of pathParams.keys()) warnings.push(`the path parameter '${name}' is not in the path: left out`);

  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of params) {
    if (p.in === 'path') continue;
    if (p.in === 'header' && IGNORED_HEADER_PARAMS.has(p.name.toLowerCase())) continue;
    if (!p.required) {
      optional.push(`${p.in} ${p.name}`);
      continue;
    }
    if (p.in === 'header' && (!HEADER_NAME.test(p.name) || RESERVED_HEADERS.has(p.name.toLowerCase()))) {
      warnings.push(`the header parameter '${p.name.slice(0, 64)}' cannot be set by a tool: left out`);
      continue;
    }
    if (p.in === 'query' && p.name.length > 256) {
      warnings.push('a query parameter with a name over 256 characters was left out');
      continue;
    }
    if (p.in === 'cookie' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(p.name)) {
      warnings.push(`the cookie parameter '${p.name.slice(0, 64)}' has a name a cookie cannot have: left out`);
      continue;
    }
    const arg = args.add(p.name, paramSchema(ctx, p, budget, warnings));
    if (p.in === 'query') query[p.name] = `\${${arg}}`;
    else if (p.in === 'header') headers[p.name] = `\${${arg}}`;
    else cookies.push(`${p.name}=\${${arg}}`);
  }

  // Body.
  let body: Json | undefined;
  const requestBody = own(op, 'requestBody') !== undefined ? ctx.deref(own(op, 'requestBody'), warnings) : undefined;
  const content = requestBody && own(requestBody, 'content');
  if (requestBody && isObject(content) && Object.keys(content).length) {
    const picked = pickBody(content);
    if (METHOD === 'GET' || METHOD === 'HEAD') warnings.push(`a ${METHOD} request cannot have a body: the request body was left out`);
    else if (!picked) warnings.push(`the request body (${Object.keys(content).slice(0, 3).join(', ')}) is not JSON, a form or text: add it by hand`);
    else {
      const rawSchema = own(picked.media, 'schema');
      const shape = objectShape(ctx, rawSchema);
      if (picked.type === 'application/x-www-form-urlencoded' || picked.type.startsWith('text/')) {
        if (picked.type.startsWith('text/')) {
          body = { kind: 'text', template: `\${${args.add('body', { type: 'string', description: `The request body (${picked.type}).` })}}`, contentType: picked.type };
        } else if (shape.properties.length) {
          const fields: Record<string, string> = {};
          for (const [name, sub] of shape.properties) {
            if (!shape.required.has(name)) {
              optional.push(`form field ${name}`);
              continue;
            }
            let s = convertSchema(ctx, sub, budget);
            if (!isScalarSchema(s)) {
              warnings.push(`the form field '${name}' is an array or object: it is sent as one string`);
              s = { type: 'string', ...(typeof s.description === 'string' ? { description: s.description } : {}) };
            }
            Object.defineProperty(fields, name.slice(0, 256), { value: `\${${args.add(name, s)}}`, enumerable: true, writable: true, configurable: true });
          }
          body = { kind: 'form', fields };
        } else warnings.push('the form body has no properties: add its fields by hand');
      } else if (shape.isObject && shape.properties.length) {
        const template: Json = {};
        for (const [name, sub] of shape.properties) {
          if (!shape.required.has(name)) {
            optional.push(`body field ${name}`);
            continue;
          }
          Object.defineProperty(template, name, { value: `\${${args.add(name, convertSchema(ctx, sub, budget))}}`, enumerable: true, writable: true, configurable: true });
        }
        body = { kind: 'json', template };
      } else {
        const s = convertSchema(ctx, rawSchema, budget);
        const description = str(own(requestBody, 'description'));
        body = { kind: 'json', template: `\${${args.add('body', { ...s, ...(description ? { description: description.slice(0, 4000) } : {}) })}}` };
      }
    }
  }
  if (optional.length) {
    warnings.push(`optional parameters left out (an HTTP tool must be given every placeholder it names, so they would become required): ${optional.slice(0, 20).join(', ')}${optional.length > 20 ? `, and ${optional.length - 20} more` : ''}`);
  }

  const { auth, cookie } = authOf(ctx, op, serverUrl, o.nameHost, warnings);
  if (cookie) cookies.push(cookie);
  if (cookies.length) headers['Cookie'] = cookies.join('; ');

  const mode = responseMode(ctx, op, warnings);
  const summary = str(own(op, 'summary')) ?? '';
  const operationId = str(own(op, 'operationId'));
  const displayName = sanitiseLine(summary || operationId || `${METHOD} ${path}`, 128) || `${METHOD} ${path}`.slice(0, 128);
  const description = (str(own(op, 'description')) ?? summary).replace(CONTROL_BUT_LINES, ' ').slice(0, 16_384);
  const tags = [...new Set((Array.isArray(own(op, 'tags')) ? (op.tags as unknown[]) : []).filter((t): t is string => typeof t === 'string').map((t) => slugify(t, '')).filter(Boolean))].slice(0, 32);
  const slug = uniqueSlug(slugify(operationId ?? '', '') || slugify(`${method} ${path}`, method), o.slugs);

  let argSchema = args.schema();
  const problem = schemaCompileViolation(argSchema, 'argSchema');
  if (problem) {
    // Replace the properties that do not compile, one by one.
    for (const name of args.order) {
      if (schemaCompileViolation(args.properties[name], 'argSchema')) {
        warnings.push(`the schema of argument '${name}' could not be used (${schemaCompileViolation(args.properties[name], name)?.message.slice(0, 200)}): it accepts any value`);
        args.properties[name] = {};
      }
    }
    argSchema = args.schema();
    if (schemaCompileViolation(argSchema, 'argSchema')) {
      warnings.push('the argument schema could not be used: replaced by a plain list of arguments');
      argSchema = { type: 'object', properties: Object.fromEntries(args.order.map((n) => [n, {}])), required: [...args.order], additionalProperties: false };
    }
  }
  for (const note of budget.notes) warnings.push(note);

  const tool: Json = {
    displayName,
    description,
    tags,
    type: 'http',
    argSchema,
    outputSchema: mode === 'json' ? {} : { type: 'string' },
    http: {
      method: METHOD,
      urlTemplate: `${escapeTemplateText(base)}${urlPath.startsWith('/') ? urlPath : `/${urlPath}`}`,
      query,
      headers,
      ...(body ? { body } : {}),
      auth,
      responseMode: mode,
    },
    isEnabled: true,
  };
  const checked = ToolPutBodySchema.safeParse(tool);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    warnings.push(`this proposal does not pass validation yet: ${issue.path.join('.') || 'tool'}: ${issue.message}`);
  }
  return { key: `${METHOD} ${path}`, method: METHOD, path, summary: summary.slice(0, 1000), slug, tool, warnings };
}

/** Reads an OpenAPI 3 document (JSON or YAML) and proposes one HTTP tool per operation. Throws VALIDATION_FAILED or PAYLOAD_TOO_LARGE. */
export function parseOpenApi(text: string): OpenApiImport {
  const raw = readDocument(text);
  checkShape(raw);
  const doc = checkVersion(raw);
  const ctx = new Ctx(doc);
  const info = isObject(own(doc, 'info')) ? (own(doc, 'info') as Json) : {};
  const title = sanitiseLine(str(own(info, 'title')) ?? '', 200);
  const version = sanitiseLine(typeof own(info, 'version') === 'string' || typeof own(info, 'version') === 'number' ? String(own(info, 'version')) : '', 100);
  const docServers = serverUrls(own(doc, 'servers'));
  const hosts = new Set(docServers.absolute.map(hostOf));
  const nameHost = docServers.absolute[0] ? hostOf(docServers.absolute[0]) : slugify(title, 'api').replace(/-/g, '.');

  const operations: OpenApiOperation[] = [];
  const slugs = new Set<string>();
  const paths = own(doc, 'paths');
  let skipped = 0;
  if (paths !== undefined && !isObject(paths)) refused('"paths" must be an object of paths');
  for (const [path, item] of Object.entries((paths as Json | undefined) ?? {})) {
    const pathWarnings: string[] = [];
    const pathItem = ctx.deref(item, pathWarnings);
    if (!path.startsWith('/') || !pathItem) continue;
    for (const method of METHODS) {
      const op = own(pathItem, method);
      if (!isObject(op)) continue;
      if (operations.length >= MAX_OPERATIONS) {
        skipped++;
        continue;
      }
      const built = buildOperation(ctx, { path, method, op, pathItem, docServers, slugs, hosts, nameHost });
      built.warnings.unshift(...pathWarnings);
      operations.push(built);
    }
  }
  if (skipped && operations.length) operations[operations.length - 1]!.warnings.push(`the document has ${skipped} more operations than the ${MAX_OPERATIONS} proposed: split it to import them`);

  return OpenApiImportSchema.parse({ title, version, servers: docServers.absolute, hostsProposal: [...hosts], operations });
}
