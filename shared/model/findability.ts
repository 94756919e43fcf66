import { z } from 'zod';

/**
 * The findability report (docs/tool-search.md, "Findability"): which of the user's tools a
 * model's `tool_search` will have trouble finding, and which pairs it cannot tell apart, each
 * with what to change. Made by electron/core/tool-search/findability.ts over the tools a turn
 * would search (every usable tool, one version each); the built-in tools are ranked beside the
 * user's but never reported on.
 */
export const FINDING_KINDS = ['empty-description', 'short-description', 'vague-name', 'hard-to-find', 'collision'] as const;
export const FindingKindSchema = z.enum(FINDING_KINDS);
export type FindingKind = z.infer<typeof FindingKindSchema>;

/** high: a model will likely miss or confuse the tool; `toolsmith tools doctor` exits 1 on any. */
export const FindingSeveritySchema = z.enum(['high', 'medium', 'low']);
export type FindingSeverity = z.infer<typeof FindingSeveritySchema>;

export const FindingToolSchema = z
  .object({
    bundleId: z.string(),
    bundleSlug: z.string(),
    slug: z.string(),
    version: z.string(),
    displayName: z.string(),
    /** A built-in tool: ranked beside the user's, its description cannot be changed here. */
    isBuiltIn: z.boolean(),
  })
  .strict();
export type FindingTool = z.infer<typeof FindingToolSchema>;

export const FindingSchema = z
  .object({
    kind: FindingKindSchema,
    severity: FindingSeveritySchema,
    /** The tool the finding is about first; a collision names the other one second. */
    tools: z.array(FindingToolSchema).min(1).max(2),
    /** What is wrong, in plain words. */
    message: z.string(),
    /** What to change. */
    suggestion: z.string(),
    /** hard-to-find: the query made from the tool's own words. */
    query: z.string().optional(),
    /** hard-to-find: the tool's place for that query (1 = first), or null when not in the first RANK_DEPTH. */
    rank: z.number().int().min(1).nullable().optional(),
  })
  .strict();
export type Finding = z.infer<typeof FindingSchema>;

export const FindabilityReportSchema = z
  .object({
    /** Tools ranked: every usable tool, one version each (built-ins included). */
    ranked: z.number().int().min(0),
    /** Tools reported on: the user's (not built in). */
    checked: z.number().int().min(0),
    /** Findings, most severe first; at most MAX_FINDINGS. */
    findings: z.array(FindingSchema),
    /** Findings left out past MAX_FINDINGS (the least severe). */
    omitted: z.number().int().min(0),
    counts: z.object({ high: z.number().int(), medium: z.number().int(), low: z.number().int() }).strict(),
  })
  .strict();
export type FindabilityReport = z.infer<typeof FindabilityReportSchema>;

/** Findings a report carries at most (a registry of thousands of imported tools can have more). */
export const MAX_FINDINGS = 2_000;
