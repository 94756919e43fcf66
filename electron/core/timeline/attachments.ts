/**
 * A user message's attachments as the timeline keeps them (the `attachments` column of its
 * row, JSON: each file's name, type, size and bytes as base64), as the chat shows them, and
 * as its model is given them: a text file as a fenced block named by the file after the
 * message's text, an image as an image of the message (or, for a model that takes none, a line
 * saying it is not shown: agent/providers/image-input.ts).
 */
import { ATTACHMENT_IMAGE_TYPES, type Attachment } from '../../../shared/model/conversation';
import type { ModelImage } from '../llm/types';

export interface StoredAttachment {
  name: string;
  mimeType: string;
  /** Decoded size. */
  bytes: number;
  dataBase64: string;
}

export function isImageAttachment(a: { mimeType: string }): boolean {
  return ATTACHMENT_IMAGE_TYPES.includes(a.mimeType);
}

/**
 * What a message shows of its attachments: each file's name, type and size. The bytes stay in the
 * store: an image's thumbnail is read when it is drawn (`conversations.attachment`), so reading a
 * conversation never carries its images.
 */
export function shownAttachments(stored: readonly StoredAttachment[]): Attachment[] {
  return stored.map((a) => ({ name: a.name, mimeType: a.mimeType, bytes: a.bytes }));
}

/** A stored column read back: only well-formed entries (a damaged one is left out, never fails the conversation). */
export function storedAttachmentsOf(value: unknown): StoredAttachment[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (a): a is StoredAttachment =>
      typeof a === 'object' && a !== null && typeof a.name === 'string' && typeof a.mimeType === 'string' && typeof a.bytes === 'number' && typeof a.dataBase64 === 'string',
  );
}

/** A fence longer than any run of backticks in the text. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The message's text with its attachments as its model is given them. */
export function withAttachments(text: string, attachments: readonly StoredAttachment[] | undefined): { text: string; images: ModelImage[] } {
  if (!attachments?.length) return { text, images: [] };
  const blocks: string[] = [];
  const images: ModelImage[] = [];
  for (const a of attachments) {
    if (isImageAttachment(a)) {
      const label = `the attached image ${a.name}`;
      blocks.push(`[attached image: ${a.name} (${a.mimeType}, ${a.bytes} bytes)]`);
      images.push({ label, mimeType: a.mimeType, bytes: a.bytes, base64: a.dataBase64 });
    } else {
      const content = Buffer.from(a.dataBase64, 'base64').toString('utf8');
      const fence = fenceFor(content);
      blocks.push(`Attached file ${a.name}:\n${fence}\n${content}${content.endsWith('\n') ? '' : '\n'}${fence}`);
    }
  }
  return { text: [text, ...blocks].filter((t) => t.trim()).join('\n\n'), images };
}
