import { afterEach, describe, expect, it, vi } from 'vitest';

/** The longest run without white space in any text given to gpt-tokenizer, and how much text it was given. */
const seen = { longestRun: 0, chars: 0, splitPairs: 0 };
vi.mock('gpt-tokenizer', async (importOriginal) => {
  const real = await importOriginal<typeof import('gpt-tokenizer')>();
  return {
    ...real,
    countTokens: (text: string) => {
      for (const run of text.split(/[ \n\r\t]/)) seen.longestRun = Math.max(seen.longestRun, run.length);
      seen.chars += text.length;
      if (/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(text)) seen.splitPairs++;
      return real.countTokens(text);
    },
  };
});

const { countTokens } = await import('gpt-tokenizer');
const { MAX_RUN_CHARS, gptCounter } = await import('./tokens');

afterEach(() => {
  seen.longestRun = 0;
  seen.chars = 0;
  seen.splitPairs = 0;
});

describe('counting a text with long runs without white space', () => {
  it('gives gpt-tokenizer no run longer than MAX_RUN_CHARS, counts every character once, and says the count is an estimate', () => {
    const text = 'x'.repeat(MAX_RUN_CHARS * 1_000);
    const r = gptCounter(true).count(text);
    expect(seen.longestRun).toBe(MAX_RUN_CHARS);
    expect(seen.chars).toBe(text.length);
    expect(r.exact).toBe(false);
    // 256 `x` are 32 tokens in o200k_base; each piece is counted alone.
    expect(r.tokens).toBe((text.length / MAX_RUN_CHARS) * countTokens('x'.repeat(MAX_RUN_CHARS)));
  });

  it('streamed, the same', () => {
    const run = gptCounter(true).start();
    for (let i = 0; i < 10; i++) run.add('y'.repeat(10_000));
    const r = run.end();
    expect(seen.longestRun).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(r.exact).toBe(false);
  });

  it('stays close to the exact count when the run is moderate', () => {
    const text = `${'word '.repeat(200)}${'z'.repeat(4_000)} ${'more words here '.repeat(100)}`;
    const exact = countTokens(text);
    seen.longestRun = 0;
    const r = gptCounter(true).count(text);
    expect(seen.longestRun).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(Math.abs(r.tokens - exact) / exact).toBeLessThan(0.05);
  });

  it('compact JSON longer than MAX_RUN_CHARS without a space is counted whole and exactly', () => {
    const json = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'] })));
    expect(json).not.toMatch(/\s/);
    const r = gptCounter(true).count(json);
    expect(r).toEqual({ tokens: countTokens(json), exact: true });
  });

  it('long runs of white space, and of a script written without spaces, are cut too; its punctuation ends a run', () => {
    const padded = `start${' '.repeat(5_000)}end`;
    expect(gptCounter(true).count(padded).exact).toBe(false);
    const sentence = '这是一个很长的句子没有任何标点符号';
    seen.longestRun = 0;
    expect(gptCounter(true).count(sentence.repeat(40)).exact).toBe(false);
    expect(seen.longestRun).toBeLessThanOrEqual(MAX_RUN_CHARS);
    // With a comma every clause (as written), it is counted whole and exactly.
    const prose = `${sentence}，`.repeat(40);
    expect(gptCounter(true).count(prose)).toEqual({ tokens: countTokens(prose), exact: true });
  });

  it('a cut never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(1_000);
    const r = gptCounter(true).count(emoji);
    expect(r.exact).toBe(false);
    expect(seen.chars).toBe(emoji.length);
    expect(seen.splitPairs).toBe(0);
  });

  it('ordinary text is counted whole and exactly', () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(2_000);
    const r = gptCounter(true).count(text);
    expect(r).toEqual({ tokens: countTokens(text), exact: true });
  });
});
