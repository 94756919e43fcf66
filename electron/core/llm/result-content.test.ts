import { describe, expect, it } from 'vitest';
import { modelContent } from './result-content';

describe('content as a model is given it', () => {
  it('says what each part is; images beside the text, numbered; no base64 in the text', () => {
    const c = modelContent({
      content: [
        { type: 'text', text: 'two pictures' },
        { type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png;base64,QUJD' },
        { type: 'audio', mimeType: 'audio/wav', bytes: 2048, dataUrl: 'data:audio/wav;base64,U09VTkQ=' },
        { type: 'resource', uri: 'memo://notes', mimeType: 'text/plain', text: 'the notes' },
        { type: 'resource', uri: 'memo://pic', mimeType: 'image/jpeg', bytes: 3, dataUrl: 'data:image/jpeg;base64,SlBH' },
        { type: 'resource', uri: 'memo://doc', mimeType: 'application/pdf', bytes: 1024, dataUrl: 'data:application/pdf;base64,UERG' },
        { type: 'resource_link', uri: 'file:///x.png', name: 'x.png', title: 'The X', mimeType: 'image/png', size: 10, description: 'an x' },
        { type: 'resource_link', uri: 'file:///y' },
      ],
    });
    expect(c!.text).toBe(
      [
        'two pictures',
        '[image 1: image/png, 3 bytes]',
        '[audio: audio/wav, 2.0 KB (a sound is not given to models)]',
        '[resource memo://notes, text/plain]\nthe notes',
        '[image 2: image/jpeg, 3 bytes, resource memo://pic]',
        '[resource memo://doc: application/pdf, 1.0 KB (its content is not given to models)]',
        '[link file:///x.png “The X” (image/png, 10 bytes) — an x]',
        '[link file:///y]',
      ].join('\n\n'),
    );
    expect(c!.images).toEqual([
      { label: 'image 1', mimeType: 'image/png', bytes: 3, base64: 'QUJD' },
      { label: 'image 2', mimeType: 'image/jpeg', bytes: 3, base64: 'SlBH' },
    ]);
    for (const b64 of ['QUJD', 'U09VTkQ=', 'SlBH', 'UERG']) expect(c!.text).not.toContain(b64);
  });

  it('is nothing for a value that is not content (it is given as it is)', () => {
    expect(modelContent('text')).toBeUndefined();
    expect(modelContent({ a: 1 })).toBeUndefined();
  });
});

describe('an image that is not base64 data', () => {
  it('stays in the list, so what is sent says it is not shown and why', async () => {
    const { planImages } = await import('../agent/providers/image-input');
    const c = modelContent({ content: [{ type: 'image', mimeType: 'image/png', bytes: 3, dataUrl: 'data:image/png,abc' }] });
    expect(c?.images).toEqual([{ label: 'image 1', mimeType: 'image/png', bytes: 3, base64: '' }]);
    const plan = planImages([{ role: 'tool', callId: 'c', name: 't', text: c!.text, images: c!.images }], true);
    expect(plan.get(0)).toEqual({ send: [], note: '[image 1 is not shown to you: its bytes are not a image/png image]' });
  });
});
