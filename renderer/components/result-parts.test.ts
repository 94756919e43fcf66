import { describe, expect, it } from 'vitest';
import { resultParts } from '../../shared/model/result-content';
import { INLINE_MEDIA_MAX_BYTES, annotationText, dataUrlBytes, dataUrlToBytes, dataUrlType, fileNameFor, partViews, showsInline } from './result-parts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('a tool’s result shown part by part', () => {
  it('makes each part what it is on screen: text, image, sound, text resource, blob, link', () => {
    const parts = resultParts({
      content: [
        { type: 'text', text: 'a pixel', annotations: { audience: ['user'], priority: 0.5 } },
        { type: 'image', mimeType: 'image/png', bytes: 70, dataUrl: `data:image/png;base64,${PNG}` },
        { type: 'audio', mimeType: 'audio/wav', bytes: 3, dataUrl: 'data:audio/wav;base64,AAAA' },
        { type: 'resource', uri: 'memo://notes', mimeType: 'text/plain', text: 'the notes' },
        { type: 'resource', uri: 'file:///tmp/report.pdf', mimeType: 'application/pdf', bytes: 2048, dataUrl: 'data:application/pdf;base64,AAAA' },
        { type: 'resource_link', uri: 'file:///tmp/pixel.png', name: 'pixel.png', mimeType: 'image/png', description: 'the file' },
      ],
    })!;
    expect(partViews(parts, 'picture')).toEqual([
      { kind: 'text', text: 'a pixel', notes: 'for you · priority 0.5' },
      {
        kind: 'image',
        src: `data:image/png;base64,${PNG}`,
        alt: 'Image from picture (image/png)',
        caption: 'image/png, 70 bytes',
        download: { dataUrl: `data:image/png;base64,${PNG}`, fileName: 'picture-1.png' },
      },
      {
        kind: 'audio',
        src: 'data:audio/wav;base64,AAAA',
        label: 'Sound from picture (audio/wav)',
        caption: 'audio/wav, 3 bytes',
        download: { dataUrl: 'data:audio/wav;base64,AAAA', fileName: 'picture-2.wav' },
      },
      { kind: 'resource-text', uri: 'memo://notes', mimeType: 'text/plain', text: 'the notes' },
      {
        kind: 'resource-blob',
        uri: 'file:///tmp/report.pdf',
        caption: 'application/pdf, 2.0 KB',
        download: { dataUrl: 'data:application/pdf;base64,AAAA', fileName: 'report.pdf' },
      },
      { kind: 'link', uri: 'file:///tmp/pixel.png', name: 'pixel.png', description: 'the file', caption: 'image/png' },
    ]);
  });

  it('shows an HTTP tool’s binary image as an image', () => {
    const [view] = partViews(resultParts({ contentType: 'image/png', sizeBytes: 70, base64: PNG })!, 'fetch-pixel');
    expect(view).toMatchObject({ kind: 'image', src: `data:image/png;base64,${PNG}`, alt: 'Image from fetch-pixel (image/png)' });
  });

  it('does not put a large image or sound in the page: its size and a download instead', () => {
    const big = `data:image/png;base64,${'A'.repeat(Math.ceil((INLINE_MEDIA_MAX_BYTES * 4) / 3) + 400)}`;
    expect(showsInline(big)).toBe(false);
    expect(showsInline(`data:image/png;base64,${PNG}`)).toBe(true);
    const [image, audio] = partViews(
      [
        { type: 'image', mimeType: 'image/png', bytes: INLINE_MEDIA_MAX_BYTES + 300, dataUrl: big },
        { type: 'audio', mimeType: 'audio/wav', bytes: 0, dataUrl: big.replace('image/png', 'audio/wav') },
      ],
      'shot',
    );
    expect(image).toMatchObject({ kind: 'image', tooLarge: 'Too large to show here (4.0 MB): download it to see it.', download: { dataUrl: big } });
    expect(image).not.toHaveProperty('src');
    expect(audio).toMatchObject({ kind: 'audio', tooLarge: expect.stringContaining('Too large to show here') as unknown });
    expect(audio).not.toHaveProperty('src');
  });

  it('says annotations in a few words', () => {
    expect(annotationText({ audience: ['assistant'] })).toBe('for the model');
    expect(annotationText({ audience: ['user', 'assistant'], priority: 1 })).toBe('for you and the model · priority 1');
    expect(annotationText({ priority: 0 })).toBe('priority 0');
    expect(annotationText(undefined)).toBeUndefined();
  });

  it('names a download after its URI, else after the tool and the type', () => {
    expect(fileNameFor('file:///tmp/a b/report.pdf?x=1', 'application/pdf', 'tool')).toBe('report.pdf');
    expect(fileNameFor('memo://', 'image/png', 'my tool-3')).toBe('my-tool-3.png');
    expect(fileNameFor(undefined, 'application/x-unknown', '')).toBe('result.bin');
    expect(fileNameFor('memo://../..', 'text/plain', 't')).toBe('t.txt');
  });

  it('reads the bytes and type of a data: URL, and its size when the part does not say', () => {
    expect(Array.from(dataUrlToBytes('data:application/octet-stream;base64,AAEC')!)).toEqual([0, 1, 2]);
    expect(dataUrlToBytes('data:application/octet-stream;base64,!!!')).toBeNull();
    expect(dataUrlType('data:image/png;base64,AAAA')).toBe('image/png');
    expect(dataUrlType('data:;base64,AAAA')).toBe('application/octet-stream');
    expect(dataUrlBytes('data:image/png;base64,AAA=')).toBe(2);
    expect(dataUrlBytes('data:image/png;base64,AAA=', 9)).toBe(9);
  });
});
