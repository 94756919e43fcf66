import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { EXACT_LIMIT_BYTES, gptCounter, isOpenAiFamily } from './tokens';

describe('token counters', () => {
  it('counts with gpt-tokenizer: exact for OpenAI families, an estimate (said so) for others', () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(50);
    expect(gptCounter(true).count(text)).toEqual({ tokens: countTokens(text), exact: true });
    expect(gptCounter(false).count(text)).toEqual({ tokens: countTokens(text), exact: false });
    expect(isOpenAiFamily('gpt-4o-mini')).toBe(true);
    expect(isOpenAiFamily('openai/o3-mini')).toBe(true);
    expect(isOpenAiFamily('llama3.1:8b')).toBe(false);
  });

  it('a huge text is counted on a sample and extrapolated, flagged as an estimate; streaming agrees', () => {
    const line = 'alpha beta gamma delta 0123456789\n';
    const text = line.repeat(Math.ceil((EXACT_LIMIT_BYTES * 3) / line.length));
    const whole = gptCounter(true).count(text);
    expect(whole.exact).toBe(false);
    const perLine = countTokens(line.repeat(100)) / 100;
    expect(Math.abs(whole.tokens - perLine * (text.length / line.length)) / whole.tokens).toBeLessThan(0.02);
    const run = gptCounter(true).start();
    for (let i = 0; i < text.length; i += 100_000) run.add(text.slice(i, i + 100_000));
    expect(run.end()).toEqual(whole);
  });
});
