/**
 * The request body of an operation, as an HTTP tool body and its arguments.
 *
 * The media type is picked in this order: JSON (application/json, then any +json or /json),
 * a form (application/x-www-form-urlencoded), multipart/form-data, then text/*.
 * - JSON object: each top-level property is an argument (`${name}` when required, `${name?}`
 *   when not, so it is left out when not given). A body that is one object property
 *   wrapping the rest (Asana's `{ data: {...} }`) keeps the wrapper and its inner properties
 *   become the arguments. Read-only properties are not inputs. Any other JSON body is one
 *   argument `body`.
 * - Form: each property is a field; arrays and objects keep their schema and are written as
 *   the document's `encoding` says (`style`/`explode`; OpenAPI's default `form`, exploded).
 * - Multipart: each property is a part; binary ones (`format: binary`, `contentMediaType`)
 *   are files, given as text or `{ base64, filename?, contentType? }`.
 * - Text: one argument `body`.
 */
import type { FormEncoding } from '../../../../shared/model/http-spec';
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import { isObject, own, str, type Ctx, type Json } from './document';
import type { Args } from './params';
import { convertSchema, objectShape, type SchemaBudget } from './schema';

export interface BuiltBody {
  body?: Json;
  /** Inputs the document gives the body (properties, or 1 for a whole-body value). */
  inputs: number;
}

const STYLES = new Set(['form', 'deepObject', 'spaceDelimited', 'pipeDelimited']);

function mediaOf(t: string): string {
  return t.toLowerCase().split(';')[0]!.trim();
}

export function pickBody(content: Json): { type: string; media: Json } | undefined {
  const entries = Object.entries(content).filter((e): e is [string, Json] => isObject(e[1]));
  const find = (test: (t: string) => boolean) => entries.find(([t]) => test(mediaOf(t)));
  const hit =
    find((t) => t === 'application/json') ??
    find((t) => /^[\w.-]+\/[\w.-]+\+json$/.test(t) || t.endsWith('/json')) ??
    find((t) => t === 'application/x-www-form-urlencoded') ??
    find((t) => t === 'multipart/form-data') ??
    find((t) => t.startsWith('text/'));
  return hit && { type: mediaOf(hit[0]), media: hit[1] };
}

export function isScalarSchema(s: JsonSchemaObject): boolean {
  const t = s.type;
  const scalar = (x: unknown) => x === 'string' || x === 'number' || x === 'integer' || x === 'boolean' || x === 'null';
  return Array.isArray(t) ? t.every(scalar) : scalar(t);
}

function isBinary(s: unknown): boolean {
  if (!isObject(s)) return false;
  if (s.format === 'binary' || (typeof s.contentMediaType === 'string' && s.contentEncoding === undefined)) return true;
  return ['anyOf', 'oneOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some(isBinary));
}

const FILE: JsonSchemaObject = {
  anyOf: [
    { type: 'string', description: 'The file as text.' },
    {
      type: 'object',
      properties: { base64: { type: 'string', contentEncoding: 'base64' }, filename: { type: 'string' }, contentType: { type: 'string' } },
      required: ['base64'],
      additionalProperties: false,
    },
  ],
};

function fileSchema(s: JsonSchemaObject): JsonSchemaObject {
  const description = `${typeof s.description === 'string' ? `${s.description} ` : ''}A file: its text, or { base64, filename?, contentType? }.`.slice(0, 4000);
  if (s.type === 'array') return { type: 'array', items: FILE, description };
  return { ...FILE, description };
}

/** The properties that are inputs (read-only ones are not), converted. */
function inputProperties(ctx: Ctx, props: [string, unknown][], budget: SchemaBudget): [string, JsonSchemaObject][] {
  const out: [string, JsonSchemaObject][] = [];
  for (const [name, sub] of props) {
    const s = convertSchema(ctx, sub, budget);
    if (s.readOnly === true) continue;
    out.push([name.slice(0, 256), s]);
  }
  return out;
}

function define(o: Json, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function buildBody(ctx: Ctx, requestBody: Json | undefined, method: string, args: Args, budget: SchemaBudget, warnings: string[]): BuiltBody {
  const content = requestBody && own(requestBody, 'content');
  if (!requestBody || !isObject(content) || !Object.keys(content).length) return { inputs: 0 };
  if (method === 'GET' || method === 'HEAD') {
    warnings.push(`a ${method} request cannot have a body: the request body was left out`);
    return { inputs: 0 };
  }
  const picked = pickBody(content);
  if (!picked) {
    warnings.push(`the request body (${Object.keys(content).slice(0, 3).join(', ')}) is not JSON, a form, multipart or text: add it by hand`);
    return { inputs: 0 };
  }
  const bodyRequired = own(requestBody, 'required') === true;
  const rawSchema = own(picked.media, 'schema');
  const shape = objectShape(ctx, rawSchema);

  if (picked.type.startsWith('text/')) {
    return { body: { kind: 'text', template: args.add('body', { type: 'string', description: `The request body (${picked.type}).` }, true), contentType: picked.type }, inputs: 1 };
  }

  if (picked.type === 'application/x-www-form-urlencoded' || picked.type === 'multipart/form-data') {
    const declared = ctx.deref(rawSchema, []) ?? {};
    if (!shape.properties.length && isObject(own(declared, 'properties')) && !isObject(own(declared, 'additionalProperties'))) {
      // An empty form (Stripe's DELETE): nothing to send.
      return { inputs: 0 };
    }
    if (!shape.properties.length) {
      warnings.push(`the ${picked.type === 'multipart/form-data' ? 'multipart' : 'form'} body has no properties: add its fields by hand`);
      return { inputs: 1 };
    }
    const props = inputProperties(ctx, shape.properties, budget);
    const fields: Record<string, string> = {};
    if (picked.type === 'multipart/form-data') {
      const files: string[] = [];
      for (const [name, s] of props) {
        const file = isBinary(s) || (s.type === 'array' && isBinary(s.items));
        if (file) files.push(name);
        define(fields, name, args.add(name, file ? fileSchema(s) : s, shape.required.has(name)));
      }
      return { body: { kind: 'multipart', fields, files }, inputs: props.length };
    }
    const docEncoding = own(picked.media, 'encoding');
    const encoding: Record<string, FormEncoding> = {};
    for (const [name, s] of props) {
      const e = isObject(docEncoding) ? own(docEncoding, name) : undefined;
      const style = isObject(e) ? str(own(e, 'style')) : undefined;
      const explode = isObject(e) ? own(e, 'explode') : undefined;
      if (style !== undefined || typeof explode === 'boolean') {
        const st = (style && STYLES.has(style) ? style : 'form') as FormEncoding['style'];
        define(encoding, name, { style: st, explode: typeof explode === 'boolean' ? explode : st === 'form' });
      } else if (!isScalarSchema(s)) define(encoding, name, { style: 'form', explode: true });
      define(fields, name, args.add(name, s, shape.required.has(name)));
    }
    return { body: { kind: 'form', fields, ...(Object.keys(encoding).length ? { encoding } : {}) }, inputs: props.length };
  }

  if (shape.isObject && shape.properties.length) {
    // One object property wrapping the rest ({ data: {...} }): its properties are the inputs.
    let inner = shape;
    let wrapper: string | undefined;
    if (shape.properties.length === 1) {
      const [name, sub] = shape.properties[0]!;
      const s2 = objectShape(ctx, sub);
      if (s2.isObject && s2.properties.length) {
        wrapper = name;
        inner = s2;
      }
    }
    const template: Json = {};
    const props = inputProperties(ctx, inner.properties, budget);
    for (const [name, s] of props) define(template, name, args.add(name, s, inner.required.has(name)));
    const out: Json = {};
    if (wrapper !== undefined) define(out, wrapper, template);
    return { body: { kind: 'json', template: wrapper !== undefined ? out : template }, inputs: props.length };
  }
  const s = convertSchema(ctx, rawSchema, budget);
  const description = str(own(requestBody, 'description'));
  return { body: { kind: 'json', template: args.add('body', { ...s, ...(description ? { description: description.slice(0, 4000) } : {}) }, bodyRequired) }, inputs: 1 };
}
