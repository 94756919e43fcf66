/**
 * A tool's result shown as content (ResultParts.tsx): what each part of
 * shared/model/result-content.ts becomes on screen. Images and sounds are shown from their data:
 * URL up to INLINE_MEDIA_MAX_BYTES; a larger one is only its size and a download, so a big value
 * never stalls the window. Annotations are said in a few words.
 */
import { dataUrlBase64, formatSize, type PartAnnotations, type ResultPart } from '../../shared/model/result-content';
import { resultStrings as s } from '../i18n/result-strings';

/** Images and sounds up to this size are shown in place; larger ones are offered as a download. */
export const INLINE_MEDIA_MAX_BYTES = 4 * 1024 * 1024;

export interface Download {
  dataUrl: string;
  fileName: string;
}

export type PartView = { notes?: string } & (
  | { kind: 'text'; text: string }
  | { kind: 'image'; src?: string; alt: string; caption: string; tooLarge?: string; download: Download }
  | { kind: 'audio'; src?: string; label: string; caption: string; tooLarge?: string; download: Download }
  | { kind: 'resource-text'; uri: string; mimeType?: string; text: string }
  | { kind: 'resource-blob'; uri: string; caption: string; download: Download }
  | { kind: 'link'; uri: string; name?: string; description?: string; caption?: string }
  | { kind: 'other'; json: string }
);

/** Bytes a data: URL carries: the part's own figure, or what its base64 decodes to. */
export function dataUrlBytes(dataUrl: string, stated?: number): number {
  if (stated && stated > 0) return stated;
  const b64 = dataUrlBase64(dataUrl);
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((b64.length * 3) / 4) - pad);
}

/** Whether a data: URL is small enough to show in place (judged by its length, which is what the page holds). */
export function showsInline(dataUrl: string): boolean {
  return dataUrl.length <= Math.ceil((INLINE_MEDIA_MAX_BYTES * 4) / 3) + 100;
}

/** Annotations in a few words: `for you · priority 0.8`. */
export function annotationText(a: PartAnnotations | undefined): string | undefined {
  if (!a) return undefined;
  const words: string[] = [];
  const aud = a.audience ?? [];
  if (aud.length === 1) words.push(aud[0] === 'user' ? s.audience.user : s.audience.assistant);
  else if (aud.length > 1) words.push(s.audience.both);
  if (a.priority !== undefined) words.push(s.priority(a.priority));
  return words.length ? words.join(' · ') : undefined;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

/** A file name to save a part as: the last segment of its URI when it has one, else the tool's name and the type's extension. */
export function fileNameFor(uri: string | undefined, mimeType: string, fallback: string): string {
  const path = (uri ?? '').split(/[?#]/)[0]!;
  const last = path.split(/[/\\]/).filter(Boolean).at(-1) ?? '';
  const clean = last.replace(/[^\w.\- ]+/g, '_').slice(0, 120);
  if (clean && !/^[._]+$/.test(clean) && !/:$/.test(last)) return clean;
  const base = fallback.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'result';
  const ext = EXTENSIONS[mimeType.toLowerCase()] ?? 'bin';
  return `${base}.${ext}`;
}

/** What each part becomes on screen. */
export function partViews(parts: readonly ResultPart[], toolName: string): PartView[] {
  let n = 0;
  return parts.map((p): PartView => {
    const notes = annotationText(p.annotations);
    const withNotes = (v: PartView): PartView => (notes ? { ...v, notes } : v);
    switch (p.type) {
      case 'text':
        return withNotes({ kind: 'text', text: p.text });
      case 'image':
      case 'audio': {
        n++;
        const size = formatSize(dataUrlBytes(p.dataUrl, p.bytes));
        const caption = s.sizeOf(p.mimeType, size);
        const inline = showsInline(p.dataUrl);
        const download = { dataUrl: p.dataUrl, fileName: fileNameFor(undefined, p.mimeType, `${toolName}-${n}`) };
        const shown = inline ? { src: p.dataUrl } : { tooLarge: s.tooLarge(size) };
        return withNotes(
          p.type === 'image'
            ? { kind: 'image', alt: s.imageAlt(toolName, p.mimeType), caption, download, ...shown }
            : { kind: 'audio', label: s.audioLabel(toolName, p.mimeType), caption, download, ...shown },
        );
      }
      case 'resource': {
        if (p.text !== undefined) return withNotes({ kind: 'resource-text', uri: p.uri, text: p.text, ...(p.mimeType ? { mimeType: p.mimeType } : {}) });
        const mimeType = p.mimeType ?? 'application/octet-stream';
        if (p.dataUrl === undefined) return withNotes({ kind: 'link', uri: p.uri, ...(p.mimeType ? { caption: p.mimeType } : {}) });
        n++;
        return withNotes({
          kind: 'resource-blob',
          uri: p.uri,
          caption: s.sizeOf(mimeType, formatSize(dataUrlBytes(p.dataUrl, p.bytes))),
          download: { dataUrl: p.dataUrl, fileName: fileNameFor(p.uri, mimeType, `${toolName}-${n}`) },
        });
      }
      case 'resource_link': {
        const about = [p.mimeType, p.size !== undefined ? formatSize(p.size) : undefined].filter(Boolean).join(', ');
        const name = p.title ?? p.name;
        return withNotes({ kind: 'link', uri: p.uri, ...(name ? { name } : {}), ...(p.description ? { description: p.description } : {}), ...(about ? { caption: about } : {}) });
      }
      default:
        return withNotes({ kind: 'other', json: JSON.stringify(p.value, null, 2) ?? '' });
    }
  });
}

/** The bytes of a data: URL's base64, for a download; null when it is not valid base64. */
export function dataUrlToBytes(dataUrl: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(dataUrlBase64(dataUrl));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** The media type a data: URL declares. */
export function dataUrlType(dataUrl: string): string {
  const m = /^data:([^;,]*)/i.exec(dataUrl);
  return m?.[1] || 'application/octet-stream';
}
