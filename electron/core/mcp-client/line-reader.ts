/**
 * The lines of a stdio MCP server's stdout, each at most the size limit, and the rule for a line
 * over it: kept never (only its first and last bytes, to read its id), and either fatal for the
 * connection or read to its end and dropped.
 */

/** A line over the limit that may answer a waiting call, or one dropped that runs on too long: the connection is closed at once. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the server sent a message larger than the limit (${limit} bytes)`);
    this.name = 'MessageTooLargeError';
  }
}

/** How many of the first and last bytes of a line over the limit are kept (to read its id). */
export const EDGE_BYTES = 256;

/** A line over the limit: only its first and last bytes are kept. */
export interface OversizedLine {
  /** Its first bytes (up to EDGE_BYTES). */
  head: Buffer;
  /** Its last bytes so far (up to EDGE_BYTES); once it ended, its last bytes. */
  tail: Buffer;
  /** Its length so far; once it ended, its whole length. */
  bytes: number;
}

/** What to do with a line over the limit. */
export interface OversizePolicy {
  /** It just passed the limit: 'skip' reads it to its end without keeping it, 'fail' throws MessageTooLargeError now. */
  passed(line: OversizedLine): 'skip' | 'fail';
  /** A skipped line ended: 'drop' goes on with the next line, 'fail' throws MessageTooLargeError. */
  ended(line: OversizedLine): 'drop' | 'fail';
}

/**
 * Splits a byte stream into lines, keeping at most `max` bytes of a line that has not ended. A
 * line that passes the limit throws MessageTooLargeError as soon as it does, whatever the chunks;
 * unless the policy says to skip it: then it is read to its end keeping only its first and last
 * EDGE_BYTES (never more), up to `maxSkip` bytes (past that it throws), and the policy decides again.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping: OversizedLine | undefined;

  constructor(
    private readonly max: number,
    private readonly policy?: OversizePolicy,
    private readonly maxSkip = Infinity,
  ) {}

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(from, end);
      if (this.skipping) {
        this.skip(piece);
      } else if (this.size + piece.length > this.max) {
        const line: OversizedLine = { head: firstBytes([...this.parts, piece], EDGE_BYTES), tail: lastBytes([...this.parts, piece], EDGE_BYTES), bytes: this.size + piece.length };
        this.clear();
        if (!this.policy || this.policy.passed(line) === 'fail') throw new MessageTooLargeError(this.max);
        this.skipping = line;
        this.checkSkip();
      } else if (nl < 0) {
        if (piece.length) {
          this.parts.push(piece);
          this.size += piece.length;
        }
        return out;
      } else {
        out.push(this.parts.length ? Buffer.concat([...this.parts, piece]) : piece);
        this.parts = [];
        this.size = 0;
      }
      if (nl < 0) return out;
      const skipped = this.skipping;
      this.skipping = undefined;
      if (skipped && this.policy!.ended(skipped) === 'fail') throw new MessageTooLargeError(this.max);
      from = nl + 1;
    }
  }

  /** More of a line being skipped: only its last bytes are kept. */
  private skip(piece: Buffer): void {
    const line = this.skipping!;
    line.bytes += piece.length;
    line.tail = piece.length >= EDGE_BYTES ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES)) : lastBytes([line.tail, piece], EDGE_BYTES);
    this.checkSkip();
  }

  private checkSkip(): void {
    if (this.skipping && this.skipping.bytes > this.maxSkip) {
      this.clear();
      throw new MessageTooLargeError(this.max);
    }
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = undefined;
  }
}

/** The first `n` bytes of the buffers, copied. */
function firstBytes(bufs: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let left = n;
  for (const b of bufs) {
    if (left <= 0) break;
    out.push(b.subarray(0, left));
    left -= Math.min(left, b.length);
  }
  return Buffer.concat(out);
}

/** The last `n` bytes of the buffers, copied. */
function lastBytes(bufs: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let left = n;
  for (let i = bufs.length - 1; i >= 0 && left > 0; i--) {
    const b = bufs[i]!;
    out.unshift(b.subarray(Math.max(0, b.length - left)));
    left -= Math.min(left, b.length);
  }
  return Buffer.concat(out);
}

/** A JSON-RPC id: a number or a string. */
const ID = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`;
/** The start of a message: `{`, perhaps `"jsonrpc": "2.0",` first. */
const START = String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?`;
/** A message whose first member is its id (Python's SDK writes `{"jsonrpc":"2.0","id":…`). */
const HEAD_ID = new RegExp(`${START}"id"\\s*:\\s*${ID}\\s*[,}]`);
/** A request or notification of the server (its method first), not an answer. */
const HEAD_METHOD = new RegExp(`${START}"method"\\s*:`);
/** A message whose last member is its id (the TypeScript SDK writes `…,"jsonrpc":"2.0","id":7}`); a nested object's id is followed by one more `}`. */
const TAIL_ID = new RegExp(`[,{]\\s*"id"\\s*:\\s*${ID}\\s*\\}\\s*$`);

function idOf(m: RegExpExecArray | null): string | number | undefined {
  const raw = m?.[1];
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'string' || typeof v === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rule for a stdio line over the limit, read from its first and last bytes (the rest is never
 * kept). It is dropped, and the connection stays up, when it answers no call that waits: a late
 * answer (its id, first or last in the message, is not among `pending`), a request or notification
 * of the server (its method first), or any message when no call waits at all. It fails the waiting
 * calls (closing the transport) when its id is one they wait for, and when calls wait and its id
 * cannot be read: at once when its first bytes tell, else at its end.
 */
export function oversizePolicy(pending: ReadonlySet<string | number>, limit: number, onDropped?: (words: string) => void): OversizePolicy {
  /** The early verdict on the line being skipped: dropped whatever its end says, or judged by its end. */
  let verdict: { drop: string } | 'byTail' = 'byTail';
  const over = (bytes: number) => `a message of ${mbOf(bytes)} from the server, over the ${mbOf(limit)} limit,`;
  return {
    passed(line) {
      const head = line.head.toString('utf8');
      if (HEAD_METHOD.test(head)) verdict = { drop: 'a request or notification of the server' };
      else {
        const id = idOf(HEAD_ID.exec(head));
        if (id !== undefined && pending.has(id)) return 'fail';
        if (id !== undefined) verdict = { drop: lateWords(id) };
        else if (pending.size === 0) verdict = { drop: 'while no call waited for an answer' };
        else verdict = 'byTail';
      }
      return 'skip';
    },
    ended(line) {
      let why: string;
      if (verdict !== 'byTail') why = verdict.drop;
      else {
        const id = idOf(TAIL_ID.exec(line.tail.toString('utf8')));
        if (id === undefined && pending.size > 0) return 'fail';
        if (id !== undefined && pending.has(id)) return 'fail';
        why = id === undefined ? 'while no call waited for an answer' : lateWords(id);
      }
      verdict = 'byTail';
      onDropped?.(`${over(line.bytes)} was dropped (${why}); the connection stays up`);
      return 'drop';
    },
  };
}

function lateWords(id: string | number): string {
  return `the answer to request ${JSON.stringify(id)}, which no call waits for any more: it timed out or was cancelled`;
}

function mbOf(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB` : `${bytes} bytes`;
}
