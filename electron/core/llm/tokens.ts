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
 * Runs of more than this many letters, punctuation marks or white-space characters in a row
 * are counted in pieces of this length. The tokenizer first splits text into words
 * (letters), numbers (up to three digits), punctuation and white space, then runs BPE on
 * each piece in time quadratic in its length: one 100,000-letter "word" (a line of one
 * repeated letter, a long text in a script written without spaces and with no punctuation)
 * takes seconds. Real words, JSON and code are far shorter, so only such texts are
 * affected, and their count is then an estimate (a few tokens off at each cut).
 */
export const MAX_RUN_CHARS = 256;

const SPACE = 0;
const DIGIT = 1;
const LETTER = 2;
const MARK = 3;
const LETTER_RE = /[\p{L}\p{M}]/u;
const DIGIT_RE = /\p{N}/u;
const SPACE_RE = /\s/u;

/** The class of a code point as far as the tokenizer's first split goes. */
function classOf(cp: number): number {
  if (cp < 128) {
    if (cp === 32 || (cp >= 9 && cp <= 13)) return SPACE;
    if (cp >= 48 && cp <= 57) return DIGIT;
    if ((cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122)) return LETTER;
    return MARK;
  }
  const ch = String.fromCodePoint(cp);
  if (LETTER_RE.test(ch)) return LETTER;
  if (DIGIT_RE.test(ch)) return DIGIT;
  if (SPACE_RE.test(ch)) return SPACE;
  return MARK;
}

/** gpt-tokenizer's count, with over-long runs cut into pieces (see MAX_RUN_CHARS); `cut` tells whether any was. */
export function countBounded(text: string): { tokens: number; cut: boolean } {
  const cuts: number[] = [];
  let run = 0;
  let cls = -1;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const next = i + (cp > 0xffff ? 2 : 1);
    const k = classOf(cp);
    if (k === DIGIT) run = 0;
    else if (k !== cls) run = 1;
    else if (++run === MAX_RUN_CHARS) {
      // After a whole code point, never between the halves of a surrogate pair.
      cuts.push(next);
      run = 0;
    }
    cls = k;
    i = next;
  }
  if (cuts.length === 0) return { tokens: countTokens(text), cut: false };
  let tokens = 0;
  let start = 0;
  for (const at of cuts) {
    tokens += countTokens(text.slice(start, at));
    start = at;
  }
  if (start < text.length) tokens += countTokens(text.slice(start));
  return { tokens, cut: true };
}

/**
 * Counts with gpt-tokenizer (o200k_base, the encoding of OpenAI's current models). It is
 * exact for the OpenAI families; for other models it is a close estimate, and says so
 * (`exact: false`). Huge texts are counted on a sample and extrapolated by bytes.
 */
export function gptCounter(familyExact: boolean): TokenCounter {
  const name = familyExact ? 'gpt-tokenizer (o200k_base)' : 'gpt-tokenizer (o200k_base), an estimate for this model';
  const whole = (text: string): TokenCount => {
    const r = countBounded(text);
    return { tokens: r.tokens, exact: familyExact && !r.cut };
  };
  const extrapolated = (sample: string, bytes: number): TokenCount => ({
    tokens: Math.ceil((countBounded(sample).tokens / Math.max(1, Buffer.byteLength(sample))) * bytes),
    exact: false,
  });
  const count = (text: string): TokenCount => {
    const bytes = Buffer.byteLength(text);
    if (bytes <= EXACT_LIMIT_BYTES) return whole(text);
    return extrapolated(text.slice(0, SAMPLE_BYTES), bytes);
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
          if (bytes <= EXACT_LIMIT_BYTES) return whole(head);
          return extrapolated(head.slice(0, SAMPLE_BYTES), bytes);
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
