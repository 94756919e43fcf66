/**
 * The registry served over MCP (docs/mcp.md, "Serving the registry out"): which bundles other MCP clients
 * (Claude Desktop, Cursor, VS Code) see, where they reach it, and the approvals it asks for.
 */
import { z } from 'zod';

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
    /** The MCP client that asked (its name and version, as it said in initialize). */
    client: z.string(),
    requestedAt: z.string(),
  })
  .strict();
export type McpApprovalRequest = z.infer<typeof McpApprovalRequestSchema>;

/** allow-conversation allows the tool for the rest of that client's session. */
export const McpApprovalDecisionSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny']);
export type McpApprovalDecision = z.infer<typeof McpApprovalDecisionSchema>;
