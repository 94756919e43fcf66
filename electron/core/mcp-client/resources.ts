/**
 * A resource of a server brought in, read for the window (`mcpServers.readResource`): what a
 * tool's result links to (a `resource_link`, or an embedded resource given without its
 * contents). Each item keeps its URI and type, with its text or its bytes as a `data:` URL; an
 * item that is neither is kept with its URI only. The whole answer is bounded, text and bytes
 * together, so a server cannot fill the window.
 */
import { AppError } from '../../../shared/errors';
import { MCP_RESOURCE_MAX_BYTES, type McpResourceContent } from '../../../shared/model/mcp-client';

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** Bytes a base64 text decodes to. */
function base64Bytes(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((b64.length * 3) / 4) - pad);
}

/** A server's media type as a bare `type/subtype` (parameters dropped), or undefined when it is not one: it goes into a `data:` URL. */
function mediaType(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const bare = value.split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(bare) ? bare : undefined;
}

/** The items of a resources/read answer as the window shows them; PAYLOAD_TOO_LARGE over the bound. */
export function resourceContents(contents: readonly Record<string, unknown>[], uri: string): McpResourceContent[] {
  let total = 0;
  return contents.map((c) => {
    const out: McpResourceContent = { uri: typeof c.uri === 'string' ? c.uri : uri };
    const mimeType = mediaType(c.mimeType);
    if (mimeType) out.mimeType = mimeType;
    if (typeof c.text === 'string') {
      total += Buffer.byteLength(c.text, 'utf8');
      out.text = c.text;
    } else if (typeof c.blob === 'string') {
      // Some servers wrap base64 across lines.
      const blob = c.blob.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(blob)) throw new AppError('UNAVAILABLE', `the server's answer for ${uri.slice(0, 200)} holds bytes that are not base64`);
      const bytes = base64Bytes(blob);
      total += bytes;
      out.bytes = bytes;
      out.dataUrl = `data:${mimeType ?? 'application/octet-stream'};base64,${blob}`;
    }
    if (total > MCP_RESOURCE_MAX_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${uri.slice(0, 200)} is over ${mib(MCP_RESOURCE_MAX_BYTES)}, the most a resource shown here may be: read it with a tool of its server instead`);
    }
    return out;
  });
}
