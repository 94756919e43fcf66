/**
 * Whether a tool asks before it runs, and why: computed here only, and used by every check
 * (a model's call in the chat, a call served over MCP, the editor, an import report).
 *
 * A tool is only as safe as what it runs, so a tool asks when
 * - it says so itself (`requiresApproval`; an MCP server's tool that may be destructive is
 *   stored with it, electron/core/mcp-client/tool-sync.ts);
 * - it is a local tool whose function a built-in tool asks for: the built-in configs declare
 *   which functions ask (`writefile` runs `files.write` and asks, so every tool that runs
 *   `files.write` asks, whatever it says of itself);
 * - it is a sequence with a step whose tool asks (steps run without asking: the sequence asks
 *   once for all of them);
 * - it is a script tool that was not written in this app (an imported bundle's, a dropped-in
 *   one, one copied into the data folder) and the user has not allowed yet: it asks before its
 *   first run; allowing it where the app shows its source trusts it (ToolStore.trustAllowedScript,
 *   electron/core/bundles/script-trust.ts). A sequence with such a step asks too (`step`), but
 *   allowing the sequence trusts no step's script: the step is refused at its turn until its own
 *   source is read and trusted.
 */
import { z } from 'zod';
import { McpToolAnnotationsSchema, type Tool } from './tool';

export const ApprovalReasonSchema = z.discriminatedUnion('kind', [
  /** The tool's own requiresApproval. */
  z.object({ kind: z.literal('tool') }).strict(),
  /** A local tool running a function that asks (a built-in tool running it asks). */
  z.object({ kind: z.literal('function'), functionId: z.string() }).strict(),
  /** A sequence step whose tool asks; `tool` is `slug@version`. */
  z.object({ kind: z.literal('step'), step: z.string(), tool: z.string() }).strict(),
  /** A script tool not written in this app, not yet allowed: it asks before its first run. */
  z.object({ kind: z.literal('script') }).strict(),
]);
export type ApprovalReason = z.infer<typeof ApprovalReasonSchema>;

/** Why a call waits for the user, shown where the user answers. */
export const ApprovalInfoSchema = z
  .object({
    reason: ApprovalReasonSchema,
    /** A tool of an MCP server: the hints the server gave (`{}` when it gave none). */
    mcpHints: McpToolAnnotationsSchema.optional(),
  })
  .strict();
export type ApprovalInfo = z.infer<typeof ApprovalInfoSchema>;

/** What the rule reads of a tool. */
export type ApprovalSubject = Pick<Tool, 'bundleId' | 'slug' | 'version' | 'type' | 'local' | 'sequence' | 'mcp' | 'requiresApproval' | 'isBuiltIn'> & { script?: { sha256: string } | undefined };

export interface ApprovalContext {
  /** Whether a function asks wherever it runs. */
  functionAsks(functionId: string): boolean;
  /** A sequence step's tool, or undefined when there is none. */
  toolAt(bundleId: string, slug: string, version: string): ApprovalSubject | undefined;
  /** Whether a script source (by SHA-256) was written in this app or allowed by the user. */
  scriptTrusted(sha256: string): boolean;
}

/** How deep sequence steps are followed (the dispatcher refuses deeper nesting too). */
const MAX_DEPTH = 8;

/**
 * The context over the registry's tools: a function asks when a built-in local tool that runs
 * it asks. `tools` is read once, on first need (most calls need nothing of it). Without
 * `scriptTrusted`, no script is trusted (every script tool asks).
 */
export function approvalContext(tools: () => Iterable<ApprovalSubject>, scriptTrusted: (sha256: string) => boolean = () => false): ApprovalContext {
  let asking: Set<string> | undefined;
  let byKey: Map<string, ApprovalSubject> | undefined;
  const load = () => {
    asking = new Set();
    byKey = new Map();
    for (const t of tools()) {
      byKey.set(keyOf(t.bundleId, t.slug, t.version), t);
      if (t.isBuiltIn && t.requiresApproval && t.type === 'local' && t.local) asking.add(t.local.functionId);
    }
  };
  return {
    functionAsks: (id) => {
      if (!asking) load();
      return asking!.has(id);
    },
    toolAt: (bundleId, slug, version) => {
      if (!byKey) load();
      return byKey!.get(keyOf(bundleId, slug, version));
    },
    scriptTrusted,
  };
}

function keyOf(bundleId: string, slug: string, version: string): string {
  return `${bundleId}\u0000${slug}\u0000${version}`;
}

/** Why `tool` asks before it runs, or null when it does not. */
export function approvalOf(tool: ApprovalSubject, ctx: ApprovalContext): ApprovalInfo | null {
  const reason = reasonOf(tool, ctx, 0, new Set());
  if (!reason) return null;
  return tool.type === 'mcp' ? { reason, mcpHints: tool.mcp?.annotations ?? {} } : { reason };
}

function reasonOf(tool: ApprovalSubject, ctx: ApprovalContext, depth: number, seen: Set<string>): ApprovalReason | null {
  // Where the code came from first: it is what the user most needs to know before allowing it.
  if (tool.type === 'script' && !(tool.script && ctx.scriptTrusted(tool.script.sha256))) return { kind: 'script' };
  if (tool.requiresApproval) return { kind: 'tool' };
  if (tool.type === 'local' && tool.local && ctx.functionAsks(tool.local.functionId)) return { kind: 'function', functionId: tool.local.functionId };
  if (tool.type !== 'sequence' || depth >= MAX_DEPTH) return null;
  const key = keyOf(tool.bundleId, tool.slug, tool.version);
  if (seen.has(key)) return null;
  seen.add(key);
  for (const step of tool.sequence?.steps ?? []) {
    const target = ctx.toolAt(step.tool.bundleId, step.tool.slug, step.tool.version);
    if (target && reasonOf(target, ctx, depth + 1, seen)) return { kind: 'step', step: step.id, tool: `${step.tool.slug}@${step.tool.version}` };
  }
  return null;
}

/** Whether an MCP server's hints leave a tool possibly destructive (the MCP defaults: destructiveHint true, readOnlyHint false). */
export function possiblyDestructive(hints: z.infer<typeof McpToolAnnotationsSchema> | undefined): boolean {
  return hints?.readOnlyHint !== true && hints?.destructiveHint !== false;
}

/** Whether an MCP server said anything of a tool's effects (read-only or destructive). */
export function hintsGiven(hints: z.infer<typeof McpToolAnnotationsSchema> | undefined): boolean {
  return hints?.readOnlyHint !== undefined || hints?.destructiveHint !== undefined;
}
