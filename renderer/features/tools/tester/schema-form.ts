/**
 * The pure half of the arguments form: which control a JSON Schema gets (one-line or long
 * text, select, variants, a null toggle), the starting value (schema defaults applied),
 * reading and writing a value at a path, and which field a schema issue belongs to.
 * Anything the form cannot show as controls is edited as JSON.
 */
export type Schema = Record<string, unknown>;
export type Path = readonly (string | number)[];
export type FieldKind = 'enum' | 'const' | 'variant' | 'string' | 'text' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'json';

/** Nested objects and arrays deeper than this are edited as JSON. */
export const MAX_FORM_DEPTH = 12;
/** Strings that may be longer than this get a multi-line box; shorter ones a one-line input. */
export const LONG_STRING = 200;
/** `format`s that ask for long text. */
const LONG_TEXT_FORMATS = new Set(['textarea', 'multi-line', 'multiline', 'markdown', 'long-text']);

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

/** `type: [x, "null"]`: the value may be null besides an x. Enums list null themselves. */
export function isNullable(s: Schema | null): boolean {
  return !!s && Array.isArray(s.type) && s.type.includes('null') && singleType(s) !== undefined && !Array.isArray(s.enum);
}

/** The schema without its "null" type (what the control edits when the value is not null). */
export function withoutNull(s: Schema): Schema {
  return { ...s, type: singleType(s) };
}

/** Whether a string schema asks for long text: a long-text format, a media type, or room for more than LONG_STRING characters. */
export function isLongText(s: Schema): boolean {
  if (typeof s.format === 'string' && LONG_TEXT_FORMATS.has(s.format.toLowerCase())) return true;
  if (typeof s.contentMediaType === 'string') return true;
  return typeof s.maxLength === 'number' && s.maxLength > LONG_STRING;
}

/** The alternatives of a oneOf/anyOf, each merged with the keywords beside it. */
export function variantsOf(s: Schema, root: Schema): Schema[] {
  const list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : [];
  const { oneOf: _o, anyOf: _a, ...base } = s;
  return list.map((v) => {
    const r = resolveSchema(v, root) ?? {};
    const props = isPlainObject(base.properties) || isPlainObject(r.properties) ? { properties: { ...(base.properties as Schema | undefined), ...(r.properties as Schema | undefined) } } : {};
    const required = [...(Array.isArray(base.required) ? base.required : []), ...(Array.isArray(r.required) ? r.required : [])];
    return { ...base, ...r, ...props, ...(required.length ? { required: [...new Set(required)] } : {}) };
  });
}

/** A variant's name in the chooser: its title, its const discriminator, its type, or its number. */
export function variantLabel(v: Schema, index: number): string {
  if (typeof v.title === 'string' && v.title.trim()) return v.title.trim();
  if ('const' in v) return JSON.stringify(v.const);
  if (isPlainObject(v.properties)) {
    for (const [k, p] of Object.entries(v.properties)) if (isPlainObject(p) && 'const' in p) return `${k}: ${typeof p.const === 'string' ? p.const : JSON.stringify(p.const)}`;
  }
  const t = singleType(v);
  return t ? `${index + 1}: ${t}` : `Option ${index + 1}`;
}

/** Which variant a value is: the first whose const discriminators and type it matches; 0 when none does. */
export function matchVariant(variants: Schema[], value: unknown, root: Schema, depth: number): number {
  if (value === undefined) return 0;
  const score = (v: Schema): boolean => {
    if ('const' in v) return JSON.stringify(v.const) === JSON.stringify(value);
    if (Array.isArray(v.enum)) return v.enum.some((o) => JSON.stringify(o) === JSON.stringify(value));
    const kind = fieldKind(v, depth);
    if (kind === 'variant' || kind === 'json') return singleType(v) === undefined || fits(typeFor(singleType(v)!), value);
    if (!fits(kind, value) || (value === null && !isNullable(v))) return false;
    if (kind === 'object' && isPlainObject(value)) {
      for (const [k, p] of Object.entries(v.properties as Schema)) {
        const ps = resolveSchema(p, root);
        if (ps && 'const' in ps && JSON.stringify(ps.const) !== JSON.stringify(value[k])) return false;
      }
      for (const k of requiredOf(v)) if (!(k in value)) return false;
    }
    return true;
  };
  const i = variants.findIndex(score);
  return i < 0 ? 0 : i;
}

function typeFor(t: string): FieldKind {
  return t === 'string' || t === 'number' || t === 'integer' || t === 'boolean' || t === 'object' || t === 'array' ? t : 'json';
}

export function fieldKind(s: Schema | null, depth: number): FieldKind {
  if (!s || depth > MAX_FORM_DEPTH) return 'json';
  if (Array.isArray(s.enum) && s.enum.length > 0) return 'enum';
  if ('const' in s) return 'const';
  if ((Array.isArray(s.oneOf) && s.oneOf.length > 0) || (Array.isArray(s.anyOf) && s.anyOf.length > 0)) return s.allOf || s.not || s.if ? 'json' : 'variant';
  if (s.allOf || s.not || s.if) return 'json';
  switch (singleType(s)) {
    case 'string':
      return isLongText(s) ? 'text' : 'string';
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
 * A starting value: `default` wherever the schema gives one (optional properties too, so a
 * field the user leaves alone is sent with its default); required booleans false and
 * required objects filled in; other optional fields left out, so only what the user sets is sent.
 */
export function initialValue(schema: unknown, root: Schema, depth = 0): unknown {
  const s = resolveSchema(schema, root);
  if (!s) return undefined;
  if (s.default !== undefined) return structuredClone(s.default);
  const kind = fieldKind(s, depth);
  if (kind === 'const') return structuredClone(s.const);
  if (kind === 'variant') {
    const first = variantsOf(s, root)[0];
    return first ? initialValue(first, root, depth) : undefined;
  }
  if (kind === 'object') {
    const required = requiredOf(s);
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(s.properties as Record<string, unknown>)) {
      const subSchema = resolveSchema(sub, root);
      const subKind = fieldKind(subSchema, depth + 1);
      const start = required.has(key) || subSchema?.default !== undefined ? initialValue(sub, root, depth + 1) : undefined;
      if (start !== undefined && (subSchema?.default !== undefined || subKind === 'boolean' || subKind === 'object' || subKind === 'const' || subKind === 'variant')) out[key] = start;
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
    case 'boolean':
      return false;
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

/** A path as a JSON pointer, as ajv names where an issue is ('' for the whole value). */
export function toPointer(path: Path): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** An issue as the core answers it (tools.checkArgs, approvals.check): a pointer or '(root)', and ajv's message. */
export interface ArgIssue {
  path: string;
  message: string;
}

/** An issue placed on the field it is about: a missing property belongs to that property's field. */
export interface FieldIssue {
  pointer: string;
  message: string;
  missing: boolean;
}

const MISSING = /^must have required property '(.+)'$/;

export function fieldIssue(issue: ArgIssue): FieldIssue {
  const at = issue.path === '(root)' ? '' : issue.path;
  const m = MISSING.exec(issue.message);
  if (m) return { pointer: `${at}/${m[1]!.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: 'is required', missing: true };
  return { pointer: at, message: issue.message, missing: false };
}

/** The issues by the pointer of their field. */
export function issuesByField(issues: readonly ArgIssue[]): Map<string, FieldIssue[]> {
  const out = new Map<string, FieldIssue[]>();
  for (const i of issues) {
    const f = fieldIssue(i);
    const list = out.get(f.pointer);
    if (list) list.push(f);
    else out.set(f.pointer, [f]);
  }
  return out;
}

/** A pointer as people read a field's name: city, options.days, tags.0 ("the arguments" for the whole value). */
export function pointerLabel(pointer: string): string {
  if (pointer === '') return 'the arguments';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
