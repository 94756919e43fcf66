/** What a document's content says of itself: its type from the name, a summary from its first lines. */
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sql': 'application/sql',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
};

/** By extension; an unknown one is text/plain when the content is text, else application/octet-stream. */
export function mimeTypeOf(file: string, isText: boolean): string {
  return TYPES[path.extname(file).toLowerCase()] ?? (isText ? 'text/plain' : 'application/octet-stream');
}

/** The bytes as text, or undefined when they are not text (a NUL in the first 8 KiB, or not UTF-8). */
export function utf8Text(b: Buffer): string | undefined {
  if (b.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return undefined;
  }
}

export const SUMMARY_MAX_CHARS = 280;

/** The first non-empty lines, joined and cut to SUMMARY_MAX_CHARS (… when cut). */
export function summaryOf(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  let out = '';
  for (const l of lines) {
    out = out ? `${out} ${l}` : l;
    if (out.length > SUMMARY_MAX_CHARS) break;
  }
  return out.length > SUMMARY_MAX_CHARS ? `${out.slice(0, SUMMARY_MAX_CHARS - 1).trimEnd()}…` : out;
}
