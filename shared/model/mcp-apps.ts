/**
 * MCP Apps (extension io.modelcontextprotocol/ui): a tool's own page, shown in its card in a
 * sandboxed frame. The page never passes through the renderer: the core reads it from the
 * server, checks it and hands the host a one-time address on a separate origin; the renderer
 * makes the frame and bridges its messages to `mcpApps.*`, where the core checks each one.
 */
import { z } from 'zod';

/** The domains an app's page may reach, as its server declared them and the core kept them (mcp-apps/resource.ts). */
export const AppCspDomainsSchema = z
  .object({
    connectDomains: z.array(z.string()),
    resourceDomains: z.array(z.string()),
    frameDomains: z.array(z.string()),
    baseUriDomains: z.array(z.string()),
  })
  .strict();
export type AppCspDomainsView = z.infer<typeof AppCspDomainsSchema>;

/** What a person is told before the first app of a server they have not trusted is shown. */
export const AppAskSchema = z
  .object({
    status: z.literal('ask'),
    bundleId: z.string(),
    server: z.string(),
    pageBytes: z.number().int(),
    domains: AppCspDomainsSchema,
    /** Declared entries left out (a private address, a permission), each with why. */
    refused: z.array(z.string()),
  })
  .strict();

/** The tool as its server described it, for the app's host context (`toolInfo.tool`). */
export const AppToolInfoSchema = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    _meta: z.record(z.string(), z.unknown()),
  })
  .strict();
export type AppToolInfo = z.infer<typeof AppToolInfoSchema>;

/** An app ready to be shown: its frame's one-time address, and what the bridge tells the page. */
export const AppOpenSchema = z
  .object({
    status: z.literal('open'),
    viewId: z.string(),
    /** Loads once: a second load (the page navigated) is a 404. */
    frameUrl: z.string(),
    bundleId: z.string(),
    server: z.string(),
    pageBytes: z.number().int(),
    domains: AppCspDomainsSchema,
    refused: z.array(z.string()),
    prefersBorder: z.boolean().optional(),
    tool: AppToolInfoSchema,
  })
  .strict();
export type AppOpen = z.infer<typeof AppOpenSchema>;

/** The server's apps are switched off (Tools → the server → Apps). */
export const AppOffSchema = z.object({ status: z.literal('off'), bundleId: z.string(), server: z.string(), message: z.string() }).strict();

export const AppOpenResultSchema = z.discriminatedUnion('status', [AppAskSchema, AppOpenSchema, AppOffSchema]);
export type AppOpenResult = z.infer<typeof AppOpenResultSchema>;

/** A person's answer to "show this server's app?": this once, or always for the server. */
export const AppConsentSchema = z.enum(['once', 'always']);
export type AppConsent = z.infer<typeof AppConsentSchema>;

/** An MCP `CallToolResult`, as an app receives it. */
export const AppCallResultSchema = z
  .object({
    content: z.array(z.record(z.string(), z.unknown())),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  })
  .strict();
export type AppCallResult = z.infer<typeof AppCallResultSchema>;

/**
 * A tool's value as the MCP result its app expects: an object is `structuredContent` with its
 * JSON as text beside it (as MCP asks of a server), text stays text, anything else is its JSON.
 */
export function callResultOf(value: unknown, isError = false): AppCallResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const out: AppCallResult = { content: [{ type: 'text', text }] };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) out.structuredContent = value as Record<string, unknown>;
  if (isError) out.isError = true;
  return out;
}

/**
 * What an app's message (`ui/message`) becomes in the chat, once the person posts it: said to
 * come from the app, its text in a fenced block longer than any run of backticks in it, so no
 * line of it runs as a directive (`@input`, `@tools`, `@model`) and it cannot close the fence.
 */
export function appMessageText(server: string, text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `From the app of ${server.replace(/[\r\n]+/g, ' ')}:\n${fence}text\n${text}\n${fence}`;
}
