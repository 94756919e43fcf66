/**
 * Which models are given a tool's images as images, and which images go.
 *
 * A provider does not say whether a model reads images, and an image sent to one that does not
 * fails the whole request: so an image goes only to a model this table knows to take images, and
 * every other model gets the text that stands in for it (llm/result-content.ts) with a line saying
 * it is not shown. Known (by the model's name, any `vendor/` prefix and `:tag` aside):
 * - Anthropic: Claude 3 and later (not claude-instant, Claude 1 or 2);
 * - OpenAI-compatible: gpt-4o, chatgpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-4-turbo (the 2024
 *   release, not the previews), gpt-4-vision, o1 and o3 (not their minis), o4-mini; Claude 3+ and
 *   Gemini 1.5+ through a router (OpenRouter names them `anthropic/…`, `google/…`); and open
 *   vision models by their family: llava, bakllava, llama3.2-vision, llama4, qwen-vl, qwen2-vl,
 *   qwen2.5-vl (qwen2.5vl), qwen3-vl, minicpm-v, moondream, granite3.2-vision, or any
 *   name with `vision` or a `-vl` part; never an audio, realtime, search, speech or embedding variant.
 * Types: PNG, JPEG, GIF and WebP (what both APIs take); each at most 5 MiB of base64 (Anthropic's
 * limit), at most 20 images and 20 MiB of them in one request (the latest ones: a long
 * conversation's older images are told, not sent), and only an image whose bytes are what it says
 * (a PNG's signature for image/png, and so on: a provider refuses one that is not), and at most
 * 8000 pixels on a side, as its header says.
 * Pixtral is left out: Mistral's API refuses a user message right after tool messages.
 */
import type { ProviderKind } from '../../../../shared/model/provider';
import type { ModelImage, ModelMessage } from '../../llm/types';

export const MODEL_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const MODEL_IMAGE_MAX_BASE64_CHARS = 5 * 1024 * 1024;
export const MODEL_IMAGES_PER_REQUEST = 20;
/** Base64 characters of images in one request at most (requests have a total size limit). */
export const MODEL_IMAGES_MAX_BASE64_PER_REQUEST = 20 * 1024 * 1024;

/** The longest side, in pixels, an image sent to a model may have (Anthropic refuses larger ones). */
export const MODEL_IMAGE_MAX_SIDE = 8000;

/**
 * An image's width and height read from its header (PNG, GIF, WebP, JPEG), from its base64;
 * undefined when the header cannot be read from the first bytes.
 */
export function imageSizeOf(base64: string): { width: number; height: number } | undefined {
  const b = Buffer.from(base64.slice(0, 64 * 1024).replace(/=+$/, '').slice(0, Math.floor(Math.min(base64.length, 64 * 1024) / 4) * 4), 'base64');
  const type = imageTypeOf(base64);
  if (type === 'image/png' && b.length >= 24) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (type === 'image/gif' && b.length >= 10) return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (type === 'image/webp' && b.length >= 30) {
    const chunk = b.toString('latin1', 12, 16);
    if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
    return undefined;
  }
  if (type === 'image/jpeg') {
    // The first start-of-frame marker carries the size (not DHT, JPG or DAC, which share its range).
    for (let i = 2; i + 9 < b.length; ) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + b.readUInt16BE(i + 2);
    }
  }
  return undefined;
}

/** The image type its first bytes show, from its base64; undefined when none of the four or not base64. */
export function imageTypeOf(base64: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64.slice(0, 64)) || base64.length < 16) return undefined;
  const head = Buffer.from(base64.slice(0, 24), 'base64');
  if (head[0] === 0x89 && head.toString('latin1', 1, 4) === 'PNG') return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.toString('latin1', 0, 4) === 'GIF8') return 'image/gif';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const OPENAI_VISION: RegExp[] = [
  /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5)(\b|[-.:])/,
  /^gpt-4-turbo(-2024-04-09)?$/,
  /^gpt-4-vision/,
  /^o1(-20\d\d-\d\d-\d\d)?$/,
  /^o1-pro/,
  /^o3(-20\d\d-\d\d-\d\d|-pro.*)?$/,
  /^o4-mini/,
  /^claude-/,
  /^gemini-(1\.5|[2-9])/,
  /^(llava|bakllava|llama3\.2-vision|llama-?4|qwen-vl|qwen2-vl|qwen2\.5-?vl|qwen3-vl|minicpm-v|moondream|granite3\.2-vision)/,
  /vision/,
  /(^|[-_.])vl([-_.]|$)/,
];

/** Variants of those families that take sound, search or embed rather than images; Mistral's models (see the file's comment). */
const NOT_CHAT_IMAGES = /(audio|realtime|search|transcribe|tts|embed|pixtral|mistral)/;

/** The model's own name: lower case, without a router's `vendor/` prefix or Ollama's `:tag`. */
function baseName(model: string): string {
  const lower = model.trim().toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(0, colon);
}

function isClaude3Plus(name: string): boolean {
  return /^claude-/.test(name) && !/^claude-(instant|1|2)(\b|[-.])/.test(name);
}

/** Whether the model is known to take images (see the file's comment); false when unknown. */
export function acceptsImages(kind: ProviderKind, model: string): boolean {
  const name = baseName(model);
  if (!name) return false;
  if (kind === 'anthropic') return isClaude3Plus(name);
  if (/^claude-/.test(name)) return isClaude3Plus(name);
  if (NOT_CHAT_IMAGES.test(name)) return false;
  return OPENAI_VISION.some((re) => re.test(name));
}

function tooLarge(base64: string): boolean {
  const size = imageSizeOf(base64);
  return size !== undefined && (size.width > MODEL_IMAGE_MAX_SIDE || size.height > MODEL_IMAGE_MAX_SIDE);
}

/** For one message: the images that go as images, and the line that tells of those that do not (empty when all go). */
export interface ImagesOfMessage {
  send: ModelImage[];
  note: string;
}

/**
 * Which images of a request go as images: by message index, for each message that has images.
 * Counted from the end, so the latest images are the ones sent when there are too many.
 */
export function planImages(messages: readonly ModelMessage[], accepts: boolean): Map<number, ImagesOfMessage> {
  const plan = new Map<number, ImagesOfMessage>();
  let left = MODEL_IMAGES_PER_REQUEST;
  let budget = MODEL_IMAGES_MAX_BASE64_PER_REQUEST;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const images = m.role === 'user' || m.role === 'tool' ? (m.images ?? []) : [];
    if (images.length === 0) continue;
    const send: ModelImage[] = [];
    const notes: string[] = [];
    // Within a message, its first images first.
    const take = images.map((img) => {
      const why = !accepts
        ? 'this model is not known to take images'
        : !MODEL_IMAGE_TYPES.includes(img.mimeType.toLowerCase())
          ? `${img.mimeType} is not a type models take (PNG, JPEG, GIF, WebP)`
          : img.base64.length > MODEL_IMAGE_MAX_BASE64_CHARS
            ? 'it is larger than a model takes (5 MiB)'
            : imageTypeOf(img.base64) !== img.mimeType.toLowerCase()
              ? `its bytes are not a ${img.mimeType} image`
              : tooLarge(img.base64)
                ? `it is larger than ${MODEL_IMAGE_MAX_SIDE} pixels on a side`
                : undefined;
      return { img, why };
    });
    const fitting = take.filter((t) => !t.why).length;
    let allowed = Math.min(fitting, left);
    left -= allowed;
    for (const t of take) {
      if (t.why) notes.push(`[${t.img.label} is not shown to you: ${t.why}]`);
      else if (allowed > 0 && t.img.base64.length <= budget) {
        send.push(t.img);
        allowed--;
        budget -= t.img.base64.length;
      } else if (allowed > 0) notes.push(`[${t.img.label} is not shown to you: the request carries 20 MiB of images at most, the latest first]`);
      else notes.push(`[${t.img.label} is not shown to you: only the latest ${MODEL_IMAGES_PER_REQUEST} images of the conversation are]`);
    }
    plan.set(i, { send, note: notes.join('\n') });
  }
  return plan;
}

/** The text with the plan's line after it. */
export function withNote(text: string, note: string): string {
  if (!note) return text;
  return text ? `${text}\n${note}` : note;
}
