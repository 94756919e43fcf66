/**
 * The registry served over MCP (docs/mcp.md, "Serving the registry out"): which bundles other MCP clients
 * (Claude Desktop, Cursor, VS Code) see, where they reach it, and the approvals it asks for.
 */
import { z } from 'zod';
import { ApprovalInfoSchema } from './tool-approval';
import { ToolSearchModeSchema } from './tool-search';

/** The most served tools the `auto` threshold of progressive discovery may be set to. */
export const MCP_TOOL_SEARCH_MAX_TOOLS = 10_000;

/**
 * Progressive discovery for MCP clients (docs/mcp.md, "Progressive discovery"): instead of
 * every served tool, tools/list gives the pinned tools (Settings → Tool search), `tool_search`
 * and `tool_output`, and a search adds the tools it finds to that client's list. `auto` does
 * that when more than `maxTools` tools are served, `always` whatever the count, `off` never.
 * The pinned tools and how many tools a search returns are Settings → Tool search's.
 */
export const McpToolSearchSettingsSchema = z
  .object({
    mode: ToolSearchModeSchema,
    /** More served tools than this: clients search (auto). */
    maxTools: z.number().int().min(1).max(MCP_TOOL_SEARCH_MAX_TOOLS),
  })
  .strict();
export type McpToolSearchSettings = z.infer<typeof McpToolSearchSettingsSchema>;

/**
 * On past 50 tools: a served list that size takes some 35,000 tokens of every request a
 * client makes (the tools of a realistic registry average about 700 tokens each), and a
 * smaller one is served whole as before.
 */
export const DEFAULT_MCP_TOOL_SEARCH: McpToolSearchSettings = { mode: 'auto', maxTools: 50 };

/** Settings → MCP server. Off by default: nothing is served until the user picks bundles. */
export const McpServerSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The bundles whose enabled tools are served (bundle ids). */
    bundleIds: z.array(z.string().min(1).max(512)).max(1000),
    /** Progressive discovery; absent (a settings file written before it existed): the default. */
    toolSearch: McpToolSearchSettingsSchema.default(DEFAULT_MCP_TOOL_SEARCH),
    /**
     * A tool that requires approval, called when no Toolsmith window is open to ask: the client's
     * own user is asked to confirm (MCP elicitation), where the client can ask. Off: it is refused.
     */
    askClient: z.boolean().default(true),
  })
  .strict();
export type McpServerSettings = z.infer<typeof McpServerSettingsSchema>;

export const DEFAULT_MCP_SERVER_SETTINGS: McpServerSettings = { enabled: false, bundleIds: [], toolSearch: DEFAULT_MCP_TOOL_SEARCH, askClient: true };

/** Where clients reach the server, for the config snippets of Settings → MCP server. */
export const McpServerInfoSchema = z
  .object({
    dataDir: z.string(),
    /** The command that starts the stdio server over this data folder (argv; the data folder follows). */
    stdioCommand: z.array(z.string()),
    /** The Streamable HTTP endpoint of the running headless host; null where none runs. */
    httpUrl: z.string().nullable(),
    /** The file holding the bearer token the HTTP endpoint needs (never the token itself). */
    tokenFile: z.string().nullable(),
  })
  .strict();
export type McpServerInfo = z.infer<typeof McpServerInfoSchema>;

/** A served tool's call waiting for the user's answer in the app. */
export const McpApprovalRequestSchema = z
  .object({
    id: z.string(),
    toolId: z.string(),
    /** bundle/slug */
    toolName: z.string(),
    displayName: z.string(),
    args: z.unknown(),
    /**
     * The name and version the MCP client gave itself in initialize: its own claim, never
     * verified. Cleaned by the core (no control, bidi or invisible characters, one line, at
     * most MCP_CLIENT_NAME_MAX characters); empty when it gave none.
     */
    client: z.string().max(64 * 1024),
    /** Set when the call comes from the MCP App of this server (a tool's own page in a card), not from a client. */
    appOf: z.string().max(256).optional(),
    /** Why the tool asks, and an MCP server's hints for it. */
    approval: ApprovalInfoSchema.optional(),
    requestedAt: z.string(),
  })
  .strict();
export type McpApprovalRequest = z.infer<typeof McpApprovalRequestSchema>;

/** The most characters of a client's self-given name shown in the approval prompt. */
export const MCP_CLIENT_NAME_MAX = 60;

/** allow-conversation allows the tool for the rest of that client's session. */
export const McpApprovalDecisionSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny']);
export type McpApprovalDecision = z.infer<typeof McpApprovalDecisionSchema>;

/** The token MCP clients send to `/mcp` (it reaches the served tools and nothing else), and its file. */
export const McpTokenSchema = z.object({ token: z.string(), file: z.string() }).strict();
export type McpToken = z.infer<typeof McpTokenSchema>;

/**
 * `toolsmith mcp` (its own process) asks the running app on the same data folder to show an
 * approval in its window: the request without the id and time the app gives it.
 */
export const McpApprovalAskSchema = McpApprovalRequestSchema.omit({ id: true, requestedAt: true });
export type McpApprovalAsk = z.infer<typeof McpApprovalAskSchema>;

/** The user's decision, or why there is none (no window open, nobody answered in time, the window closed). */
export const McpApprovalOutcomeSchema = z.union([z.object({ decision: McpApprovalDecisionSchema }).strict(), z.object({ refused: z.string() }).strict()]);
export type McpApprovalOutcome = z.infer<typeof McpApprovalOutcomeSchema>;
