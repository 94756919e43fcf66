/** Limits shared by every transport. One place, so the hosts and the tests agree. */
export const LIMITS = {
  /** Largest JSON input a single contract call may carry. */
  maxInputBytes: 8 * 1024 * 1024,
  /** Largest input of an operation that carries a whole file (FILE_INPUT_OPERATIONS). */
  maxFileInputBytes: 40 * 1024 * 1024,
  /** Longest operation or event name. */
  maxNameLength: 128,
} as const;

/** The operations whose input is a whole file: a conversation file to import, with its attachments. */
export const FILE_INPUT_OPERATIONS: ReadonlySet<string> = new Set(['conversations.import']);

/** The largest input the operation `name` takes, in bytes of JSON. */
export function maxInputBytesOf(name: string): number {
  return FILE_INPUT_OPERATIONS.has(name) ? LIMITS.maxFileInputBytes : LIMITS.maxInputBytes;
}
