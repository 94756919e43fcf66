/**
 * What an MCP client is told of a served tool: its effects (annotations), derived where
 * Toolsmith knows them, and the shape of its result (outputSchema) where the tool declares one.
 *
 * - A tool that asks before it runs here is possibly destructive to the client too.
 * - A tool of an MCP server that runs without asking passes on the hints its server gave.
 * - An HTTP tool by its method: GET, HEAD and OPTIONS read only; PUT and DELETE idempotent
 *   (DELETE destructive); all of them reach the open world.
 * - A local tool by its function: the built-in functions that only read are read only
 *   (web.fetch-url reaches the open world); any other function gets no hints (the MCP defaults:
 *   possibly destructive).
 * - A sequence gets no hints: its steps decide.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { ToolView } from '../../../shared/model/tool';

/** Built-in functions that change nothing: they read the workspace, the clock or the web. */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'files.grep',
  'files.list',
  'files.read',
  'math.calc',
  'text.count',
  'text.diff',
  'text.jsonpath',
  'text.regex-extract',
  'time.convert',
  'time.date-math',
  'time.now',
  'web.fetch-url',
]);

const OPEN_WORLD_FUNCTIONS: ReadonlySet<string> = new Set(['web.fetch-url']);

/** Built-in functions that add but never change or remove (memory recall's insert adds an entry). */
const ADDITIVE_FUNCTIONS: ReadonlySet<string> = new Set(['memory.recall']);

/** The annotations served for a tool; `asks`: it waits for approval in Toolsmith. */
export function servedAnnotations(tool: Pick<ToolView, 'type' | 'http' | 'local' | 'mcp'>, asks: boolean): ToolAnnotations | undefined {
  if (asks) return { readOnlyHint: false, destructiveHint: true };
  if (tool.type === 'mcp') {
    const hints = tool.mcp?.annotations;
    return hints && Object.keys(hints).length ? { ...hints } : undefined;
  }
  if (tool.type === 'http' && tool.http) {
    const method = tool.http.method.toUpperCase();
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { readOnlyHint: true, openWorldHint: true };
    if (method === 'DELETE') return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
    if (method === 'PUT') return { readOnlyHint: false, idempotentHint: true, openWorldHint: true };
    return { readOnlyHint: false, openWorldHint: true };
  }
  if (tool.type === 'local' && tool.local && READ_ONLY_FUNCTIONS.has(tool.local.functionId)) {
    return { readOnlyHint: true, ...(OPEN_WORLD_FUNCTIONS.has(tool.local.functionId) ? { openWorldHint: true } : { openWorldHint: false }) };
  }
  if (tool.type === 'local' && tool.local && ADDITIVE_FUNCTIONS.has(tool.local.functionId)) return { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
  return undefined;
}

/**
 * The tool's output schema as MCP serves one: an object schema with something in it (MCP wants
 * `type: object` at the root); none for a tool that declares nothing (`{}`) or another root type.
 */
export function servedOutputSchema(schema: unknown, tool?: Pick<ToolView, 'http'>): { type: 'object'; [k: string]: unknown } | undefined {
  // A binary answer that is an image or a sound is served as that content, which carries no structured value.
  if (tool?.http?.responseMode === 'binary') return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  return s.type === 'object' ? (s as { type: 'object' }) : undefined;
}

/** HTTP tools allowed longer than this run as tasks for clients that want them. */
export const SLOW_HTTP_MS = 30_000;

/**
 * Whether a client may run the tool as an MCP task (2025-11-25, `execution.taskSupport:
 * optional`): the slow ones, a sequence, an HTTP tool allowed more than SLOW_HTTP_MS, and an MCP
 * server's tool that its server runs only as a task.
 */
export function servedTaskSupport(tool: Pick<ToolView, 'type' | 'http' | 'mcp'>): boolean {
  if (tool.type === 'sequence') return true;
  if (tool.type === 'http') return (tool.http?.timeoutMs ?? 0) > SLOW_HTTP_MS;
  return tool.type === 'mcp' && tool.mcp?.task === 'required';
}
