/**
 * Counting tokens of tool outputs. A counter is fed text as it streams by and answers a count
 * and whether it is exact (a tokenizer of the model's family) or an estimate (about four bytes
 * a token, the usual figure for English and code; the UI says "≈" for an estimate).
 */
import { countTokens } from 'gpt-tokenizer';

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

/** Text up to this many bytes is counted whole; beyond it, the first SAMPLE_BYTES are counted and the rest extrapolated. */
export const EXACT_LIMIT_BYTES = 512 * 1024;
const SAMPLE_BYTES = 256 * 1024;

/**
 * Counts with gpt-tokenizer (o200k_base, the encoding of OpenAI's current models). It is
 * exact for the OpenAI families; for other models it is a close estimate, and says so
 * (`exact: false`). Huge texts are counted on a sample and extrapolated by bytes.
 */
export function gptCounter(familyExact: boolean): TokenCounter {
  const name = familyExact ? 'gpt-tokenizer (o200k_base)' : 'gpt-tokenizer (o200k_base), an estimate for this model';
  const count = (text: string): TokenCount => {
    const bytes = Buffer.byteLength(text);
    if (bytes <= EXACT_LIMIT_BYTES) return { tokens: countTokens(text), exact: familyExact };
    const sample = text.slice(0, SAMPLE_BYTES);
    const sampleBytes = Buffer.byteLength(sample);
    return { tokens: Math.ceil((countTokens(sample) / Math.max(1, sampleBytes)) * bytes), exact: false };
  };
  return {
    name,
    count,
    start() {
      let head = '';
      let headBytes = 0;
      let bytes = 0;
      return {
        add(text) {
          const b = Buffer.byteLength(text);
          bytes += b;
          if (headBytes < EXACT_LIMIT_BYTES) {
            head += text;
            headBytes += b;
          }
        },
        end() {
          if (bytes <= EXACT_LIMIT_BYTES) return { tokens: countTokens(head), exact: familyExact };
          const sample = head.slice(0, SAMPLE_BYTES);
          return { tokens: Math.ceil((countTokens(sample) / Math.max(1, Buffer.byteLength(sample))) * bytes), exact: false };
        },
      };
    },
  };
}

/** Whether a model name is of an OpenAI family gpt-tokenizer counts exactly. */
export function isOpenAiFamily(model: string): boolean {
  return /^(gpt-|chatgpt-|o1|o3|o4)/i.test(model.replace(/^openai\//i, ''));
}

/** A counter that answers a count already made (the gate counted the text; storing it need not count again). */
export function knownCount(count: TokenCount, name = 'counted before'): TokenCounter {
  return { name, count: () => count, start: () => ({ add() {}, end: () => count }) };
}
