/**
 * Files the composer attaches to a message (docs/chat.md, "Attachments"): which files may go
 * (PNG, JPEG, GIF and WebP images, checked by their first bytes; UTF-8 text files), their size
 * limits (shared/model/conversation.ts, the same the core checks), and a file read as base64.
 */
import type { AttachmentInput } from '../../../shared/contract/chat';
import {
  ATTACHMENTS_MAX,
  ATTACHMENTS_MAX_TOTAL_BYTES,
  ATTACHMENT_IMAGE_MAX_BYTES,
  ATTACHMENT_TEXT_MAX_BYTES,
} from '../../../shared/model/conversation';
import { attachmentStrings as s } from '../../i18n/chat-strings';

export type PendingAttachment = AttachmentInput & { bytes: number; image: boolean };

/** The image type the first bytes show; undefined when none of the four. */
export function imageTypeOfBytes(head: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const TYPE_NAMES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

export const mib = (bytes: number) => `${Number((bytes / (1024 * 1024)).toFixed(2))} MiB`;

/**
 * Whether a file may be attached beside those already attached: its type (by its bytes for an
 * image, by decoding for text) and the limits. Answers the attachment, or the sentence to show.
 */
export function checkFile(
  file: { name: string; type: string; bytes: Uint8Array },
  attached: readonly PendingAttachment[],
): { ok: true; attachment: PendingAttachment } | { ok: false; message: string } {
  const { name, bytes } = file;
  if (attached.length >= ATTACHMENTS_MAX) return { ok: false, message: s.tooMany(ATTACHMENTS_MAX) };
  if (bytes.length === 0) return { ok: false, message: s.empty(name) };
  const claimed = file.type.toLowerCase();
  const sniffed = imageTypeOfBytes(bytes.subarray(0, 16));
  let mimeType: string;
  let image: boolean;
  if (claimed.startsWith('image/') || sniffed) {
    if (!sniffed && TYPE_NAMES[claimed]) return { ok: false, message: s.notAnImage(name, TYPE_NAMES[claimed]!) };
    if (!sniffed) return { ok: false, message: s.wrongType(name) };
    if (bytes.length > ATTACHMENT_IMAGE_MAX_BYTES) return { ok: false, message: s.imageTooBig(name, mib(ATTACHMENT_IMAGE_MAX_BYTES)) };
    mimeType = sniffed;
    image = true;
  } else {
    if (bytes.length > ATTACHMENT_TEXT_MAX_BYTES) return { ok: false, message: s.textTooBig(name, mib(ATTACHMENT_TEXT_MAX_BYTES)) };
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      if (text.includes('\u0000')) return { ok: false, message: s.notText(name) };
    } catch {
      return { ok: false, message: s.notText(name) };
    }
    mimeType = claimed || 'text/plain';
    image = false;
  }
  const total = attached.reduce((n, a) => n + a.bytes, 0) + bytes.length;
  if (total > ATTACHMENTS_MAX_TOTAL_BYTES) return { ok: false, message: s.totalTooBig(mib(ATTACHMENTS_MAX_TOTAL_BYTES)) };
  return { ok: true, attachment: { name, mimeType, dataBase64: toBase64(bytes), bytes: bytes.length, image } };
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Reads the files and checks each in turn: the ones that may go, and a sentence for each that may not. */
export async function readFiles(files: readonly File[], attached: readonly PendingAttachment[]): Promise<{ added: PendingAttachment[]; errors: string[] }> {
  const added: PendingAttachment[] = [];
  const errors: string[] = [];
  for (const f of files) {
    // Too large to be anything attachable: not read at all.
    if (f.size > Math.max(ATTACHMENT_IMAGE_MAX_BYTES, ATTACHMENT_TEXT_MAX_BYTES)) {
      errors.push(f.type.startsWith('image/') ? s.imageTooBig(f.name, mib(ATTACHMENT_IMAGE_MAX_BYTES)) : s.textTooBig(f.name, mib(ATTACHMENT_TEXT_MAX_BYTES)));
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await f.arrayBuffer());
    } catch {
      errors.push(s.unreadable(f.name));
      continue;
    }
    const r = checkFile({ name: f.name, type: f.type, bytes }, [...attached, ...added]);
    if (r.ok) added.push(r.attachment);
    else errors.push(r.message);
  }
  return { added, errors };
}
