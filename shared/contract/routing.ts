/** Where outputs are routed: the buffers of a conversation or a workflow run, and the workspace folder. */
import { z } from 'zod';
import {
  BufferInfoSchema,
  BufferNameSchema,
  BufferReadSchema,
  BufferSearchResultSchema,
  WorkspaceEntrySchema,
  WorkspaceReadSchema,
  WriteModeSchema,
} from '../model/routing';
import { Key, type EventTable, type OperationTable } from './common';

export const routingOperations = {
  // Buffers (routed outputs) of a conversation or a workflow run.
  'buffers.list': { input: z.object({ ownerId: Key }).strict(), output: z.array(BufferInfoSchema) },
  'buffers.read': {
    input: z
      .object({
        ownerId: Key,
        name: BufferNameSchema,
        /** Either a line range (1-based, inclusive) or a character offset and length. */
        startLine: z.number().int().min(1).optional(),
        endLine: z.number().int().min(1).optional(),
        offset: z.number().int().min(0).optional(),
        length: z.number().int().min(1).optional(),
      })
      .strict(),
    output: BufferReadSchema,
  },
  'buffers.search': {
    input: z
      .object({
        ownerId: Key,
        name: BufferNameSchema,
        query: z.string().min(1).max(1000),
        regex: z.boolean().optional(),
        caseSensitive: z.boolean().optional(),
        contextLines: z.number().int().min(0).max(20).optional(),
        maxMatches: z.number().int().min(1).max(10_000).optional(),
      })
      .strict(),
    output: BufferSearchResultSchema,
  },
  'buffers.export': {
    input: z.object({ ownerId: Key, name: BufferNameSchema, path: z.string().min(1).max(4096), writeMode: WriteModeSchema.optional() }).strict(),
    output: z.object({ path: z.string(), chars: z.number().int() }).strict(),
  },
  'buffers.delete': { input: z.object({ ownerId: Key, name: BufferNameSchema }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },

  // The workspace folder, for the Files inspector.
  'workspace.list': { input: z.object({ path: z.string().max(4096).optional() }).strict(), output: z.array(WorkspaceEntrySchema) },
  'workspace.read': {
    input: z.object({ path: z.string().min(1).max(4096), offset: z.number().int().min(0).optional(), length: z.number().int().min(1).max(4 * 1024 * 1024).optional() }).strict(),
    output: WorkspaceReadSchema,
  },
  /** Opens a workspace file with the system's application; UNAVAILABLE where the host cannot. */
  'workspace.open': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: z.object({ opened: z.literal(true) }).strict() },
} as const satisfies OperationTable;

export const routingEvents = {
  'buffers.changed': z.object({ ownerId: z.string(), names: z.array(z.string()) }).strict(),
} as const satisfies EventTable;
