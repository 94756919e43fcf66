/**
 * `tool_usage`, served beside `tool_output` (docs/mcp.md, "Apps for clients that render them"):
 * one served tool's calls, errors, latency and result sizes over the last days, the figures of
 * `tools.usageStats` read from the invocation log, as structured content and a line of text.
 * It names the page that charts them (`ui://toolsmith/tool-usage.html`, an MCP App of the
 * extension io.modelcontextprotocol/ui), which clients that render apps show; the tool works
 * without it. Only served tools can be asked about.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult, ClientCapabilities, Resource, Tool } from '@modelcontextprotocol/server';
import { USAGE_DAYS, type ToolUsageStats } from '../../../shared/model/usage';
import type { ModelOnlyTool } from '../agent/tool-behavior';
import type { InvocationLog } from '../invoke/invocation-log';
import { usageStats } from '../invoke/usage-stats';
import { checkTimeZone, lastDays } from '../lib/day-window';
import type { ServedTool } from './served-tools';

export const TOOL_USAGE_NAME = 'tool_usage';
/** The MCP Apps extension, as clients declare it in their capabilities. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME = 'text/html;profile=mcp-app';
export const TOOL_USAGE_URI = 'ui://toolsmith/tool-usage.html';
/** The page's file under the resources folder. */
export const TOOL_USAGE_PAGE = path.join('mcp-apps', 'tool-usage.html');
/** The most days a call may ask for. */
export const TOOL_USAGE_MAX_DAYS = 90;

/** A tool's figures over the last `days` days; `timeZone` of the days. */
export type UsageStatsOf = (toolId: string, days: number) => ToolUsageStats;

/** The figures from the invocation log, per day of this machine's time zone (UTC if it has none Intl knows). */
export function usageFromLog(log: Pick<InvocationLog, 'flushedDb'>, now: () => Date): UsageStatsOf {
  const zone = localTimeZone();
  return (toolId, days) => usageStats(log.flushedDb(), toolId, lastDays(now(), zone, days), zone);
}

function localTimeZone(): string {
  try {
    return checkTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  } catch {
    return 'UTC';
  }
}

export const TOOL_USAGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['tool'],
  properties: {
    tool: { type: 'string', minLength: 1, maxLength: 200, description: "A served tool, as 'slug' or 'bundle/slug' (its name in this list works too)." },
    days: { type: 'integer', minimum: 1, maximum: TOOL_USAGE_MAX_DAYS, description: `How many days back, today included (default ${USAGE_DAYS}).` },
  },
} as const;

export const TOOL_USAGE_DESCRIPTION =
  "How one of this server's tools has been used in Toolsmith: calls and errors per day, error rate, latency percentiles and result sizes over the last days. Read only.";

/** Keeps the name free: a registry tool that would be named tool_usage is served under another name. */
export const TOOL_USAGE_TOOL: ModelOnlyTool = {
  kind: 'function',
  displayName: 'Tool usage',
  spec: { name: TOOL_USAGE_NAME, description: TOOL_USAGE_DESCRIPTION, parameters: TOOL_USAGE_SCHEMA },
};

/** Whether a client renders MCP Apps: it declared the extension with the apps' MIME type (or with none named). */
export function rendersApps(caps: ClientCapabilities | undefined): boolean {
  const ext = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[APPS_EXTENSION];
  if (typeof ext !== 'object' || ext === null) return false;
  const types = (ext as { mimeTypes?: unknown }).mimeTypes;
  return !Array.isArray(types) || types.some((t) => typeof t === 'string' && t.replace(/\s+/g, '').toLowerCase() === APP_MIME);
}

/** tool_usage as tools/list gives it; `apps`: the client renders apps, so it is told of the page. */
export function toolUsageDefinition(apps: boolean): Tool {
  return {
    name: TOOL_USAGE_NAME,
    title: 'Tool usage',
    description: TOOL_USAGE_DESCRIPTION,
    inputSchema: TOOL_USAGE_SCHEMA as unknown as Tool['inputSchema'],
    annotations: { readOnlyHint: true, openWorldHint: false },
    ...(apps ? { _meta: { ui: { resourceUri: TOOL_USAGE_URI }, 'ui/resourceUri': TOOL_USAGE_URI } } : {}),
  };
}

/** The served UI resources, as resources/list gives them. */
export const APP_RESOURCES: Resource[] = [
  { uri: TOOL_USAGE_URI, name: 'tool-usage', title: 'Tool usage', description: "Charts a served tool's usage: the page of tool_usage.", mimeType: APP_MIME },
];

/** The page, read once from the resources folder. */
export class AppPages {
  private page: Promise<string> | undefined;

  constructor(private readonly resourcesDir: string) {}

  /** The resources/read answer for `uri`; undefined for a URI this server does not serve. */
  async read(uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> }[] } | undefined> {
    if (uri !== TOOL_USAGE_URI) return undefined;
    this.page ??= fs.readFile(path.join(this.resourcesDir, TOOL_USAGE_PAGE), 'utf8').catch((e: unknown) => {
      this.page = undefined;
      throw new Error(`the page of tool_usage could not be read from ${TOOL_USAGE_PAGE} in Toolsmith's resources (${(e as Error).message}): reinstall Toolsmith`);
    });
    return { contents: [{ uri, mimeType: APP_MIME, text: await this.page, _meta: { ui: { prefersBorder: true } } }] };
  }
}

export const unknownUsageTool = (name: string) =>
  `'${name.slice(0, 100)}' is not a tool this server serves: give a served tool as 'slug' or 'bundle/slug' (tools/list names them)`;

/** Which served tool `ref` names: its served name, `bundle/slug`, or a slug only one served tool has. */
export function findServed(ref: string, tools: readonly ServedTool[], byName: ReadonlyMap<string, ServedTool>): ServedTool | string {
  const slash = ref.indexOf('/');
  if (slash > 0) {
    const [bundle, slug] = [ref.slice(0, slash), ref.slice(slash + 1)];
    return tools.find((t) => t.bundleSlug === bundle && t.tool.slug === slug) ?? unknownUsageTool(ref);
  }
  const named = byName.get(ref);
  if (named) return named;
  const bySlug = tools.filter((t) => t.tool.slug === ref);
  if (bySlug.length === 1) return bySlug[0]!;
  if (bySlug.length > 1) return `'${ref.slice(0, 100)}' names ${bySlug.length} served tools (${bySlug.map((t) => `${t.bundleSlug}/${t.tool.slug}`).join(', ')}): give it as 'bundle/slug'`;
  return unknownUsageTool(ref);
}

const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** One tool_usage call over the served list. A wrong argument or a tool not served is a tool error the client's model can read. */
export function callToolUsage(args: unknown, tools: readonly ServedTool[], byName: ReadonlyMap<string, ServedTool>, statsOf: UsageStatsOf): CallToolResult {
  const a = (typeof args === 'object' && args !== null ? args : {}) as { tool?: unknown; days?: unknown };
  if (typeof a.tool !== 'string' || !a.tool.trim()) return failed(`VALIDATION_FAILED: ${TOOL_USAGE_NAME} needs "tool": a served tool as 'slug' or 'bundle/slug'`);
  if (a.days !== undefined && (typeof a.days !== 'number' || !Number.isInteger(a.days) || a.days < 1 || a.days > TOOL_USAGE_MAX_DAYS)) {
    return failed(`VALIDATION_FAILED: "days" must be a whole number from 1 to ${TOOL_USAGE_MAX_DAYS}`);
  }
  const served = findServed(a.tool.trim(), tools, byName);
  if (typeof served === 'string') return failed(served);
  const days = (a.days as number | undefined) ?? USAGE_DAYS;
  const stats = statsOf(served.tool.id, days);
  const answer = { tool: served.name, title: served.tool.displayName, ...stats };
  return { content: [{ type: 'text', text: usageText(answer) }], structuredContent: answer as unknown as Record<string, unknown> };
}

/** The figures in a few sentences. */
export function usageText(s: ToolUsageStats & { tool: string }): string {
  const days = s.days.length;
  const head = `${s.tool}, last ${days} day${days === 1 ? '' : 's'} (${s.timeZone}): `;
  if (!s.calls) return `${head}no calls.`;
  const parts = [`${s.calls} call${s.calls === 1 ? '' : 's'}, ${s.errors} error${s.errors === 1 ? '' : 's'} (${Math.round(s.errorRate * 100)}%)`];
  if (s.latencyMs) parts.push(`latency p50 ${s.latencyMs.p50} ms, p95 ${s.latencyMs.p95} ms, max ${s.latencyMs.max} ms`);
  if (s.resultBytes) parts.push(`results median ${s.resultBytes.median} bytes, max ${s.resultBytes.max}`);
  const busiest = s.days.reduce((b, d) => (d.calls > b.calls ? d : b), s.days[0]!);
  parts.push(`busiest day ${busiest.date} (${busiest.calls})`);
  if (s.errorsByCode.length) parts.push(`errors by code: ${s.errorsByCode.map((e) => `${e.code} ${e.count}`).join(', ')}${s.otherErrors ? `, other ${s.otherErrors}` : ''}`);
  return `${head}${parts.join('; ')}.`;
}
