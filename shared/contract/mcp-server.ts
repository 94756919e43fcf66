/** The registry served over MCP (Settings → MCP server): where clients reach it, and the approvals it asks. */
import { z } from 'zod';
import { McpApprovalAskSchema, McpApprovalDecisionSchema, McpApprovalOutcomeSchema, McpApprovalRequestSchema, McpServerInfoSchema, McpTokenSchema } from '../model/mcp-serve';
import { Empty, Key, type EventTable, type OperationTable } from './common';

export const mcpServerOperations = {
  'mcpServer.info': { input: Empty, output: McpServerInfoSchema },
  /** Served tools' calls waiting for an answer in the app. */
  'mcpServer.approvals': { input: Empty, output: z.array(McpApprovalRequestSchema) },
  'mcpServer.respond': { input: z.object({ id: Key, decision: McpApprovalDecisionSchema }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
  /** The token for `/mcp` (the served tools only, never the rest of the API), created on first read. */
  'mcpServer.token': { input: Empty, output: McpTokenSchema },
  /** A new token for `/mcp`: the old one stops working at once (configs that hold it must be updated). */
  'mcpServer.rotateToken': { input: Empty, output: McpTokenSchema },
  /** Shows an approval of `toolsmith mcp` (another process on this data folder) in this app's window; waits for the answer. */
  'mcpServer.askApproval': { input: McpApprovalAskSchema, output: McpApprovalOutcomeSchema },
} as const satisfies OperationTable;

export const mcpServerEvents = {
  /** A served tool's call started or stopped waiting for approval in the app. */
  'mcpServer.approvalsChanged': z.object({}).strict(),
} as const satisfies EventTable;
