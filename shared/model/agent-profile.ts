/**
 * Agent profiles (docs/design/orchestration.md): the agents a conversation's model may delegate
 * to. Each one a model reaches appears as a `route_to_<name>` tool; the user's conversation is
 * the root task.
 */
import { z } from 'zod';
import { AgentMemorySchema } from './memory';
import { ModelRefSchema, ToolSelectionSchema } from './provider';

/** A profile's name is part of a tool name (`route_to_<name>`): lower case, digits, underscores. */
export const AGENT_NAME_RE = /^[a-z][a-z0-9_]{0,39}$/;
export const AgentNameSchema = z.string().regex(AGENT_NAME_RE, 'a name starts with a letter and has only a–z, 0–9 and _ (at most 40)');

export const AGENT_MAX_STEPS_LIMIT = 200;

export const AgentProfileSchema = z
  .object({
    name: AgentNameSchema,
    /** What a person sees; the name when absent. */
    displayName: z.string().trim().min(1).max(120).optional(),
    /** What the delegating model reads: when to hand this agent a task. */
    description: z.string().trim().min(1, 'a description is required: the delegating model reads it to choose').max(2000),
    systemPrompt: z.string().max(64 * 1024),
    /** The model it runs with; absent: the model of the task that delegates to it. */
    model: ModelRefSchema.optional(),
    /** The registry tools it may use; absent: none (orchestration tools are chosen below). */
    tools: ToolSelectionSchema.optional(),
    /** The profiles it may delegate to (each a route_to_<name> tool). */
    delegatesTo: z.array(AgentNameSchema).max(50),
    /** Whether it may ask the task that delegated to it (ask_master). */
    canAskMaster: z.boolean(),
    /** Model steps a task of this agent may take before it must hand off. */
    maxSteps: z.number().int().min(1).max(AGENT_MAX_STEPS_LIMIT),
    /** Memory (docs/design/memory.md): the blocks its tasks use, its AllowedOperations and capabilities; absent: each task's own, every operation, no AdvancedEdit. */
    memory: AgentMemorySchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.delegatesTo.includes(p.name)) ctx.addIssue({ code: 'custom', path: ['delegatesTo'], message: `'${p.name}' cannot delegate to itself` });
    const seen = new Set<string>();
    p.delegatesTo.forEach((n, i) => {
      if (seen.has(n)) ctx.addIssue({ code: 'custom', path: ['delegatesTo', i], message: `'${n}' is listed twice` });
      seen.add(n);
    });
  });
export type AgentProfile = z.infer<typeof AgentProfileSchema>;

/** A profile as the app lists it. */
export const AgentProfileViewSchema = z
  .object({
    profile: AgentProfileSchema,
    /** Shipped with the app: read-only (duplicate it to change it); it may be disabled. */
    builtIn: z.boolean(),
    enabled: z.boolean(),
    /** What is wrong but does not stop it loading (a delegate that does not exist, ...). */
    warnings: z.array(z.string()),
  })
  .strict();
export type AgentProfileView = z.infer<typeof AgentProfileViewSchema>;
