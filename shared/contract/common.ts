/**
 * What the contract's slices share: the shape of a slice's tables, the empty input, keys as
 * they arrive from a path, and the issues of an argument check.
 */
import { z } from 'zod';

/** A slice's operations: each name to its `input` and `output` schemas. */
export type OperationTable = Record<string, { input: z.ZodType; output: z.ZodType }>;
/** A slice's events: each name to its payload schema. */
export type EventTable = Record<string, z.ZodType>;

export const Empty = z.object({}).strict();

/** Ids, slugs and versions as they arrive from a path: the store checks the rules and answers NOT_FOUND. */
export const Key = z.string().min(1).max(512);
export const BundleRef = { bundleId: Key };
export const ToolRef = { bundleId: Key, slug: Key, version: Key };
export const IdList = z.array(Key).max(1000);

/** One place where arguments do not match a schema: a JSON pointer ('(root)' for the whole value) and ajv's message. */
export const SchemaIssueSchema = z.object({ path: z.string(), message: z.string() }).strict();
export type SchemaIssueInfo = z.infer<typeof SchemaIssueSchema>;
