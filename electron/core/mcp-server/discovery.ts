/**
 * Progressive discovery for MCP clients (docs/mcp.md, "Progressive discovery"): past Settings →
 * MCP server's threshold, tools/list gives the pinned tools (Settings → Tool search), the tools
 * this client found, `tool_search`, `tool_output` and `tool_usage` instead of every served tool. A search
 * ranks the served tools (electron/core/tool-search, as a chat turn does), answers the best with
 * their input schemas, and adds them to that client's list. Every served tool can be called,
 * listed or not: a client that does not read the list again still calls what it found by name.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { McpToolSearchSettings } from '../../../shared/model/mcp-serve';
import { PROVIDER_MAX_TOOLS, type ToolSearchSettings } from '../../../shared/model/tool-search';
import { TOOL_SEARCH_MAX_QUERY, TOOL_SEARCH_MAX_RESULTS, TOOL_SEARCH_NAME, TOOL_SEARCH_SCHEMA } from '../agent/deferred-tools';
import { AnalysisCache, ToolRanker, argsSummary, searchableTool, type ToolSource } from '../tool-search';
import type { ServedTool } from './served-tools';

export { TOOL_SEARCH_NAME };

/**
 * The most tools one client's list holds (tool_search, tool_output and tool_usage counted):
 * clients hand their list to a model, and OpenAI's models refuse more than this in one request.
 */
export const MAX_LISTED_TOOLS = PROVIDER_MAX_TOOLS;

/** Analysed tools are kept across lists and clients, by id, version and name. */
const analyses = new AnalysisCache();

/** Whether clients search: `auto` past the threshold, `always` whenever a tool is served. */
export function searching(settings: McpToolSearchSettings, served: number): boolean {
  if (served === 0 || settings.mode === 'off') return false;
  return settings.mode === 'always' || served > settings.maxTools;
}

/** A served tool is pinned when Settings → Tool search names it, as `slug` or `bundle/slug`. */
function isPinned(t: ServedTool, pinned: readonly string[]): boolean {
  return pinned.some((p) => p === t.tool.slug || p === `${t.bundleSlug}/${t.tool.slug}`);
}

export interface FoundTool {
  name: string;
  title?: string;
  /** The description's opening (../tool-search/summary.ts); the whole one is in tools/list. */
  description: string;
  inputSchema: ServedTool['inputSchema'];
  annotations?: Tool['annotations'];
}

/** tool_search's structured answer. */
export interface ToolSearchAnswer {
  /** The best tools, best first. */
  tools: FoundTool[];
  /** Those this search added to the client's tool list. */
  added: string[];
  note?: string;
}

/** One served list's search: its pinned tools and its index (built at the first search). */
export class ServedSearch {
  readonly pinned: ReadonlySet<string>;
  /** How many tools a search returns unless the client asks for another number. */
  readonly results: number;
  /** Room for pinned and found tools: the list less tool_search and the served extras beside it. */
  private readonly room: number;
  private ranker: ToolRanker | undefined;
  private building: Promise<ToolRanker> | undefined;

  constructor(
    private readonly tools: readonly ServedTool[],
    private readonly byName: ReadonlyMap<string, ServedTool>,
    toolSearch: Pick<ToolSearchSettings, 'pinned' | 'results'>,
    /** The served tools always listed beside tool_search (tool_output, tool_usage). */
    extras = 1,
  ) {
    this.room = MAX_LISTED_TOOLS - 1 - extras;
    this.pinned = new Set(
      tools
        .filter((t) => isPinned(t, toolSearch.pinned))
        .slice(0, this.room)
        .map((t) => t.name),
    );
    this.results = toolSearch.results;
  }

  /** Tools not listed until a search finds them. */
  get hidden(): number {
    return this.tools.length - this.pinned.size;
  }

  /** Whether a client that found `found` has this tool in its list. */
  listed(name: string, found: ReadonlySet<string>): boolean {
    return this.pinned.has(name) || found.has(name);
  }

  /** The tool_search definition: how many tools wait behind it. */
  definition(): Tool {
    return {
      name: TOOL_SEARCH_NAME,
      title: 'Tool search',
      description:
        `Find this server's tools for a task. ${this.hidden} more tools are served but not listed. Describe what you need to do in a sentence; ` +
        `the ${this.results} best matching tools are returned with their input schemas and added to your tool list. Call them by name.`,
      inputSchema: TOOL_SEARCH_SCHEMA as unknown as Tool['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
  }

  private sources(): ToolSource[] {
    return this.tools.map((t) => ({
      // The name is part of the key: the ranker answers names.
      cacheKey: `${t.tool.id}@${t.tool.modifiedAt}@${t.bundleSlug}@${t.bundleName}@${t.name}`,
      make: () => searchableTool(t.name, { tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName }),
    }));
  }

  /** The index, analysing the tools not analysed yet with the event loop free between slices; built once however many clients ask at once. */
  private async index(): Promise<ToolRanker> {
    if (this.ranker) return this.ranker;
    this.building ??= ToolRanker.build(this.sources(), { cache: analyses });
    return (this.ranker = await this.building);
  }

  /**
   * One tool_search call of a client: the best tools, those not in its list yet added to
   * `found` while it has room. A wrong argument is a tool error the client's model can read.
   */
  async search(args: unknown, found: Set<string>, describe: (t: ServedTool) => FoundTool): Promise<{ result: CallToolResult; added: string[] }> {
    const read = readArgs(args, this.results);
    if (typeof read === 'string') return { result: { content: [{ type: 'text', text: `VALIDATION_FAILED: ${read}` }], isError: true }, added: [] };
    const hits = (await this.index()).rank(read.query, read.limit);
    // Tools found earlier that are no longer served (removed, renamed, switched off) give their room back.
    for (const name of found) if (!this.byName.has(name)) found.delete(name);
    const tools: FoundTool[] = [];
    const added: string[] = [];
    let full = 0;
    for (const h of hits) {
      const t = this.byName.get(h.key);
      if (!t) continue;
      tools.push(describe(t));
      if (this.listed(t.name, found)) continue;
      if (this.pinned.size + found.size >= this.room) {
        full++;
        continue;
      }
      found.add(t.name);
      added.push(t.name);
    }
    const note = full
      ? `${full} of these were not added to your tool list: it holds at most ${MAX_LISTED_TOOLS} tools. Call them by name all the same`
      : !tools.length
        ? 'no tool matches: try other words, or describe the task differently'
        : undefined;
    const answer: ToolSearchAnswer = { tools, added, ...(note ? { note } : {}) };
    return { result: { content: [{ type: 'text', text: answerText(answer) }], structuredContent: answer as unknown as Record<string, unknown> }, added };
  }
}

/**
 * The answer as a model reads it: each tool's name, short description and arguments as
 * `name*: type`. The structured content carries the whole input schemas; the text does not
 * repeat them, since a client that reads the list again has them there (five schemas of a
 * realistic registry take some 3,800 tokens, this text some 350).
 */
export function answerText(a: ToolSearchAnswer): string {
  const lines = a.tools.map((t) => {
    const args = argsSummary(t.inputSchema);
    return `- ${t.name}: ${t.description}${args ? `\n  arguments: ${args}` : '\n  arguments: none'}`;
  });
  const head = !a.tools.length
    ? ''
    : a.added.length
      ? `Added to your tool list: ${a.added.join(', ')}. Call any of these tools by name:`
      : 'Call any of these tools by name:';
  return [head, ...lines, ...(a.note ? [a.note] : [])].filter(Boolean).join('\n');
}

/** The query and the limit, or what is wrong with them. */
function readArgs(args: unknown, defaultLimit: number): { query: string; limit: number } | string {
  const a = (typeof args === 'object' && args !== null ? args : {}) as { query?: unknown; limit?: unknown };
  if (typeof a.query !== 'string' || !a.query.trim()) return `${TOOL_SEARCH_NAME} needs a "query": what you need to do, in a sentence`;
  if (a.query.length > TOOL_SEARCH_MAX_QUERY) return `the query is too long: at most ${TOOL_SEARCH_MAX_QUERY} characters`;
  if (a.limit !== undefined && (typeof a.limit !== 'number' || !Number.isInteger(a.limit) || a.limit < 1 || a.limit > TOOL_SEARCH_MAX_RESULTS)) {
    return `"limit" must be a whole number from 1 to ${TOOL_SEARCH_MAX_RESULTS}`;
  }
  return { query: a.query.trim(), limit: (a.limit as number | undefined) ?? defaultLimit };
}

/** What a client is told when it calls a name that is not served, while it searches for tools. */
export const unknownWhileSearching = (name: string) =>
  `unknown tool '${String(name).slice(0, 100)}': call ${TOOL_SEARCH_NAME} with what you need to do, then call one of the tools it returns`;
