/**
 * What the script editor gives Monaco (shared by the core's tests, which run every template):
 * - SCRIPT_CTX_DECLARATION: the TypeScript declarations of what a script sees (ctx, console,
 *   timers, ToolError), as an ambient .d.ts text for `addExtraLib`;
 * - argsDeclaration(argSchema): `type Args = …` from a tool's argSchema, for the `args` parameter;
 * - SCRIPT_TEMPLATES: scripts to start from.
 * A script is plain JavaScript; JSDoc (`@param {Args} args`, `@param {ToolContext} ctx`) gives it
 * the types, and `checkJs` reports errors as it is typed.
 */
import { SCRIPT_LIMITS } from './script-limits';

export const SCRIPT_CTX_DECLARATION = `/** What a script tool's run(args, ctx) is given as ctx. */
interface ToolContext {
  /**
   * An HTTP request through Toolsmith: only hosts in Settings → Allowed hosts, never a private
   * address unless allowed there. Write \`\${secret:NAME}\` in the URL or a header value and
   * Toolsmith puts the secret in on its side; the script never sees a secret's value (a response
   * that echoes one shows [redacted]). An object body is sent as JSON. A response of any status
   * resolves; a refused or failed request rejects with a ToolError.
   */
  fetch(url: string, init?: ScriptFetchInit): Promise<ScriptFetchResponse>;
  /**
   * Calls another tool: 'slug' (in this tool's bundle), 'bundle/slug', either with '@version'
   * (default: the newest switched on), or { bundleId, slug, version }. Resolves to its result;
   * rejects with a ToolError (its code says why). A tool that asks before it runs may be called
   * only when this tool asks too.
   */
  call(tool: string | { bundleId: string; slug: string; version: string }, args?: Record<string, unknown>): Promise<unknown>;
  /** A line in the call's log, shown under the result in the tester (console.log writes there too). At most ${SCRIPT_LIMITS.logLines} lines a call. */
  log(...values: unknown[]): void;
  /** Aborted when the call is cancelled. */
  readonly signal: ScriptAbortSignal;
  /** This call's invocation id. */
  readonly invocationId: string;
}

interface ScriptFetchInit {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  body?: string | object;
  /** At most what is left of the call's time limit. */
  timeoutMs?: number;
}

interface ScriptFetchResponse {
  readonly status: number;
  readonly ok: boolean;
  /** The URL after redirects. */
  readonly url: string;
  readonly redirected: boolean;
  /** Response headers, names in lowercase. */
  readonly headers: Readonly<Record<string, string>>;
  text(): Promise<string>;
  json(): Promise<any>;
}

interface ScriptAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  onabort: ((event: { type: 'abort' }) => void) | null;
  addEventListener(type: 'abort', listener: (event: { type: 'abort' }) => void): void;
  removeEventListener(type: 'abort', listener: (event: { type: 'abort' }) => void): void;
  throwIfAborted(): void;
}

/** An error with one of Toolsmith's codes: what ctx.fetch and ctx.call reject with; a script may throw one too. */
declare class ToolError extends Error {
  constructor(message: string, code?: 'VALIDATION_FAILED' | 'NOT_FOUND' | 'CONFLICT' | 'FORBIDDEN' | 'UNAUTHORIZED' | 'PAYLOAD_TOO_LARGE' | 'UNAVAILABLE' | 'TIMEOUT' | 'RATE_LIMITED', details?: unknown);
  readonly code: string;
  readonly details?: unknown;
}

/** Writes to the call's log (levels log, info, warn, error). */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
};

/** Timers end with the call: those still pending when run settles are cleared. */
declare function setTimeout(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearTimeout(id: number | undefined): void;
declare function setInterval(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearInterval(id: number | undefined): void;
declare function queueMicrotask(fn: () => void): void;
`;

type JsonSchema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 8;

/** A property name as TypeScript writes it. */
function key(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

function literal(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null ? JSON.stringify(v) : 'unknown';
}

/** The TypeScript type of a JSON Schema (the common keywords; anything else is `unknown`). */
function typeOf(schema: unknown, depth: number): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_DEPTH) return 'unknown';
  const s = schema as JsonSchema;
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.length ? s.enum.map(literal).join(' | ') : 'never';
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k])) return (s[k] as unknown[]).map((x) => `(${typeOf(x, depth + 1)})`).join(' | ') || 'unknown';
  }
  if (Array.isArray(s.allOf)) return (s.allOf as unknown[]).map((x) => `(${typeOf(x, depth + 1)})`).join(' & ') || 'unknown';
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type !== undefined ? [s.type] : s.properties ? ['object'] : s.items ? ['array'] : [];
  if (types.length === 0) return 'unknown';
  return types.map((t) => one(String(t), s, depth)).join(' | ');
}

function one(type: string, s: JsonSchema, depth: number): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(s.items, depth + 1)}>`;
    case 'object':
      return objectType(s, depth);
    default:
      return 'unknown';
  }
}

function objectType(s: JsonSchema, depth: number): string {
  const props = s.properties && typeof s.properties === 'object' ? (s.properties as Record<string, unknown>) : {};
  const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]).map(String) : []);
  const pad = '  '.repeat(depth + 1);
  const lines = Object.entries(props).map(([name, p]) => {
    const doc = p && typeof p === 'object' && typeof (p as JsonSchema).description === 'string' ? `${pad}/** ${String((p as JsonSchema).description).replaceAll('*/', '* /').split('\n')[0]} */\n` : '';
    return `${doc}${pad}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(p, depth + 1)};`;
  });
  if (s.additionalProperties !== false && s.additionalProperties !== undefined && s.additionalProperties !== true) {
    lines.push(`${pad}[key: string]: ${typeOf(s.additionalProperties, depth + 1)} | undefined;`);
  } else if (s.additionalProperties !== false && lines.length === 0) {
    return 'Record<string, unknown>';
  }
  return `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}`;
}

/** `type Args = …;` for a tool's argSchema (what its run's `args` holds once checked and given its defaults). */
export function argsDeclaration(argSchema: unknown): string {
  return `/** The arguments of this tool's run(args, ctx), from its argSchema. */\ntype Args = ${typeOf(argSchema, 0)};\n`;
}

export interface ScriptTemplate {
  id: 'transform-json' | 'call-api' | 'compute';
  title: string;
  description: string;
  argSchema: JsonSchema;
  source: string;
}

export const SCRIPT_TEMPLATES: readonly ScriptTemplate[] = [
  {
    id: 'transform-json',
    title: 'Transform JSON',
    description: 'Reshape a JSON value: pick, rename and count fields.',
    argSchema: {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object' }, description: 'The records to reshape' }, field: { type: 'string', description: 'The field to keep' } },
      required: ['items', 'field'],
    },
    source: `/**
 * Keeps one field of each record and counts the distinct values.
 * @param {Args} args
 * @param {ToolContext} ctx
 */
function run(args, ctx) {
  const values = args.items.map((item) => item[args.field]).filter((v) => v !== undefined);
  /** @type {Record<string, number>} */
  const counts = {};
  for (const v of values) counts[String(v)] = (counts[String(v)] ?? 0) + 1;
  ctx.log(\`kept \${values.length} of \${args.items.length} records\`);
  return { values, counts };
}
`,
  },
  {
    id: 'call-api',
    title: 'Call an API and reshape its answer',
    description: 'Fetch JSON from an allowed host (with a secret in a header) and return only what matters.',
    argSchema: { type: 'object', properties: { city: { type: 'string', description: 'The city to ask about' } }, required: ['city'] },
    source: `/**
 * Asks a weather API and returns a short answer. Add the API's host to Settings → Allowed hosts
 * and its key as the secret WEATHER_KEY (bound to that host): Toolsmith puts it in the header.
 * @param {Args} args
 * @param {ToolContext} ctx
 */
async function run(args, ctx) {
  const url = \`https://api.example.com/v1/weather?city=\${encodeURIComponent(args.city)}\`;
  const res = await ctx.fetch(url, { headers: { Authorization: 'Bearer \${secret:WEATHER_KEY}' } });
  if (!res.ok) throw new ToolError(\`the weather API answered \${res.status}\`, 'UNAVAILABLE');
  const body = await res.json();
  ctx.log('answered for', body.location?.name ?? args.city);
  return { city: args.city, temperatureC: body.current?.temp_c, summary: body.current?.condition?.text };
}
`,
  },
  {
    id: 'compute',
    title: 'Compute',
    description: 'A pure computation: statistics of a list of numbers.',
    argSchema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' }, minItems: 1 } }, required: ['numbers'] },
    source: `/**
 * Mean, median and standard deviation of a list of numbers.
 * @param {Args} args
 * @param {ToolContext} ctx
 */
function run(args, ctx) {
  const xs = [...args.numbers].sort((a, b) => a - b);
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const median = n % 2 ? xs[(n - 1) / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
  return { n, mean, median, sd, min: xs[0], max: xs[n - 1] };
}
`,
  },
];
