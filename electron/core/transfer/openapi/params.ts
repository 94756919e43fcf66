/**
 * Parameters (path, query, header, cookie) and the argument list an operation is built into.
 */
import { toArgName } from '../../../../shared/model/tool-naming';
import type { FormEncoding } from '../../../../shared/model/http-spec';
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import { isObject, own, str, type Ctx, type Json } from './document';
import { convertSchema, type SchemaBudget } from './schema';
import { htmlToText } from './html-text';

/** The arguments of one tool, in order; each required or optional. */
export class Args {
  readonly properties: Record<string, JsonSchemaObject> = {};
  readonly order: string[] = [];
  readonly required = new Set<string>();
  /** Adds an argument (its name made unique) and returns the placeholder text that stands for it: `${name}` or `${name?}`. */
  add(raw: string, schema: JsonSchemaObject, required: boolean): string {
    const base = toArgName(raw);
    let name = base;
    for (let n = 2; Object.hasOwn(this.properties, name); n++) name = `${base.slice(0, 60)}_${n}`;
    Object.defineProperty(this.properties, name, { value: schema, enumerable: true, writable: true, configurable: true });
    this.order.push(name);
    if (required) this.required.add(name);
    return required ? `\${${name}}` : `\${${name}?}`;
  }
  schema(): JsonSchemaObject {
    return { type: 'object', properties: this.properties, required: this.order.filter((n) => this.required.has(n)), additionalProperties: false };
  }
}

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  raw: Json;
}

export function paramsOf(ctx: Ctx, pathItem: Json, op: Json, warnings: string[]): Param[] {
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

const STYLES = new Set(['form', 'deepObject', 'spaceDelimited', 'pipeDelimited']);

/**
 * How a query parameter that is an array or object is written (its `style`, `explode`;
 * OpenAPI's default `form`, exploded), or undefined for a scalar or serialised content.
 */
export function queryEncodingOf(ctx: Ctx, p: Param, budget: SchemaBudget): FormEncoding | undefined {
  if (p.in !== 'query' || own(p.raw, 'schema') === undefined) return undefined;
  if (!isStructured(convertSchema(ctx, own(p.raw, 'schema'), budget))) return undefined;
  const style = str(own(p.raw, 'style'));
  const st = (style && STYLES.has(style) ? style : 'form') as FormEncoding['style'];
  const explode = own(p.raw, 'explode');
  return { style: st, explode: typeof explode === 'boolean' ? explode : st === 'form' };
}

/** An array or object, or a union that may be one (Stripe's `created`: a range object or an integer). */
function isStructured(schema: JsonSchemaObject, depth = 0): boolean {
  const t = schema.type;
  if (t === 'array' || t === 'object' || (Array.isArray(t) && (t.includes('array') || t.includes('object')))) return true;
  if (t === undefined && (schema.properties !== undefined || schema.items !== undefined)) return true;
  return depth < 4 && ['anyOf', 'oneOf'].some((k) => Array.isArray(schema[k]) && (schema[k] as JsonSchemaObject[]).some((x) => isObject(x) && isStructured(x, depth + 1)));
}

/** A parameter's argument schema: scalars as they are; arrays and objects become one string unless `keepStructured` (a query parameter with its style). */
export function paramSchema(ctx: Ctx, p: Param, budget: SchemaBudget, warnings: string[], keepStructured = false): JsonSchemaObject {
  let raw = own(p.raw, 'schema');
  const content = own(p.raw, 'content');
  if (raw === undefined && isObject(content)) {
    const first = Object.values(content)[0];
    raw = isObject(first) ? own(first, 'schema') : undefined;
  }
  let schema = convertSchema(ctx, raw, budget);
  const structured = isStructured(schema);
  if ((structured && !keepStructured) || isObject(content)) {
    warnings.push(`the ${p.in} parameter '${p.name}' is ${structured ? 'an array or object' : 'serialised content'}: it is sent as one string (e.g. comma-separated values)`);
    schema = { type: 'string' };
  }
  const description = str(own(p.raw, 'description'));
  if (description) schema.description = htmlToText(description).slice(0, 4000);
  if (own(p.raw, 'deprecated') === true) schema.deprecated = true;
  if (Object.hasOwn(p.raw, 'example') && !structured) schema.examples = [p.raw.example];
  return schema;
}
