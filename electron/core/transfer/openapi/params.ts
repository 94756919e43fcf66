/**
 * Parameters (path, query, header, cookie) and the argument list an operation is built into.
 */
import { toArgName } from '../../../../shared/model/curl';
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import { isObject, own, str, type Ctx, type Json } from './document';
import { convertSchema, type SchemaBudget } from './schema';

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

/** A parameter's argument schema: scalars as they are; arrays and objects become one string. */
export function paramSchema(ctx: Ctx, p: Param, budget: SchemaBudget, warnings: string[]): JsonSchemaObject {
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
  if (description) schema.description = description.slice(0, 4000);
  if (own(p.raw, 'deprecated') === true) schema.deprecated = true;
  if (Object.hasOwn(p.raw, 'example') && !structured) schema.examples = [p.raw.example];
  return schema;
}
