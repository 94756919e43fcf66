/**
 * Counting tokens of tool outputs. A counter is fed text as it streams by and answers a count
 * and whether it is exact (a tokenizer of the model's family) or an estimate (about four bytes
 * a token, the usual figure for English and code; the UI says "≈" for an estimate).
 */

export interface TokenCount {
  tokens: number;
  exact: boolean;
}

export interface TokenCounter {
  /** A name shown in the UI, e.g. "estimate (4 bytes a token)". */
  readonly name: string;
  count(text: string): TokenCount;
  /** A running count over text that arrives in pieces. */
  start(): { add(text: string): void; end(): TokenCount };
}

export const BYTES_PER_TOKEN_ESTIMATE = 4;

/** The estimate: UTF-8 bytes / 4, rounded up. */
export const estimateCounter: TokenCounter = {
  name: 'estimate (4 bytes a token)',
  count(text) {
    return { tokens: Math.ceil(Buffer.byteLength(text) / BYTES_PER_TOKEN_ESTIMATE), exact: false };
  },
  start() {
    let bytes = 0;
    return {
      add(text) {
        bytes += Buffer.byteLength(text);
      },
      end: () => ({ tokens: Math.ceil(bytes / BYTES_PER_TOKEN_ESTIMATE), exact: false }),
    };
  },
};
