import { describe, expect, it } from 'vitest';
import { ExtractionInfoSchema } from '../../../shared/model/conversation';
import { extractionInfo } from './tool-output-tool';

describe('extractionInfo', () => {
  const base = { text: 'x', notFound: false, modelCalls: 2, tokensIn: 10, tokensOut: 3, requested: 'auto', used: 'full-chunked', durationMs: 12 } as const;

  it('carries the report with its handle, and leaves out what the run did not have', () => {
    const info = extractionInfo('h-1', base);
    expect(info).toEqual({ handle: 'h-1', requested: 'auto', used: 'full-chunked', modelCalls: 2, tokensIn: 10, tokensOut: 3, durationMs: 12, notFound: false });
    expect(ExtractionInfoSchema.parse(info)).toEqual(info);
  });

  it('keeps why, chunks (even 0) and a fallback when there are', () => {
    const info = extractionInfo('h-2', { ...base, why: 'fits in 1 chunk', chunks: 0, used: 'truncate', fallback: { from: 'full-chunked', reason: 'the model failed' } });
    expect(info).toMatchObject({ why: 'fits in 1 chunk', chunks: 0, fallback: { from: 'full-chunked', reason: 'the model failed' } });
    expect(ExtractionInfoSchema.parse(info)).toEqual(info);
  });
});
