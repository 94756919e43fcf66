/** MCP servers brought in as bundles: each server's tools are the tools of its bundle. */
import { z } from 'zod';
import { ElicitActionSchema, ElicitationRequestSchema, ElicitValueSchema } from '../model/elicitation';
import { McpImportReportSchema, McpLogLineSchema, McpResourceContentSchema, McpServerEditSchema, McpServerInputSchema, McpServerViewSchema } from '../model/mcp-client';
import { keyedRecord } from '../model/keyed-record';
import { BundleRef, Empty, Key, type EventTable, type OperationTable } from './common';

export const mcpClientOperations = {
  'mcpServers.list': { input: Empty, output: z.array(McpServerViewSchema) },
  /**
   * One resource of the bundle's server (resources/read), e.g. what a tool's result links to:
   * each item's text, or its bytes as a `data:` URL with their size. NOT_FOUND for a bundle that
   * is not a server's; PAYLOAD_TOO_LARGE over MCP_RESOURCE_MAX_BYTES in all.
   */
  'mcpServers.readResource': {
    input: z.object({ ...BundleRef, uri: z.string().min(1).max(2048) }).strict(),
    output: z.object({ contents: z.array(McpResourceContentSchema) }).strict(),
  },
  /** Adds a server (stdio or Streamable HTTP) as a new bundle, starts it and stores its tools. */
  'mcpServers.add': { input: z.object({ server: McpServerInputSchema, enabled: z.boolean().optional() }).strict(), output: McpServerViewSchema },
  /**
   * Changes a server's settings (the same input as add; timeouts, restarts and trust left out
   * keep their values, and a value shown hidden given back unchanged keeps the saved one). The
   * server's file is rewritten, its bundle renamed with it, and the server started again with them.
   */
  'mcpServers.update': { input: z.object({ ...BundleRef, server: McpServerEditSchema }).strict(), output: McpServerViewSchema },
  /**
   * Adds every server of an `mcpServers` JSON (Claude Desktop, Cursor) or VS Code `servers` JSON;
   * with `skipExisting`, an entry whose name a server has (in any case) is left as it is and reported as existing.
   */
  'mcpServers.import': { input: z.object({ text: z.string().min(1).max(1024 * 1024), skipExisting: z.boolean().optional() }).strict(), output: McpImportReportSchema },
  /** The server's stderr and what happened to it (the last lines). */
  'mcpServers.log': { input: z.object(BundleRef).strict(), output: z.array(McpLogLineSchema) },
  /** Stops and starts it again (its restart count forgotten) and lists its tools again. */
  'mcpServers.restart': { input: z.object(BundleRef).strict(), output: McpServerViewSchema },
  /** Whether the server's tools that give no hints run without asking (off: they ask, as MCP says they may be destructive). */
  'mcpServers.setTrust': { input: z.object({ ...BundleRef, trustUnannotatedTools: z.boolean() }).strict(), output: McpServerViewSchema },
  /** Stops it and removes its config, its bundle and its tools. */
  'mcpServers.remove': { input: z.object(BundleRef).strict(), output: z.object({ removed: z.literal(true) }).strict() },
  /** Questions MCP servers ask the user mid-call (elicitation), waiting for an answer in the app. */
  'mcpElicitations.list': { input: Empty, output: z.array(ElicitationRequestSchema) },
  /**
   * The user's answer: accept (a form's values, checked against it: refused with why when they
   * do not fit, and the question keeps waiting), decline or cancel. `accepted` is false when
   * the question no longer waits.
   */
  'mcpElicitations.respond': {
    input: z.object({ id: Key, action: ElicitActionSchema, content: keyedRecord(z.string().max(200), ElicitValueSchema).optional() }).strict(),
    output: z.object({ accepted: z.boolean() }).strict(),
  },
} as const satisfies OperationTable;

export const mcpClientEvents = {
  /** An MCP server's status or tools changed, or it was added or removed. */
  'mcpServers.changed': z.object({ bundleId: z.string() }).strict(),
  /** A server's question started or stopped waiting for the user. */
  'mcpElicitations.changed': z.object({}).strict(),
} as const satisfies EventTable;
