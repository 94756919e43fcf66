import { z } from 'zod';
import { DisplayNameSchema, UuidV7Schema } from './validation';
import { keyedRecord } from './keyed-record';

/**
 * MCP servers brought in as bundles (electron/core/mcp-client): how to reach one, its
 * timeouts, and what the app knows of it while it runs. The file
 * `<data>/mcp-servers/<bundleId>.json` holds a McpServerFile.
 */

const EnvName = z.string().min(1).max(256).regex(/^[^=\0]+$/, { error: "an environment variable name must not contain '=' or NUL" });
const HeaderName = z.string().min(1).max(256).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: "a header name may contain letters, digits and !#$%&'*+.^_`|~- only" });
const NoNul = z.string().max(32 * 1024).regex(/^[^\0]*$/, { error: 'must not contain NUL characters' });

/**
 * An OAuth client registered beforehand with an MCP server's authorization server (GitHub and
 * others have no dynamic registration): its id, its secret as `${secret:NAME}` (the value stays
 * in the secret store, bound to the authorization server's host), and the loopback port of the
 * redirect URL registered with it (`http://127.0.0.1:PORT/oauth/callback`; any port when none).
 */
export const McpOAuthClientSchema = z
  .object({
    clientId: z.string().trim().min(1).max(512).regex(/^[\x21-\x7e]+$/, { error: 'a client id is printable ASCII without spaces' }),
    clientSecret: z
      .string()
      .trim()
      .regex(/^\$\{secret:[A-Za-z][A-Za-z0-9_.-]{0,63}\}$/, { error: 'give the client secret as ${secret:NAME}: its value is kept in the secret store, never in this file' })
      .optional(),
    redirectPort: z.number().int().min(1024).max(65535).optional(),
  })
  .strict();
export type McpOAuthClient = z.infer<typeof McpOAuthClientSchema>;

export const McpStdioSchema = z
  .object({
    transport: z.literal('stdio'),
    /** The program to start (looked up on PATH), e.g. `npx` or `/usr/bin/python3`. */
    command: z.string().trim().min(1, { error: 'a command is required' }).max(4096).regex(/^[^\0]*$/),
    args: z.array(NoNul).max(256).default([]),
    /** Added to a small inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
    env: keyedRecord(EnvName, NoNul).default({}),
    /** The working folder; absent: the workspace folder. */
    cwd: z.string().max(4096).optional(),
  })
  .strict();

export const McpHttpSchema = z
  .object({
    transport: z.literal('http'),
    /** The Streamable HTTP endpoint, e.g. https://example.com/mcp. */
    url: z
      .string()
      .max(4096)
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), { error: 'must be an http:// or https:// URL' }),
    /** Sent with every request; values may hold `${secret:NAME}`, sent only to a host the secret is bound to. */
    headers: keyedRecord(HeaderName, NoNul).default({}),
    /** An OAuth client registered beforehand, for authorization servers without dynamic registration. */
    oauthClient: McpOAuthClientSchema.optional(),
  })
  .strict();

export const McpConnectionSchema = z.discriminatedUnion('transport', [McpStdioSchema, McpHttpSchema]);
export type McpConnection = z.infer<typeof McpConnectionSchema>;
export type McpConnectionInput = z.input<typeof McpConnectionSchema>;

export const MCP_DEFAULT_START_TIMEOUT_MS = 30_000;
export const MCP_DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const MCP_DEFAULT_MAX_RESTARTS = 3;

export const McpTimeoutsSchema = z
  .object({
    /** Starting the server and its `initialize` answer. */
    startMs: z.number().int().min(100).max(600_000).default(MCP_DEFAULT_START_TIMEOUT_MS),
    /** One tools/call (the dispatcher's deadline applies too; the shorter wins). */
    callMs: z.number().int().min(100).max(3_600_000).default(MCP_DEFAULT_CALL_TIMEOUT_MS),
  })
  .strict();

/** What a person gives to add a server. */
export const McpAppTrustSchema = z.enum(['ask', 'always', 'never']);
export type McpAppTrust = z.infer<typeof McpAppTrustSchema>;

export const McpServerInputSchema = z
  .object({
    name: DisplayNameSchema,
    connection: McpConnectionSchema,
    timeouts: McpTimeoutsSchema.default({ startMs: MCP_DEFAULT_START_TIMEOUT_MS, callMs: MCP_DEFAULT_CALL_TIMEOUT_MS }),
    /** Restarts after crashes before the server is left failed (a manual restart resets the count). */
    maxRestarts: z.number().int().min(0).max(20).default(MCP_DEFAULT_MAX_RESTARTS),
    /**
     * The server's tools that give no hints of their effects run without asking. Off by
     * default: per MCP, a tool without hints may be destructive, so a model's call of it
     * waits for approval. A tool the server marks destructive always asks.
     */
    trustUnannotatedTools: z.boolean().default(false),
    /**
     * The server's MCP Apps (a tool's own page, shown in its card): asked before the first one
     * is shown (ask), shown at once (always), or never shown (never).
     */
    apps: McpAppTrustSchema.default('ask'),
    /** With apps 'always': the sites its apps were allowed to reach then; a page that reaches another asks again. */
    appDomains: z.array(z.string().max(300)).max(256).default([]),
  })
  .strict();
export type McpServerInput = z.input<typeof McpServerInputSchema>;
export type McpServerConfig = z.output<typeof McpServerInputSchema>;

/**
 * What a person gives to change a server: the same as to add one, but the settings left out
 * (timeouts, restarts, trust) keep their current values rather than going back to the defaults.
 */
export const McpServerEditSchema = McpServerInputSchema.extend({
  timeouts: McpTimeoutsSchema.optional(),
  maxRestarts: z.number().int().min(0).max(20).optional(),
  trustUnannotatedTools: z.boolean().optional(),
  apps: McpAppTrustSchema.optional(),
}).strict();
export type McpServerEdit = z.input<typeof McpServerEditSchema>;

/**
 * How a literal environment or header value is shown (a value that only names secrets is shown
 * as written). Given back unchanged in an edit, it keeps the value saved under that name.
 */
export const MCP_HIDDEN_VALUE = '••••••';

export const McpServerFileSchema = z
  .object({
    version: z.literal(1),
    bundleId: UuidV7Schema,
    server: McpServerInputSchema,
    createdAt: z.string(),
  })
  .strict();
export type McpServerFile = z.infer<typeof McpServerFileSchema>;

export const McpServerStateSchema = z.enum(['stopped', 'starting', 'connected', 'failed']);
export type McpServerState = z.infer<typeof McpServerStateSchema>;

export const McpServerStatusSchema = z
  .object({
    state: McpServerStateSchema,
    /** Why it failed (or why it stopped), in words a person can act on. */
    reason: z.string().optional(),
    since: z.string(),
    /** Restarts after failures since the last manual start. */
    restarts: z.number().int(),
    pid: z.number().int().optional(),
    serverInfo: z.object({ name: z.string(), version: z.string() }).strict().optional(),
    /** Tools the server listed that could not be brought in, and why. */
    skipped: z.array(z.object({ name: z.string(), reason: z.string() }).strict()),
    /** Stored tools the server no longer lists (kept on disk). */
    missing: z.array(z.string()),
    /** Why the server brought in no tools at all, when it listed none (e.g. it offers no tools capability). */
    noTools: z.string().optional(),
  })
  .strict();
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

/** A server as the Tools screen shows it: its config (literal header and env values hidden) and status. */
export const McpServerViewSchema = z
  .object({
    bundleId: z.string(),
    name: z.string(),
    connection: McpConnectionSchema,
    timeouts: McpTimeoutsSchema,
    maxRestarts: z.number().int(),
    trustUnannotatedTools: z.boolean(),
    apps: McpAppTrustSchema,
    status: McpServerStatusSchema,
  })
  .strict();
export type McpServerView = z.infer<typeof McpServerViewSchema>;

/** MCP's log levels (RFC 5424's severities), least severe first. */
export const McpLogLevelSchema = z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
export type McpLogLevel = z.infer<typeof McpLogLevelSchema>;

/**
 * A line of a server's log: its stderr, a stdout line that is not an MCP message, what happened
 * to it (`event`), or a log message it sent (`message`: notifications/message, with its level and
 * the name of its logger when it gave one).
 */
export const McpLogLineSchema = z
  .object({
    at: z.string(),
    stream: z.enum(['stderr', 'stdout', 'event', 'message']),
    text: z.string(),
    level: McpLogLevelSchema.optional(),
    logger: z.string().optional(),
  })
  .strict();
export type McpLogLine = z.infer<typeof McpLogLineSchema>;

export const McpImportReportSchema = z
  .object({
    added: z.array(McpServerViewSchema),
    /** Entries that were not added, and why. */
    refused: z.array(z.object({ name: z.string(), message: z.string() }).strict()),
    /** With `skipExisting`: entries left as they are because a server has their name. */
    existing: z.array(z.object({ name: z.string(), bundleId: z.string() }).strict()).optional(),
  })
  .strict();
export type McpImportReport = z.infer<typeof McpImportReportSchema>;

/** The most a resource read from a server may hold, text and bytes together. */
export const MCP_RESOURCE_MAX_BYTES = 4 * 1024 * 1024;

/** One item of a resources/read answer as shown: its text, or its bytes as a `data:` URL. */
export const McpResourceContentSchema = z
  .object({ uri: z.string(), mimeType: z.string().optional(), text: z.string().optional(), dataUrl: z.string().optional(), bytes: z.number().int().min(0).optional() })
  .strict();
export type McpResourceContent = z.infer<typeof McpResourceContentSchema>;
