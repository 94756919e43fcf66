/**
 * Arrays and objects in a form body or a query string, written as OpenAPI's `style` and
 * `explode` say (FormEncodingSchema): `deepObject` as `name[key]=v` and `name[0][key]=v` at
 * any depth; `form` exploded as one pair per item (an object's own `key=v` pairs), not
 * exploded as `name=a,b`; `spaceDelimited` / `pipeDelimited` joined by ' ' or '|'. Scalars
 * are one pair; objects inside a flat list are JSON.
 */
import { AppError } from '../../../../shared/errors';
import type { FormEncoding } from '../../../../shared/model/http-spec';
import { parseOrRefuse, placeholderValue, renderText, textString, type RenderEnv } from './template';

/** Levels of a deepObject value written at most. */
const MAX_DEPTH = 32;

/** The argument's own value when the template is exactly one placeholder; otherwise its rendered text. */
export function fieldValue(template: string, env: RenderEnv, field: string): unknown {
  const parts = parseOrRefuse(template, field);
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only && 'placeholder' in only) return placeholderValue(only.placeholder, only.raw, env);
  return renderText(template, env, field);
}

/** `[name, value]` pairs for one field written with an OpenAPI style. */
export function styledPairs(name: string, value: unknown, enc: FormEncoding): [string, string][] {
  if (value === null || typeof value !== 'object') return [[name, textString(value)]];
  if (enc.style === 'deepObject') {
    const out: [string, string][] = [];
    const walk = (prefix: string, v: unknown, depth: number) => {
      if (depth > MAX_DEPTH) throw new AppError('VALIDATION_FAILED', `the form field '${name}' is nested too deeply`, { field: `http.body.fields.${name}` });
      if (v === null || typeof v !== 'object') out.push([prefix, textString(v)]);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(`${prefix}[${i}]`, x, depth + 1));
      else for (const [k, x] of Object.entries(v)) walk(`${prefix}[${k}]`, x, depth + 1);
    };
    walk(name, value, 0);
    return out;
  }
  const item = (x: unknown) => (x !== null && typeof x === 'object' ? JSON.stringify(x) : textString(x));
  const delimiter = enc.style === 'spaceDelimited' ? ' ' : enc.style === 'pipeDelimited' ? '|' : ',';
  if (Array.isArray(value)) {
    if (enc.style === 'form' && enc.explode) return value.map((x) => [name, item(x)]);
    return [[name, value.map(item).join(delimiter)]];
  }
  const entries = Object.entries(value);
  if (enc.style === 'form' && enc.explode) return entries.map(([k, x]) => [k, item(x)]);
  return [[name, entries.flatMap(([k, x]) => [k, item(x)]).join(delimiter)]];
}
