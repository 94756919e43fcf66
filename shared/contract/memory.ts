/** Memory (docs/design/memory.md): blocks and recall entries, for Inspect → Memory (the user needs no consent here), and the data sources that feed it. */
import { z } from 'zod';
import { BlockInfoSchema, BlockLabelSchema, BlockVersionSchema, BlockViewSchema, ConsentChoiceSchema, MemoryOwnerSchema, NewBlockSchema, RecallHitSchema, RecallQuerySchema } from '../model/memory';
import { SourceConfigSchema, SourceIdSchema, SourceStatusSchema } from '../model/memory-sources';
import { Empty, Key, type EventTable, type OperationTable } from './common';

/** One block: its memory (conversation:<id> or agent:<name>) and label. */
const MemoryBlockRef = z.object({ owner: MemoryOwnerSchema, label: BlockLabelSchema }).strict();

export const memoryOperations = {
  /** The blocks of one memory (conversation:<id> or agent:<name>), or of all. */
  'memory.blocks.list': { input: z.object({ owner: MemoryOwnerSchema.optional() }).strict(), output: z.array(BlockInfoSchema) },
  'memory.blocks.get': { input: MemoryBlockRef, output: BlockViewSchema },
  /** Makes a block (the tools have no create: blocks come from here or from a source). */
  'memory.blocks.create': { input: NewBlockSchema, output: BlockViewSchema },
  /** Every version, oldest first; `current` is the one shown, `undone` ones can be redone. */
  'memory.blocks.history': { input: MemoryBlockRef, output: z.array(BlockVersionSchema) },
  'memory.blocks.undo': { input: MemoryBlockRef, output: BlockViewSchema },
  'memory.blocks.redo': { input: MemoryBlockRef, output: BlockViewSchema },
  /** The user's answer to a consent card (a memory call on a Partner or Human block); accepted false when it no longer waits. */
  'memory.consent.respond': { input: z.object({ id: Key, answer: ConsentChoiceSchema }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
  /** Recall entries matching every word of the query (FTS5, punctuation is plain text), best first. */
  'memory.recall.search': { input: RecallQuerySchema, output: z.array(RecallHitSchema) },
  /** Data sources (FileSources and folder watchers): each with its state; Settings → Memory sources edits them. */
  'memory.sources.list': { input: Empty, output: z.array(SourceStatusSchema) },
  /** Pauses a stream (a folder watcher): no notifications until resumed. A block source is left as it is. */
  'memory.sources.pause': { input: z.object({ id: SourceIdSchema }).strict(), output: SourceStatusSchema },
  'memory.sources.resume': { input: z.object({ id: SourceIdSchema }).strict(), output: SourceStatusSchema },
  /** The sources' settings, as Settings → Memory sources edits them. */
  'memory.sources.configs': { input: Empty, output: z.array(SourceConfigSchema) },
  /** Adds a source, or replaces the one with its id; the folder must exist. */
  'memory.sources.save': { input: SourceConfigSchema, output: SourceStatusSchema },
  'memory.sources.remove': { input: z.object({ id: SourceIdSchema }).strict(), output: z.object({ removed: z.boolean() }).strict() },
} as const satisfies OperationTable;

export const memoryEvents = {
  /** A memory's blocks or recall entries changed (label: the block; absent: a recall entry). */
  'memory.changed': z.object({ owner: z.string(), label: z.string().optional() }).strict(),
  /** A memory source was added, changed, removed, paused or resumed (the file tool comes and goes with FileSources). */
  'memory.sources.changed': z.object({}).strict(),
} as const satisfies EventTable;
