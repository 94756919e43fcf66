/**
 * Reading an OpenAPI document: JSON or YAML within bounds (size, YAML aliases, nodes,
 * depth), the version check, and local `$ref`s.
 */
import { parse as parseYaml } from 'yaml';
import { AppError } from '../../../../shared/errors';

export const MAX_OPENAPI_BYTES = 4 * 1024 * 1024;
/** YAML aliases allowed: real API documents rarely use any. */
export const MAX_YAML_ALIASES = 50;
const MAX_DOC_NODES = 500_000;
const MAX_DOC_DEPTH = 256;
/** `$ref`s followed inside one another, at most. */
export const MAX_REF_DEPTH = 16;

export type Json = Record<string, unknown>;

export const refused = (message: string): never => {
  throw new AppError('VALIDATION_FAILED', message);
};

export function isObject(v: unknown): v is Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function own(o: Json, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---- reading the text ------------------------------------------------------------------------

/** A parser's message, its first line (the YAML parser's ends with ':' before a snippet of the text, which is left out). */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/:\s*$/, '').slice(0, 300);
}

export function readDocument(text: string): unknown {
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
export function checkShape(doc: unknown): void {
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

export function checkVersion(doc: unknown): Json {
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

export class Ctx {
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
