/**
 * The seams of output routing (docs/design/routing.md), so the buffer store, the router, the
 * directive runner, the chat and the workflows can be built and tested apart.
 *
 * - BufferStore (./buffer-store.ts): named buffers per owner, as files under
 *   `<data>/buffers/<ownerId>/`; the truth is on disk.
 * - OutputRouter (./router.ts): writes a payload to a destination with a write mode and
 *   answers the manifest (or null when it stays inline).
 * - DirectiveRunner (./directive-runner.ts): runs the `@input` directives of a parsed text
 *   (routing each one), resolves the `@tools` tokens to tools, and reports `@model none`.
 */
import type { AggregatedTool, DirectiveError, ParsedText } from '../../../shared/directives/types';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import type { ToolView } from '../../../shared/model/tool';
import type {
  BufferInfo,
  BufferRead,
  BufferSearchResult,
  Destination,
  Manifest,
  WriteMode,
} from '../../../shared/model/routing';

export interface BufferReadRange {
  startLine?: number;
  endLine?: number;
  offset?: number;
  length?: number;
}

export interface BufferSearchOptions {
  query: string;
  regex?: boolean;
  caseSensitive?: boolean;
  contextLines?: number;
  maxMatches?: number;
  signal?: AbortSignal;
}

export interface BufferWriteResult {
  /** The name written: for write-mode=new, the numbered name (`results-2`). */
  name: string;
  info: BufferInfo;
}

export interface BufferStore {
  list(ownerId: string): Promise<BufferInfo[]>;
  /** NOT_FOUND for an unknown buffer. */
  info(ownerId: string, name: string): Promise<BufferInfo>;
  write(ownerId: string, name: string, content: string, mode: WriteMode, source: string): Promise<BufferWriteResult>;
  /** A range is required; VALIDATION_FAILED when missing, past the end, or over the read limit. */
  read(ownerId: string, name: string, range: BufferReadRange): Promise<BufferRead>;
  /** The whole buffer, for `@input variable:NAME`; PAYLOAD_TOO_LARGE past the routing limit. */
  readAll(ownerId: string, name: string): Promise<string>;
  /** Safe against hostile regexes (worker + time limit). */
  search(ownerId: string, name: string, opts: BufferSearchOptions): Promise<BufferSearchResult>;
  /** Writes the buffer to a workspace path (confined to the workspace). */
  export(ownerId: string, name: string, workspacePath: string, mode: WriteMode): Promise<{ path: string; chars: number }>;
  delete(ownerId: string, name: string): Promise<void>;
  /** Removes every buffer of an owner (a deleted conversation). */
  deleteOwner(ownerId: string): Promise<void>;
}

export interface RouteRequest {
  ownerId: string;
  content: string;
  destination: Destination;
  /** Default: append. */
  writeMode?: WriteMode;
  /** What is routed, for the manifest: a tool (by slug) or an input (as written), with item count and paths. */
  label: { kind: 'tool' | 'input'; name: string; count?: number; paths?: string[] };
  /** What wrote the buffer: `tool:readfile`, `input:file:notes.md`. */
  source: string;
  /** When aborted before anything is written, route throws AppError CANCELLED and writes nothing. */
  signal?: AbortSignal;
}

export interface OutputRouter {
  /** null when the destination is inline (the caller keeps the content); a manifest otherwise. */
  route(req: RouteRequest): Promise<Manifest | null>;
}

/** A tool token resolved to a tool, with its routing. */
export interface ResolvedTool extends AggregatedTool {
  tool: ToolView;
}

export interface DirectiveRunContext {
  ownerId: string;
  signal?: AbortSignal;
}

export interface DirectiveRunResult {
  /** One per `@input`, in order: its manifest, or its inlined text, or its error. */
  outcomes: DirectiveOutcome[];
  /** The `@tools` tokens resolved (aggregated; last output= wins). */
  tools: ResolvedTool[];
  modelNone: boolean;
  model?: string;
  /** The prompt with inlined inputs appended and manifests in place of routed ones. */
  prompt: string;
}

export interface DirectiveRunner {
  /** What run() would refuse (parse errors, unknown or ambiguous tools, unknown sources or placeholders), without reading or writing anything. */
  check(parsed: ParsedText): DirectiveError[];
  /**
   * Parse errors and unknown tools are thrown as one VALIDATION_FAILED (details.errors:
   * DirectiveError[]) before anything is written. Input failures at run time (a missing
   * file) are outcomes with an error.
   */
  run(parsed: ParsedText, ctx: DirectiveRunContext): Promise<DirectiveRunResult>;
}
