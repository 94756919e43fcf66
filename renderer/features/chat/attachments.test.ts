import { describe, expect, it } from 'vitest';
import { ATTACHMENTS_MAX, ATTACHMENT_TEXT_MAX_BYTES } from '../../../shared/model/conversation';
import { checkFile, imageTypeOfBytes, toBase64, type PendingAttachment } from './attachments';

const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
const utf8 = (t: string) => new TextEncoder().encode(t);

describe('checkFile', () => {
  it('takes a PNG by its bytes and a UTF-8 text file', () => {
    expect(imageTypeOfBytes(PNG)).toBe('image/png');
    const img = checkFile({ name: 'p.png', type: 'image/png', bytes: PNG }, []);
    expect(img).toMatchObject({ ok: true, attachment: { name: 'p.png', mimeType: 'image/png', bytes: 70, image: true, dataBase64: toBase64(PNG) } });
    expect(checkFile({ name: 'n.md', type: '', bytes: utf8('# héllo') }, [])).toMatchObject({ ok: true, attachment: { mimeType: 'text/plain', image: false } });
  });

  it('refuses a wrong type, a fake image, bad UTF-8, too large a file and too many, each with a sentence naming the file', () => {
    expect(checkFile({ name: 'fake.png', type: 'image/png', bytes: utf8('hello') }, [])).toEqual({ ok: false, message: expect.stringContaining('fake.png is not a PNG image') });
    expect(checkFile({ name: 'a.svg', type: 'image/svg+xml', bytes: utf8('<svg/>') }, [])).toEqual({ ok: false, message: expect.stringContaining('a.svg cannot be attached') });
    expect(checkFile({ name: 'b.bin', type: '', bytes: Uint8Array.of(0xff, 0xfe, 0x81) }, [])).toEqual({ ok: false, message: expect.stringContaining('b.bin is not a UTF-8 text file') });
    expect(checkFile({ name: 'big.txt', type: 'text/plain', bytes: new Uint8Array(ATTACHMENT_TEXT_MAX_BYTES + 1).fill(97) }, [])).toEqual({ ok: false, message: expect.stringContaining('big.txt is larger than 1 MiB') });
    const full = Array.from({ length: ATTACHMENTS_MAX }, (): PendingAttachment => ({ name: 'x', mimeType: 'text/plain', dataBase64: 'eA==', bytes: 1, image: false }));
    expect(checkFile({ name: 'one.txt', type: 'text/plain', bytes: utf8('x') }, full)).toEqual({ ok: false, message: expect.stringContaining(`at most ${ATTACHMENTS_MAX} attachments`) });
  });
});
