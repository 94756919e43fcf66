/**
 * A tool's value that is content (shared/model/result-content.ts: an MCP result's parts, an HTTP
 * tool's image or sound) as a model is given it: text that says what each part is, and the images
 * beside it. The base64 of an image, a sound or a blob is never part of the text: it would only
 * spend the model's window. Whether an image is then sent as one is the provider client's
 * decision (agent/providers/image-input.ts); without it the model has the text alone.
 *
 *   text part        its text
 *   image            [image 1: image/png, 70 bytes]              (and the image, as `image 1`)
 *   audio            [audio: audio/wav, 2.0 KB (a sound is not given to models)]
 *   text resource    [resource memo://notes, text/plain] and its text on the next line
 *   blob resource    [resource memo://b: application/pdf, 1.0 KB (its content is not given to models)]
 *                    (an image blob is an image, as above)
 *   resource link    [link file:///x.png “pixel.png” (image/png) — what it is]
 */
import { dataUrlBase64, formatSize, resultParts, type ResultPart } from '../../../shared/model/result-content';
import type { ModelImage } from './types';

export interface ModelContent {
  text: string;
  images: ModelImage[];
}

/** The value as text and images when it is content; undefined when it is not (it is then given as JSON or text). */
export function modelContent(value: unknown): ModelContent | undefined {
  const parts = resultParts(value);
  if (!parts) return undefined;
  const images: ModelImage[] = [];
  const image = (mimeType: string, bytes: number, dataUrl: string, where?: string): string => {
    const label = `image ${images.length + 1}`;
    const base64 = dataUrlBase64(dataUrl);
    images.push({ label, mimeType, bytes, base64 });
    return `[${label}: ${mimeType}, ${formatSize(bytes)}${where ? `, ${where}` : ''}]`;
  };
  const texts = parts.map((p) => partText(p, image));
  // An image that is not base64 data stays in the list: what is sent then says it is not shown, and why.
  return { text: texts.join('\n\n'), images };
}

function partText(p: ResultPart, image: (mimeType: string, bytes: number, dataUrl: string, where?: string) => string): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'image':
      return image(p.mimeType, p.bytes, p.dataUrl);
    case 'audio':
      return `[audio: ${p.mimeType}, ${formatSize(p.bytes)} (a sound is not given to models)]`;
    case 'resource': {
      if (p.text !== undefined) return `[resource ${p.uri}${p.mimeType ? `, ${p.mimeType}` : ''}]\n${p.text}`;
      const mimeType = p.mimeType ?? 'application/octet-stream';
      if (p.dataUrl !== undefined && /^image\//i.test(mimeType)) return image(mimeType, p.bytes ?? 0, p.dataUrl, `resource ${p.uri}`);
      if (p.dataUrl !== undefined) return `[resource ${p.uri}: ${mimeType}, ${formatSize(p.bytes ?? 0)} (its content is not given to models)]`;
      return `[resource ${p.uri}${p.mimeType ? `, ${p.mimeType}` : ''}]`;
    }
    case 'resource_link': {
      const name = p.title ?? p.name;
      const about = [p.mimeType, p.size !== undefined ? formatSize(p.size) : undefined].filter(Boolean).join(', ');
      return `[link ${p.uri}${name ? ` “${name}”` : ''}${about ? ` (${about})` : ''}${p.description ? ` — ${p.description}` : ''}]`;
    }
    default:
      return JSON.stringify(p.value) ?? '';
  }
}
