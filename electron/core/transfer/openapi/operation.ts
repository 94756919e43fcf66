/**
 * One operation (path + method) as a proposed HTTP tool.
 *
 * - slug: the operationId in slug form (`listPets` → `list-pets`), else method + path; made
 *   unique within the document (`-2`, `-3`);
 * - urlTemplate: the operation's (else the path's, else the document's) first absolute
 *   server URL, its variables kept as `{name}` to be filled, + the path, `{p}` → `${p}`;
 * - every parameter and body property is an argument: required ones `${name}`, optional ones
 *   `${name?}` (left out of the request when not given). Query → `http.query` (an array or
 *   object keeps its schema and its style in `http.queryEncoding`), header →
 *   `http.headers`, cookie → one Cookie header (optional cookies are left out: one header
 *   holds them all); the body as body.ts builds it;
 * - responseMode: json when a success response is JSON; sse when it is only an event
 *   stream; binary when it is only non-text media (images, octet-stream, ...); text
 *   otherwise. The documented response schema is not the outputSchema (real APIs often
 *   differ from their documents, and a tool's output is validated);
 * - description: the operation's description (HTML as text: html-text.ts), else its summary; displayName: the summary,
 *   else the operationId, else METHOD path;
 * - the argSchema is kept within the size budget (budget.ts).
 */
import { escapeTemplateText, slugify, uniqueSlug } from '../../../../shared/model/tool-naming';
import type { FormEncoding } from '../../../../shared/model/http-spec';
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import { ToolPutBodySchema } from '../../../../shared/model/tool';
import type { OpenApiOperation } from '../../../../shared/model/transfer';
import Ajv2020 from 'ajv/dist/2020.js';
import { schemaViolation } from '../../../../shared/model/validation';
import { AJV_OPTIONS } from '../../bundles/schema-check';
import { fitBudget } from './budget';
import { buildBody } from './body';
import { own, str, type Ctx, type Json } from './document';
import { htmlToText } from './html-text';
import { Args, paramSchema, paramsOf, queryEncodingOf } from './params';
import { authOf } from './security';
import { hostOf, serverUrls, type Servers } from './servers';

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;
const PLACEHOLDER_HOST = 'https://example.invalid';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);
/** OpenAPI: header parameters with these names SHALL be ignored. */
export const IGNORED_HEADER_PARAMS = new Set(['accept', 'content-type', 'authorization']);
const CONTROL = /\p{Cc}/gu;
const CONTROL_BUT_LINES = /[^\P{Cc}\n\t]/gu;

const BINARY_OUTPUT: JsonSchemaObject = {
  type: 'object',
  properties: { contentType: { type: 'string' }, sizeBytes: { type: 'integer' }, base64: { type: 'string', contentEncoding: 'base64' } },
};

type Mode = 'json' | 'text' | 'sse' | 'binary';

function isTextual(t: string): boolean {
  return t.startsWith('text/') || /[/+](json|xml|csv|yaml|x-www-form-urlencoded|javascript)$/.test(t);
}

export function responseMode(ctx: Ctx, op: Json, warnings: string[]): Mode {
  const responses = own(op, 'responses');
  if (!responses || typeof responses !== 'object' || Array.isArray(responses)) return 'json';
  const keys = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort();
  const picked = keys.length ? keys : Object.hasOwn(responses, 'default') ? ['default'] : [];
  const types: string[] = [];
  for (const k of picked) {
    const r = ctx.deref((responses as Json)[k], warnings);
    const content = r && own(r, 'content');
    if (content && typeof content === 'object' && !Array.isArray(content)) types.push(...Object.keys(content).map((t) => t.toLowerCase().split(';')[0]!.trim()));
  }
  if (types.some((t) => t.includes('json'))) return 'json';
  if (types.length === 0) return picked.length ? 'text' : 'json';
  // An event stream beside another type is the streaming variant: the other type decides.
  const plain = types.filter((t) => t !== 'text/event-stream');
  if (plain.length === 0) return 'sse';
  if (plain.every((t) => !isTextual(t))) return 'binary';
  return 'text';
}

let metaAjv: Ajv2020 | undefined;

/**
 * Why an argument schema is not usable: its shape (size, depth) or the JSON Schema 2020-12
 * meta-schema. (Cheaper than compiling each proposal; the store compiles it when it is saved.
 * Converted schemas hold no $ref and only checked patterns, which is what compiling adds.)
 */
function schemaProblem(schema: unknown, field: string): string | undefined {
  const shape = schemaViolation(schema, field);
  if (shape) return shape.message;
  const ajv = (metaAjv ??= new Ajv2020(AJV_OPTIONS));
  if (ajv.validateSchema(schema as object) === true) return undefined;
  return `not a valid JSON Schema 2020-12: ${ajv.errorsText(ajv.errors, { dataVar: field }).slice(0, 200)}`;
}

function sanitiseLine(s: string, max: number): string {
  return s.replace(CONTROL, ' ').trim().slice(0, max);
}

export interface OperationInput {
  path: string;
  method: (typeof METHODS)[number];
  op: Json;
  pathItem: Json;
  docServers: Servers;
  slugs: Set<string>;
  hosts: Set<string>;
  nameHost: string;
  /** Server variables met in operation- or path-level servers, by name. */
  variables: Map<string, Servers['variables'][number]>;
}

export function buildOperation(ctx: Ctx, o: OperationInput): OpenApiOperation {
  const { path, method, op, pathItem } = o;
  const warnings: string[] = [];
  const METHOD = method.toUpperCase() as Uppercase<typeof method>;
  const budget = { nodes: 0, notes: new Set<string>() };
  const args = new Args();

  // Server: the operation's, the path's, then the document's.
  const own1 = serverUrls(own(op, 'servers'));
  const own2 = serverUrls(own(pathItem, 'servers'));
  const servers = own1.absolute.length ? own1 : own2.absolute.length ? own2 : o.docServers;
  for (const s of [...own1.absolute, ...own2.absolute]) o.hosts.add(hostOf(s));
  for (const v of [...own1.variables, ...own2.variables]) if (!o.variables.has(v.name)) o.variables.set(v.name, v);
  const serverUrl = servers.absolute[0];
  if (!serverUrl) warnings.push(`the document names no absolute http(s) server: the URL starts with ${PLACEHOLDER_HOST}; put the API's host there (and add it to Allowed hosts)`);
  const base = serverUrl ?? PLACEHOLDER_HOST;

  const params = paramsOf(ctx, pathItem, op, warnings);
  let inputs = 0;

  // Path: {name} → ${arg}; literal text escaped. A `?query` or `#fragment` in the path key is dropped.
  // A path key may carry a literal query (`/responses?beta=true`, kept) or a #fragment that tells operations apart (dropped).
  const noFragment = path.split('#')[0]!;
  const q = noFragment.indexOf('?');
  const cleanPath = q >= 0 ? noFragment.slice(0, q) : noFragment;
  const literalQuery = q >= 0 ? noFragment.slice(q + 1).replace(/\{[^{}]*\}/g, '') : '';
  const pathParams = new Map(params.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  let urlPath = '';
  let last = 0;
  for (const m of cleanPath.matchAll(/\{([^{}]+)\}/g)) {
    urlPath += escapeTemplateText(cleanPath.slice(last, m.index));
    const name = m[1]!;
    const p = pathParams.get(name);
    let schema: JsonSchemaObject;
    if (p) {
      schema = paramSchema(ctx, p, budget, warnings);
      pathParams.delete(name);
      inputs++;
    } else {
      warnings.push(`the path parameter '${name}' is not declared: it became a string argument`);
      schema = { type: 'string' };
    }
    urlPath += args.add(name, schema, true);
    last = m.index + m[0].length;
  }
  urlPath += escapeTemplateText(cleanPath.slice(last));
  for (const name of pathParams.keys()) warnings.push(`the path parameter '${name}' is not in the path: left out`);

  const query: Record<string, string> = {};
  const queryEncoding: Record<string, FormEncoding> = {};
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of params) {
    if (p.in === 'path') continue;
    if (p.in === 'header' && IGNORED_HEADER_PARAMS.has(p.name.toLowerCase())) continue;
    inputs++;
    if (p.in === 'header' && (!HEADER_NAME.test(p.name) || RESERVED_HEADERS.has(p.name.toLowerCase()))) {
      warnings.push(`the header parameter '${p.name.slice(0, 64)}' cannot be set by a tool: left out`);
      continue;
    }
    if (p.in === 'query' && p.name.length > 256) {
      warnings.push('a query parameter with a name over 256 characters was left out');
      continue;
    }
    if (p.in === 'cookie' && (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(p.name) || !p.required)) {
      warnings.push(`the cookie parameter '${p.name.slice(0, 64)}' was left out (${p.required ? 'a cookie cannot have that name' : 'optional cookies share one header'})`);
      continue;
    }
    const encoding = queryEncodingOf(ctx, p, budget);
    const placeholder = args.add(p.name, paramSchema(ctx, p, budget, warnings, encoding !== undefined), p.required);
    const set = (o: Record<string, unknown>, value: unknown) => Object.defineProperty(o, p.name, { value, enumerable: true, writable: true, configurable: true });
    if (encoding) set(queryEncoding, encoding);
    if (p.in === 'query') set(query, placeholder);
    else if (p.in === 'header') set(headers, placeholder);
    else cookies.push(`${p.name}=${placeholder}`);
  }

  const requestBody = own(op, 'requestBody') !== undefined ? ctx.deref(own(op, 'requestBody'), warnings) : undefined;
  const built = buildBody(ctx, requestBody, METHOD, args, budget, warnings);
  inputs += built.inputs;

  const { auth, cookie } = authOf(ctx, op, serverUrl, o.nameHost, warnings);
  if (cookie) cookies.push(cookie);
  if (cookies.length) headers['Cookie'] = cookies.join('; ');

  const mode = responseMode(ctx, op, warnings);
  const summary = sanitiseLine(str(own(op, 'summary')) ?? '', 1000);
  const operationId = str(own(op, 'operationId'));
  const displayName = sanitiseLine(summary || operationId || `${METHOD} ${path}`, 128) || `${METHOD} ${path}`.slice(0, 128);
  const description = (htmlToText(str(own(op, 'description')) ?? '').trim() || summary || (operationId ? `${operationId}: ${METHOD} ${path}` : `${METHOD} ${path}`)).replace(CONTROL_BUT_LINES, ' ').slice(0, 16_384);
  const tags = [...new Set((Array.isArray(own(op, 'tags')) ? (op.tags as unknown[]) : []).filter((t): t is string => typeof t === 'string').map((t) => slugify(t, '')).filter(Boolean))].slice(0, 32);
  const slug = uniqueSlug(slugify(operationId ?? '', '') || slugify(`${method} ${path}`, method), o.slugs);

  let argSchema = args.schema();
  if (schemaProblem(argSchema, 'argSchema')) {
    // Replace the properties that are not usable, one by one.
    for (const name of args.order) {
      const problem = schemaProblem(args.properties[name], name);
      if (problem) {
        warnings.push(`the schema of argument '${name}' could not be used (${problem.slice(0, 200)}): it accepts any value`);
        args.properties[name] = {};
      }
    }
    argSchema = args.schema();
  }
  for (const note of budget.notes) warnings.push(note);

  let tool: Json = {
    displayName,
    description,
    tags,
    type: 'http',
    argSchema,
    outputSchema: mode === 'json' || mode === 'sse' ? {} : mode === 'binary' ? BINARY_OUTPUT : { type: 'string' },
    http: {
      method: METHOD,
      urlTemplate: `${escapeTemplateText(base)}${urlPath.startsWith('/') ? urlPath : `/${urlPath}`}${literalQuery ? `?${escapeTemplateText(literalQuery)}` : ''}`,
      query,
      ...(Object.keys(queryEncoding).length ? { queryEncoding } : {}),
      headers,
      ...(built.body ? { body: built.body } : {}),
      auth,
      responseMode: mode,
    },
    isEnabled: true,
  };
  tool = fitBudget(tool, warnings);
  const checked = ToolPutBodySchema.safeParse(tool);
  if (!checked.success) {
    const issue = checked.error.issues.find((i) => (i as { params?: { rule?: string } }).params?.rule !== 'server-variable');
    if (issue) warnings.push(`this proposal does not pass validation yet: ${issue.path.join('.') || 'tool'}: ${issue.message}`);
  }
  const argumentCount = Object.keys((tool.argSchema as { properties: object }).properties).length;
  return { key: `${METHOD} ${path}`, method: METHOD, path, summary, slug, tool, inputs: { document: inputs, arguments: argumentCount }, warnings };
}
