/**
 * The pure half of the arguments form: which control a JSON Schema gets, and reading and
 * writing a value at a path. Anything the form cannot show as controls is edited as JSON.
 */
export type Schema = Record<string, unknown>;
export type Path = readonly (string | number)[];
export type FieldKind = 'enum' | 'string' | 'text' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'json';

/** Nested objects and arrays deeper than this are edited as JSON. */
export const MAX_FORM_DEPTH = 12;
/** Strings that may be longer than this get a multi-line box. */
const LONG_STRING = 1000;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Follows local `$ref`s (`#/$defs/x`); sibling keywords win. Null when the schema is not an object or the ref cannot be followed. */
export function resolveSchema(schema: unknown, root: Schema): Schema | null {
  let s: unknown = schema;
  const merged: Schema = {};
  for (let hops = 0; hops < 16; hops++) {
    if (!isPlainObject(s)) return null;
    const ref = s.$ref;
    for (const [k, v] of Object.entries(s)) if (k !== '$ref' && !(k in merged)) merged[k] = v;
    if (typeof ref !== 'string') return merged;
    if (!ref.startsWith('#')) return null;
    s = pointer(root, ref.slice(1));
  }
  return null;
}

function pointer(root: unknown, ptr: string): unknown {
  if (ptr === '') return root;
  let at: unknown = root;
  for (const raw of ptr.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(at) && !Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The one non-null type a schema names, if it names exactly one. */
function singleType(s: Schema): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull = t.filter((x) => x !== 'null');
    return nonNull.length === 1 && typeof nonNull[0] === 'string' ? nonNull[0] : undefined;
  }
  return undefined;
}

export function fieldKind(s: Schema | null, depth: number): FieldKind {
  if (!s || depth > MAX_FORM_DEPTH) return 'json';
  if (Array.isArray(s.enum) && s.enum.length > 0) return 'enum';
  if ('const' in s || s.oneOf || s.anyOf || s.allOf || s.not || s.if) return 'json';
  switch (singleType(s)) {
    case 'string':
      return typeof s.maxLength === 'number' && s.maxLength <= LONG_STRING ? 'string' : 'text';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'object':
      return isPlainObject(s.properties) && Object.keys(s.properties).length > 0 ? 'object' : 'json';
    case 'array':
      return isPlainObject(s.items) && !s.prefixItems ? 'array' : 'json';
    default:
      return 'json';
  }
}

/** Whether a value already there can be shown by a control of this kind (else it is edited as JSON, never dropped). */
export function fits(kind: FieldKind, v: unknown): boolean {
  if (v === undefined) return true;
  switch (kind) {
    case 'string':
    case 'text':
      return typeof v === 'string';
    case 'number':
    case 'integer':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

export function requiredOf(s: Schema): Set<string> {
  return new Set(Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : []);
}

export function getIn(value: unknown, path: Path): unknown {
  let at = value;
  for (const k of path) {
    if (typeof k === 'number') at = Array.isArray(at) ? at[k] : undefined;
    else at = isPlainObject(at) ? at[k] : undefined;
  }
  return at;
}

/** A copy of `root` with `v` at `path`; undefined removes an object's key. */
export function setIn(root: unknown, path: Path, v: unknown): unknown {
  if (path.length === 0) return v;
  const [k, ...rest] = path;
  if (typeof k === 'number') {
    const arr = Array.isArray(root) ? [...root] : [];
    arr[k] = setIn(arr[k], rest, v);
    return arr;
  }
  const obj: Record<string, unknown> = isPlainObject(root) ? { ...root } : {};
  const next = setIn(obj[k!], rest, v);
  if (next === undefined) delete obj[k!];
  else obj[k!] = next;
  return obj;
}

/** A copy of the array at `path` without item `index`. */
export function removeAt(root: unknown, path: Path, index: number): unknown {
  const arr = getIn(root, path);
  return setIn(root, path, Array.isArray(arr) ? arr.filter((_, i) => i !== index) : []);
}

/**
 * A starting value: `default` where given; required booleans false and required objects
 * filled in; optional fields left out, so only what the user sets is sent.
 */
export function initialValue(schema: unknown, root: Schema, depth = 0): unknown {
  const s = resolveSchema(schema, root);
  if (!s) return undefined;
  if (s.default !== undefined) return structuredClone(s.default);
  const kind = fieldKind(s, depth);
  if (kind === 'object') {
    const required = requiredOf(s);
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(s.properties as Record<string, unknown>)) {
      if (!required.has(key)) continue;
      const subSchema = resolveSchema(sub, root);
      const subKind = fieldKind(subSchema, depth + 1);
      if (subSchema?.default !== undefined || subKind === 'boolean' || subKind === 'object') out[key] = initialValue(sub, root, depth + 1);
    }
    return out;
  }
  if (kind === 'boolean') return false;
  return undefined;
}

/** A new array item: something the item's control can show at once. */
export function newItem(schema: unknown, root: Schema, depth: number): unknown {
  const s = resolveSchema(schema, root);
  const start = initialValue(schema, root, depth);
  if (start !== undefined) return start;
  switch (fieldKind(s, depth)) {
    case 'string':
    case 'text':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'enum':
      return structuredClone((s!.enum as unknown[])[0]);
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** JSON as the form shows it in text boxes; `undefined` as an empty box. */
export function toJsonText(v: unknown): string {
  return v === undefined ? '' : JSON.stringify(v, null, 2);
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJsonText(text: string, emptyIs: 'undefined' | 'error' = 'undefined'): ParsedJson {
  if (text.trim() === '') return emptyIs === 'undefined' ? { ok: true, value: undefined } : { ok: false, message: 'empty' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** An HTML id part for a path. */
export function pathId(path: Path): string {
  return path.map((p) => encodeURIComponent(String(p)).replace(/%/g, '_')).join('.') || 'root';
}

/** The data-testid of a path's control: arg-<path>, segments joined by '.' (arg-city, arg-tags.0); arg-root for the whole value. */
export function pathTestId(path: Path): string {
  return path.length === 0 ? 'arg-root' : `arg-${path.map(String).join('.')}`;
}
