/**
 * An MCP tools/call result as a value the chat, the tester and a model can use:
 * - structuredContent when the server gave it (checked against the tool's outputSchema by the dispatcher);
 * - text only: the text (parts joined by a blank line);
 * - anything else: `{ content: [...] }` with each part described — images and audio with their
 *   type, size and a `data:` URL, embedded resources with their text (or a blob's size), links as links.
 * `isError: true` becomes an error whose message is the tool's own text.
 */
import { AppError } from '../../../shared/errors';
import { partAnnotations } from '../../../shared/model/result-content';

export interface McpCallResult {
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Of a tool error's text, at most this much goes into the message (the rest stays in details). */
const ERROR_TEXT_CHARS = 2_000;

export function resultValue(r: McpCallResult, toolName: string): unknown {
  const parts = Array.isArray(r.content) ? r.content : [];
  if (r.isError) {
    const text = textOf(parts) || 'no message';
    throw new AppError('UNAVAILABLE', `${toolName} reported an error: ${text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}…` : text}`, {
      toolError: true,
      content: parts.map(describePart),
    });
  }
  if (r.structuredContent !== undefined) return r.structuredContent;
  if (parts.every(isText)) return parts.map((p) => p.text).join('\n\n');
  return { content: parts.map(describePart) };
}

interface TextPart {
  type: 'text';
  text: string;
}

function isText(p: unknown): p is TextPart {
  return isObj(p) && p.type === 'text' && typeof p.text === 'string';
}

function isObj(p: unknown): p is Record<string, unknown> {
  return typeof p === 'object' && p !== null;
}

function textOf(parts: unknown[]): string {
  return parts
    .map((p) => (isText(p) ? p.text : isObj(p) && p.type === 'resource' && isObj(p.resource) && typeof p.resource.text === 'string' ? p.resource.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Bytes a base64 text decodes to. */
function base64Bytes(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((b64.length * 3) / 4) - pad);
}

/** One part as the value carries it; the server's annotations (audience, priority) are kept when well formed. */
function describePart(p: unknown): unknown {
  if (!isObj(p)) return p;
  const annotations = partAnnotations(p.annotations);
  const noted = (out: Record<string, unknown>) => (annotations ? { ...out, annotations } : out);
  switch (p.type) {
    case 'text':
      return noted({ type: 'text', text: p.text });
    case 'image':
    case 'audio': {
      const data = typeof p.data === 'string' ? p.data : '';
      const mimeType = typeof p.mimeType === 'string' ? p.mimeType : 'application/octet-stream';
      return noted({ type: p.type, mimeType, bytes: base64Bytes(data), dataUrl: `data:${mimeType};base64,${data}` });
    }
    case 'resource': {
      const res = isObj(p.resource) ? p.resource : {};
      const out: Record<string, unknown> = { type: 'resource', uri: res.uri };
      if (typeof res.mimeType === 'string') out.mimeType = res.mimeType;
      if (typeof res.text === 'string') out.text = res.text;
      if (typeof res.blob === 'string') {
        out.bytes = base64Bytes(res.blob);
        out.dataUrl = `data:${typeof res.mimeType === 'string' ? res.mimeType : 'application/octet-stream'};base64,${res.blob}`;
      }
      return noted(out);
    }
    case 'resource_link': {
      const out: Record<string, unknown> = { type: 'resource_link', uri: p.uri };
      for (const k of ['name', 'title', 'description', 'mimeType', 'size'] as const) if (p[k] !== undefined) out[k] = p[k];
      return noted(out);
    }
    default:
      return p;
  }
}
