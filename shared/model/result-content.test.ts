import { describe, expect, it } from 'vitest';
import { dataUrlBase64, formatSize, partAnnotations, resultParts } from './result-content';

describe('a tool value read as content parts', () => {
  it('reads an MCP result’s parts, each with its annotations when well formed', () => {
    const parts = resultParts({
      content: [
        { type: 'text', text: 'hi', annotations: { audience: ['user', 'user', 'robot'], priority: 0.8 } },
        { type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,AAAA' },
        { type: 'audio', mimeType: 'audio/wav', bytes: 2, dataUrl: 'data:audio/wav;base64,AAA=', annotations: { priority: 7 } },
        { type: 'resource', uri: 'memo://a', mimeType: 'text/plain', text: 'notes' },
        { type: 'resource', uri: 'memo://b', bytes: 1, dataUrl: 'data:application/pdf;base64,AA==' },
        { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3, description: 'the x' },
        { type: 'mystery', n: 1 },
      ],
    });
    expect(parts).toEqual([
      { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.8 } },
      { type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,AAAA' },
      { type: 'audio', mimeType: 'audio/wav', bytes: 2, dataUrl: 'data:audio/wav;base64,AAA=' },
      { type: 'resource', uri: 'memo://a', mimeType: 'text/plain', text: 'notes' },
      { type: 'resource', uri: 'memo://b', bytes: 1, dataUrl: 'data:application/pdf;base64,AA==' },
      { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3, description: 'the x' },
      { type: 'other', value: { type: 'mystery', n: 1 } },
    ]);
  });

  it('reads an HTTP tool’s binary image or sound as one part; other types and other values are not content', () => {
    expect(resultParts({ contentType: 'Image/PNG; q=1', sizeBytes: 3, base64: 'AAAA' })).toEqual([{ type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,AAAA' }]);
    expect(resultParts({ contentType: 'audio/mpeg', sizeBytes: 3, base64: 'AAAA' })).toEqual([{ type: 'audio', mimeType: 'audio/mpeg', bytes: 3, dataUrl: 'data:audio/mpeg;base64,AAAA' }]);
    expect(resultParts({ contentType: 'application/pdf', sizeBytes: 3, base64: 'AAAA' })).toBeUndefined();
    expect(resultParts({ contentType: 'image/png', sizeBytes: 3, base64: 'AAAA', extra: 1 })).toBeUndefined();
    for (const v of ['text', 42, null, undefined, [], { a: 1 }, { content: 'x' }, { content: [1] }, { content: [{ type: 'text', text: 'a' }], structured: true }]) {
      expect(resultParts(v), JSON.stringify(v)).toBeUndefined();
    }
  });

  it('keeps only annotations MCP defines, well formed', () => {
    expect(partAnnotations({ audience: ['assistant'], priority: 0 })).toEqual({ audience: ['assistant'], priority: 0 });
    expect(partAnnotations({ audience: 'user', priority: 1.5 })).toBeUndefined();
    expect(partAnnotations({ lastModified: '2025-01-01' })).toBeUndefined();
    expect(partAnnotations(null)).toBeUndefined();
  });

  it('takes the base64 out of a data: URL and says sizes in words', () => {
    expect(dataUrlBase64('data:image/png;base64,AAAA')).toBe('AAAA');
    expect(dataUrlBase64('data:text/plain,hello')).toBe('');
    expect(dataUrlBase64('nonsense')).toBe('');
    expect([0, 1, 70, 1024, 1536, 5 * 1024 * 1024].map(formatSize)).toEqual(['0 bytes', '1 byte', '70 bytes', '1.0 KB', '1.5 KB', '5.0 MB']);
  });
});
