/**
 * OpenAPI schemas as self-contained JSON Schema 2020-12: references inlined (bounded,
 * recursion cut), 3.0 keywords converted (`nullable`, `example`, boolean
 * exclusiveMinimum/Maximum), unknown keywords dropped.
 */
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import { isObject, MAX_REF_DEPTH, own, str, type Ctx } from './document';
import { htmlToText } from './html-text';

/** Schema nodes converted for one operation at most (the size budget then trims the result). */
const SCHEMA_NODE_BUDGET = 20_000;
const SCHEMA_MAX_DEPTH = 24;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const NUMBERS = ['minimum', 'maximum', 'multipleOf'];
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains'];
const STRINGS = ['format', 'title', 'contentMediaType', 'contentEncoding'];
const BOOLEANS = ['uniqueItems', 'readOnly', 'writeOnly', 'deprecated'];

export interface SchemaBudget {
  nodes: number;
  notes: Set<string>;
}

/**
 * An OpenAPI schema as a self-contained JSON Schema 2020-12: references inlined (bounded,
 * recursion cut), 3.0 keywords converted, unknown ones dropped.
 */
export function convertSchema(ctx: Ctx, schema: unknown, budget: SchemaBudget, refs: string[] = [], depth = 0): JsonSchemaObject {
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
  if (description) out.description = htmlToText(description).slice(0, 4000);
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
export function objectShape(ctx: Ctx, schema: unknown, depth = 0): { properties: [string, unknown][]; required: Set<string>; isObject: boolean } {
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
