import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { resultValue } from './results';

describe('MCP results as values', () => {
  it('text only: the text; structuredContent: itself', () => {
    expect(resultValue({ content: [{ type: 'text', text: 'a' }] }, 't')).toBe('a');
    expect(resultValue({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, 't')).toBe('a\n\nb');
    expect(resultValue({ content: [] }, 't')).toBe('');
    expect(resultValue({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }, 't')).toEqual({ n: 1 });
  });

  it('images, audio, embedded resources (text and blob) and links are described', () => {
    const v = resultValue(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'audio', mimeType: 'audio/wav', data: 'AAA=' },
          { type: 'resource', resource: { uri: 'memo://a', mimeType: 'text/plain', text: 'hi' } },
          { type: 'resource', resource: { uri: 'memo://b', blob: 'AA==' } },
          { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3 },
        ],
      },
      't',
    );
    expect(v).toEqual({
      content: [
        { type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,AAAA' },
        { type: 'audio', mimeType: 'audio/wav', bytes: 2, dataUrl: 'data:audio/wav;base64,AAA=' },
        { type: 'resource', uri: 'memo://a', mimeType: 'text/plain', text: 'hi' },
        { type: 'resource', uri: 'memo://b', bytes: 1, dataUrl: 'data:application/octet-stream;base64,AA==' },
        { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3 },
      ],
    });
  });

  it('keeps each part’s annotations (audience, priority) when the server gives them', () => {
    const v = resultValue(
      {
        content: [
          { type: 'text', text: 'for you', annotations: { audience: ['user'], priority: 0.9 } },
          { type: 'image', mimeType: 'image/png', data: 'AAAA', annotations: { audience: ['assistant', 'user'] } },
          { type: 'resource', resource: { uri: 'memo://a', text: 'hi' }, annotations: { priority: 0.2, unknown: true } },
          { type: 'resource_link', uri: 'file:///x', annotations: { audience: 'nobody', priority: 3 } },
        ],
      },
      't',
    );
    expect(v).toEqual({
      content: [
        { type: 'text', text: 'for you', annotations: { audience: ['user'], priority: 0.9 } },
        { type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,AAAA', annotations: { audience: ['assistant', 'user'] } },
        { type: 'resource', uri: 'memo://a', text: 'hi', annotations: { priority: 0.2 } },
        { type: 'resource_link', uri: 'file:///x' },
      ],
    });
  });

  it("isError is an error with the tool's own words", () => {
    let err: unknown;
    try {
      resultValue({ isError: true, content: [{ type: 'text', text: 'no such city' }] }, 'weather');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toBe('weather reported an error: no such city');
    expect(() => resultValue({ isError: true }, 'w')).toThrow('w reported an error: no message');
  });
});
