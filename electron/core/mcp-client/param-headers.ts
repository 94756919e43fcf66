/**
 * A tool's arguments mirrored into HTTP headers (MCP 2026-07-28, Streamable HTTP, "Custom Headers
 * from Tool Parameters"): a property of a tool's inputSchema may carry `"x-mcp-header": "Region"`,
 * and each call of the tool over HTTP then carries `Mcp-Param-Region: <the argument>`, so that
 * gateways can route on it without reading the body. A 2026 server checks the headers against
 * the body and refuses a call whose headers are missing or differ (HeaderMismatch, -32020).
 *
 * A client must leave out (not bring in) a tool whose annotations break the rules: a name that is
 * empty, not an HTTP token or not unique (ignoring case); a property that is not a string, an
 * integer or a boolean (a `number` is not allowed either); or one not reached from the root
 * through `properties` alone (under `items`, `oneOf`, `$defs` and the like).
 */

/** The JSON-RPC error a 2026 server answers when headers and body disagree. */
export const HEADER_MISMATCH = -32020;

const KEY = 'x-mcp-header';
const PREFIX = 'Mcp-Param-';

/** RFC 9110 `token` (1*tchar): no space, control character, delimiter or non-ASCII letter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The types an annotated property may have. */
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not reached through `properties` alone: an annotation under them is invalid. */
const ELSEWHERE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'];
/** The same, where the value maps names to subschemas. */
const ELSEWHERE_BY_NAME = ['patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];

/** One annotated property: where its value is in the arguments, and the header's name part. */
export interface ParamHeader {
  path: string[];
  name: string;
}

export type ParamHeaderScan = { ok: true; headers: ParamHeader[] } | { ok: false; reason: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const where = (path: string[]) => (path.length ? `'${path.join('.')}'` : 'the schema root');

/** The annotated properties of a tool's inputSchema, or the first rule an annotation breaks. */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const names = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isObj(node)) return undefined;
    if (KEY in node) {
      const name = node[KEY];
      if (!reachable || path.length === 0) return `x-mcp-header at ${where(path)}: it is allowed only on a property reached from the root through "properties" alone (not under items, oneOf, anyOf, allOf, not, if/then/else, $defs or $ref)`;
      if (typeof name !== 'string' || name === '') return `x-mcp-header at ${where(path)} is empty or not a string`;
      if (!TOKEN.test(name)) return `x-mcp-header '${name.slice(0, 100)}' at ${where(path)} is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only: no space, colon, control or non-ASCII character)`;
      const type = typeof node.type === 'string' ? node.type : undefined;
      if (!type || !PRIMITIVE.has(type)) return `x-mcp-header '${name}' is on ${where(path)}, of type ${type ?? (node.type === undefined ? '(none)' : JSON.stringify(node.type))}; only a string, an integer or a boolean may be mirrored (a number may not)`;
      const earlier = names.get(name.toLowerCase());
      if (earlier !== undefined) return `x-mcp-header '${name}' at ${where(path)} repeats '${earlier}' (names must differ, ignoring case)`;
      names.set(name.toLowerCase(), name);
      headers.push({ path, name });
    }
    if (isObj(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const k of ELSEWHERE) {
      const sub = node[k];
      for (const branch of Array.isArray(sub) ? sub : [sub]) {
        const fault = visit(branch, [...path, k], false);
        if (fault) return fault;
      }
    }
    for (const k of ELSEWHERE_BY_NAME) {
      const sub = node[k];
      if (!isObj(sub)) continue;
      for (const [key, branch] of Object.entries(sub)) {
        const fault = visit(branch, [...path, k, key], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault ? { ok: false, reason: fault } : { ok: true, headers };
}

/** Scans of stored tools' argSchemas (a tool version's schema never changes): a call does not walk its schema again. */
const scans = new WeakMap<object, ParamHeaderScan>();

/**
 * The headers a call of a tool with this argSchema carries: none for a schema without
 * annotations, or with invalid ones (such a tool is not brought in from a 2026 server; one
 * brought in before, from a 2025 one, is called without them and the server says what it wants).
 */
export function callHeaders(argSchema: unknown, args: Record<string, unknown>): Record<string, string> | undefined {
  if (!isObj(argSchema)) return undefined;
  let scan = scans.get(argSchema);
  if (!scan) scans.set(argSchema, (scan = scanParamHeaders(argSchema)));
  if (!scan.ok || scan.headers.length === 0) return undefined;
  const out = paramHeaders(scan.headers, args);
  return Object.keys(out).length ? out : undefined;
}

/** A value a header can carry as it is: printable ASCII, no leading or trailing space, not the Base64 form itself. */
function plain(s: string): boolean {
  if (s === '' || s !== s.trim() || (s.startsWith('=?base64?') && s.endsWith('?='))) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** A header value: the text as it is when it is safe, else `=?base64?<its UTF-8 in Base64>?=`. */
export function headerValue(s: string): string {
  return plain(s) ? s : `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

/**
 * The `Mcp-Param-*` headers of one call: an argument left out or null has none; a string as it
 * is, an integer in decimal, a boolean as true or false, each encoded as headerValue says.
 */
export function paramHeaders(headers: readonly ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) {
    let v: unknown = args;
    for (const key of h.path) v = isObj(v) ? v[key] : undefined;
    let text: string | undefined;
    if (typeof v === 'string') text = v;
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    // Only a whole number within JavaScript's safe range has one decimal form the server can compare.
    else if (typeof v === 'number' && Number.isSafeInteger(v)) text = String(v);
    if (text !== undefined) out[`${PREFIX}${h.name}`] = headerValue(text);
  }
  return out;
}
