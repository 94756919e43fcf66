/** MCP Apps: a tool's own page in its card; every request of the page is checked by the core. */
import { z } from 'zod';
import { AppCallResultSchema, AppConsentSchema, AppOpenResultSchema } from '../model/mcp-apps';
import { McpAppTrustSchema, McpLogLevelSchema, McpServerViewSchema } from '../model/mcp-client';
import { BundleRef, Key, type EventTable, type OperationTable } from './common';

const ViewRef = { viewId: Key };

export const mcpAppsOperations = {
  /**
   * Opens the app of an MCP tool (its `mcp.ui.resourceUri`): reads its page from the server and
   * checks it. A server whose apps are asked about answers `ask` until a consent is given
   * (`always` also saves it for the server); one whose apps are off answers `off`.
   */
  'mcpApps.open': { input: z.object({ toolId: Key, consent: AppConsentSchema.optional() }).strict(), output: AppOpenResultSchema },
  /**
   * A call the app makes (`tools/call`): a tool of its own server that lets apps call it,
   * through the dispatcher as every call (approvals, limits, the log; source "app").
   */
  'mcpApps.callTool': {
    input: z.object({ ...ViewRef, name: z.string().min(1).max(256), arguments: z.record(z.string(), z.unknown()).optional() }).strict(),
    output: AppCallResultSchema,
  },
  /** A log message of the app, into its server's log. */
  'mcpApps.log': { input: z.object({ ...ViewRef, level: McpLogLevelSchema, data: z.unknown() }).strict(), output: z.object({}).strict() },
  /** The app's card went away: its view is forgotten, and its requests refused from now on. */
  'mcpApps.close': { input: z.object(ViewRef).strict(), output: z.object({ closed: z.boolean() }).strict() },
  /** Whether a server's apps are shown: asked first, always, or never. */
  'mcpApps.setTrust': { input: z.object({ ...BundleRef, apps: McpAppTrustSchema }).strict(), output: McpServerViewSchema },
} as const satisfies OperationTable;

export const mcpAppsEvents = {
  /** The core closed an app (its server's bundle was switched off or removed, or too many were open). */
  'mcpApps.closed': z.object({ viewId: z.string(), reason: z.string() }).strict(),
} as const satisfies EventTable;
