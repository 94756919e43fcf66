/**
 * Files attached to a message (docs/chat.md, "Attachments"), checked before anything is stored:
 * base64 that decodes, at most ATTACHMENTS_MAX of them and ATTACHMENTS_MAX_TOTAL_BYTES in all; an
 * image is a PNG, JPEG, GIF or WebP whose bytes are what its type says (at most
 * ATTACHMENT_IMAGE_MAX_BYTES); anything else is a text file that decodes as UTF-8 (at most
 * ATTACHMENT_TEXT_MAX_BYTES). A bad one refuses the message with a sentence naming the file.
 */
import { AppError } from '../../../shared/errors';
import {
  ATTACHMENTS_MAX,
  ATTACHMENTS_MAX_TOTAL_BYTES,
  ATTACHMENT_IMAGE_MAX_BYTES,
  ATTACHMENT_IMAGE_TYPES,
  ATTACHMENT_TEXT_MAX_BYTES,
} from '../../../shared/model/conversation';
import type { AttachmentInput } from '../../../shared/contract/chat';
import type { StoredAttachment } from '../timeline/attachments';
import { imageTypeOf } from '../agent/providers/image-input';

const IMAGE_NAMES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 2)} MiB`;

function refuse(message: string): never {
  throw new AppError('VALIDATION_FAILED', message, { field: 'attachments' });
}

/** The decoded size of base64 text, or undefined when it is not base64. */
function decodedBytes(base64: string): number | undefined {
  if (base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) return undefined;
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - pad;
}

/** The attachments as they are stored, or a refusal naming the first bad one. */
export function checkAttachments(inputs: readonly AttachmentInput[] | undefined): StoredAttachment[] {
  if (!inputs || inputs.length === 0) return [];
  if (inputs.length > ATTACHMENTS_MAX) refuse(`a message takes at most ${ATTACHMENTS_MAX} attachments (this one has ${inputs.length}): send the others in another message`);
  let total = 0;
  return inputs.map((a) => {
    // A name is shown and given to the model inside its text: one line, no path, no control characters.
    const name = [...a.name]
      .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f && !(ch.charCodeAt(0) >= 0x80 && ch.charCodeAt(0) < 0xa0))
      .join('')
      .replace(/[\\/]+/g, '_')
      .trim()
      .slice(0, 255);
    if (!name) refuse('an attachment has no name: give each file a name');
    const bytes = decodedBytes(a.dataBase64);
    if (bytes === undefined) refuse(`${name}: its data is not base64; attach the file again`);
    if (bytes === 0) refuse(`${name} is empty: attach a file with something in it`);
    total += bytes;
    if (total > ATTACHMENTS_MAX_TOTAL_BYTES) refuse(`the attachments come to more than ${mib(ATTACHMENTS_MAX_TOTAL_BYTES)} (at ${name}): attach fewer or smaller files`);
    const claimed = a.mimeType.trim().toLowerCase();
    const sniffed = imageTypeOf(a.dataBase64);
    if (claimed.startsWith('image/') || sniffed) {
      if (!ATTACHMENT_IMAGE_TYPES.includes(claimed) && !(claimed === '' || claimed === 'application/octet-stream')) {
        refuse(`${name} is of type ${claimed}: only PNG, JPEG, GIF and WebP images can be attached`);
      }
      const type = ATTACHMENT_IMAGE_TYPES.includes(claimed) ? claimed : sniffed!;
      if (sniffed !== type) refuse(`${name} is not a ${IMAGE_NAMES[type]} image: its bytes are not one; attach the image again, or convert it to PNG or JPEG`);
      if (bytes > ATTACHMENT_IMAGE_MAX_BYTES) refuse(`${name} is ${mib(bytes)}: an image may be at most ${mib(ATTACHMENT_IMAGE_MAX_BYTES)} (what a model takes); make it smaller`);
      return { name, mimeType: type, bytes, dataBase64: a.dataBase64 };
    }
    if (bytes > ATTACHMENT_TEXT_MAX_BYTES) refuse(`${name} is ${mib(bytes)}: a text file may be at most ${mib(ATTACHMENT_TEXT_MAX_BYTES)}; attach a part of it`);
    const raw = Buffer.from(a.dataBase64, 'base64');
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      refuse(`${name} is not a UTF-8 text file: only text files and PNG, JPEG, GIF or WebP images can be attached`);
    }
    if (text.includes('\u0000')) refuse(`${name} is not a text file (it holds NUL bytes): only text files and PNG, JPEG, GIF or WebP images can be attached`);
    // A text file keeps a plain text or data type it was given (text/markdown, application/json); anything else is text/plain.
    const textType = /^(?:text\/[a-z0-9.+-]{1,60}|application\/(?:json|xml|yaml|x-yaml|toml|javascript|typescript))$/.test(claimed) ? claimed : 'text/plain';
    return { name, mimeType: textType, bytes, dataBase64: a.dataBase64 };
  });
}
