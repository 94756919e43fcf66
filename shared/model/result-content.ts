/**
 * A tool's value read as content parts, for whoever shows it or gives it to a model:
 * - an MCP server's result that is neither text only nor structured, `{ content: [...] }`
 *   (electron/core/mcp-client/results.ts): text, images and audio with a `data:` URL, embedded
 *   resources (text, or a blob's size and `data:` URL), resource links; each part may carry the
 *   server's annotations (who it is for, how much it matters);
 * - an HTTP tool's binary answer (`{ contentType, sizeBytes, base64 }`) that is an image or a
 *   sound: one part of that kind.
 * Anything else is not content (undefined): it is shown and given as it is.
 */
import { formatBytes } from '../bytes';

export type Audience = 'user' | 'assistant';

export interface PartAnnotations {
  /** Whom the part is for: the user, the model, or both. */
  audience?: Audience[];
  /** How much it matters, 0 (least) to 1 (most). */
  priority?: number;
}

export type ResultPart = (
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; mimeType: string; bytes: number; dataUrl: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; bytes?: number; dataUrl?: string }
  | { type: 'resource_link'; uri: string; name?: string; title?: string; description?: string; mimeType?: string; size?: number }
  | { type: 'other'; value: unknown }
) & { annotations?: PartAnnotations };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The annotations an MCP part may carry, kept when well formed (audience of user/assistant, priority 0..1). */
export function partAnnotations(a: unknown): PartAnnotations | undefined {
  if (!isRecord(a)) return undefined;
  const out: PartAnnotations = {};
  if (Array.isArray(a.audience)) {
    const audience = a.audience.filter((x): x is Audience => x === 'user' || x === 'assistant');
    if (audience.length > 0) out.audience = [...new Set(audience)];
  }
  if (typeof a.priority === 'number' && a.priority >= 0 && a.priority <= 1) out.priority = a.priority;
  return out.audience || out.priority !== undefined ? out : undefined;
}

/** The media type of a Content-Type header: `image/png; charset=x` → `image/png`. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** The content parts of a tool's value, or undefined when it is not content (see the file's comment). */
export function resultParts(value: unknown): ResultPart[] | undefined {
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'content' && Array.isArray(value.content)) {
    const parts = value.content;
    if (!parts.every((p) => isRecord(p) && typeof p.type === 'string')) return undefined;
    return parts.map((p) => partOf(p as Record<string, unknown>));
  }
  const binary = binaryPart(value);
  return binary ? [binary] : undefined;
}

/** An HTTP tool's binary answer as an image or audio part (other types are not content). */
function binaryPart(v: Record<string, unknown>): ResultPart | undefined {
  if (Object.keys(v).length !== 3 || typeof v.contentType !== 'string' || typeof v.base64 !== 'string' || num(v.sizeBytes) === undefined) return undefined;
  const mimeType = mediaTypeOf(v.contentType);
  const type = /^image\/[\w.+-]+$/.test(mimeType) ? 'image' : /^audio\/[\w.+-]+$/.test(mimeType) ? 'audio' : undefined;
  if (!type) return undefined;
  return { type, mimeType, bytes: v.sizeBytes as number, dataUrl: `data:${mimeType};base64,${v.base64}` };
}

function partOf(p: Record<string, unknown>): ResultPart {
  const annotations = partAnnotations(p.annotations);
  const withNotes = <T extends ResultPart>(part: T): T => (annotations ? { ...part, annotations } : part);
  switch (p.type) {
    case 'text':
      if (typeof p.text === 'string') return withNotes({ type: 'text', text: p.text });
      break;
    case 'image':
    case 'audio':
      if (typeof p.dataUrl === 'string' && typeof p.mimeType === 'string') {
        return withNotes({ type: p.type, mimeType: p.mimeType, bytes: num(p.bytes) ?? 0, dataUrl: p.dataUrl });
      }
      break;
    case 'resource':
      if (typeof p.uri === 'string') {
        const out: ResultPart & { type: 'resource' } = { type: 'resource', uri: p.uri };
        if (str(p.mimeType) !== undefined) out.mimeType = p.mimeType as string;
        if (str(p.text) !== undefined) out.text = p.text as string;
        if (str(p.dataUrl) !== undefined) {
          out.dataUrl = p.dataUrl as string;
          out.bytes = num(p.bytes) ?? 0;
        }
        return withNotes(out);
      }
      break;
    case 'resource_link':
      if (typeof p.uri === 'string') {
        const out: ResultPart & { type: 'resource_link' } = { type: 'resource_link', uri: p.uri };
        for (const k of ['name', 'title', 'description', 'mimeType'] as const) if (str(p[k]) !== undefined) out[k] = p[k] as string;
        if (num(p.size) !== undefined) out.size = p.size as number;
        return withNotes(out);
      }
      break;
  }
  return { type: 'other', value: p };
}

/** The base64 text of a `data:…;base64,` URL (empty when it has none). */
export function dataUrlBase64(dataUrl: string): string {
  const comma = dataUrl.indexOf(',');
  return comma < 0 || !/;base64$/i.test(dataUrl.slice(0, comma)) ? '' : dataUrl.slice(comma + 1);
}

/** A size in words for a model's text: `70 bytes`, `1 byte`, `12.3 KB`, `4.0 MB`. */
export const formatSize = (bytes: number): string => formatBytes(bytes, 'words');
