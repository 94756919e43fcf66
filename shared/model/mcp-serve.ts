/**
 * The registry served over MCP (docs/mcp.md, "Serving the registry out"): which bundles other MCP clients
 * (Claude Desktop, Cursor, VS Code) see, where they reach it, and the approvals it asks for.
 */
import { z } from 'zod';
import { ApprovalInfoSchema } from './tool-approval';

/** Settings → MCP server. Off by default: nothing is served until the user picks bundles. */
export const McpServerSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The bundles whose enabled tools are served (bundle ids). */
    bundleIds: z.array(z.string().min(1).max(512)).max(1000),
  })
  .strict();
export type McpServerSettings = z.infer<typeof McpServerSettingsSchema>;

export const DEFAULT_MCP_SERVER_SETTINGS: McpServerSettings = { enabled: false, bundleIds: [] };

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
