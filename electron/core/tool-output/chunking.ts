/**
 * Chunk planning for the full-chunked strategy (docs/design/tool-outputs.md): chunk size in
 * tokens is maxContextTokens − maxOutputTokens − promptTokens; chunks overlap by a share (default
 * 10%); the count is found with the largest chunk, then the size is rebalanced so every chunk is
 * the same size (no tiny last chunk). Sizes are turned into bytes with the document's own
 * bytes-per-token figure, and every cut lands on a UTF-8 character boundary.
 */

export interface ChunkPlanInput {
  totalBytes: number;
  totalTokens: number;
  maxContextTokens: number;
  maxOutputTokens: number;
  promptTokens: number;
  /** 0..50 (percent). */
  overlapPercent: number;
}

export interface ChunkPlan {
  /** The token budget of one chunk before balancing. */
  chunkTokens: number;
  /** [startByte, endByte) per chunk, before boundary adjustment. */
  ranges: Array<[number, number]>;
}

export class ChunkBudgetError extends Error {}

export function chunkTokenBudget(i: Pick<ChunkPlanInput, 'maxContextTokens' | 'maxOutputTokens' | 'promptTokens'>): number {
  return Math.floor(i.maxContextTokens - i.maxOutputTokens - i.promptTokens);
}

export function planChunks(i: ChunkPlanInput): ChunkPlan {
  const chunkTokens = chunkTokenBudget(i);
  if (chunkTokens < 64) {
    throw new ChunkBudgetError(
      `the model's context (${i.maxContextTokens} tokens) minus its output budget (${i.maxOutputTokens}) and the prompt (${i.promptTokens}) leaves ${Math.max(0, chunkTokens)} tokens for a chunk`,
    );
  }
  const total = i.totalBytes;
  if (total === 0) return { chunkTokens, ranges: [[0, 0]] };
  const bytesPerToken = i.totalTokens > 0 ? total / i.totalTokens : 4;
  const maxBytes = Math.max(1, Math.floor(chunkTokens * bytesPerToken));
  if (total <= maxBytes) return { chunkTokens, ranges: [[0, total]] };
  const o = Math.min(Math.max(i.overlapPercent, 0), 50) / 100;
  // n chunks of size S with step S(1-o) cover S + (n-1)·S(1-o) bytes.
  const n = Math.ceil((total - maxBytes) / (maxBytes * (1 - o))) + 1;
  const size = total / (1 + (n - 1) * (1 - o));
  const step = size * (1 - o);
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k < n; k++) {
    const a = Math.floor(k * step);
    const b = k === n - 1 ? total : Math.min(total, Math.ceil(k * step + size));
    ranges.push([a, b]);
  }
  return { chunkTokens, ranges };
}

/** Moves a byte position back to the start of the UTF-8 character it falls in. */
export function toCharBoundary(buf: Uint8Array, pos: number): number {
  let p = Math.min(pos, buf.length);
  while (p > 0 && p < buf.length && (buf[p]! & 0xc0) === 0x80) p--;
  return p;
}
