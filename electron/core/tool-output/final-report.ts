/**
 * The extraction agents' final report: exactly one XML wrapper carrying the session's nonce,
 *
 *   <ai-agent-<NONCE>-FINAL format="text"> ... </ai-agent-<NONCE>-FINAL>
 *
 * parsed leniently (docs/design/tool-outputs.md, decision 6): the closing tag is optional (models
 * omit it), a leading `<think>…</think>` block is ignored, and a wrapper with another nonce is no
 * report.
 */
import { randomBytes } from 'node:crypto';

/** A nonce for one store session: 16 hex characters. */
export function newNonce(): string {
  return randomBytes(8).toString('hex');
}

export function openTag(nonce: string): string {
  return `<ai-agent-${nonce}-FINAL format="text">`;
}

export function closeTag(nonce: string): string {
  return `</ai-agent-${nonce}-FINAL>`;
}

/** Drops a leading reasoning block (`<think>…</think>`, also when unclosed at the very start and followed by nothing else). */
function stripLeadingThink(text: string): string {
  const t = text.replace(/^\s+/, '');
  if (!/^<think(ing)?>/i.test(t)) return text;
  const end = t.search(/<\/think(ing)?>/i);
  if (end < 0) return '';
  return t.slice(t.indexOf('>', end) + 1);
}

/**
 * The report's content, or undefined when the text holds no wrapper with this nonce. The
 * open tag's attributes may vary in spacing and quotes; the content is trimmed.
 */
export function parseFinalReport(text: string, nonce: string): string | undefined {
  const body = stripLeadingThink(text);
  const esc = nonce.replace(/[^0-9a-zA-Z]/g, (c) => `\\${c}`);
  const open = new RegExp(`<ai-agent-${esc}-FINAL(?:\\s+format\\s*=\\s*["']?text["']?)?\\s*>`, 'i');
  const m = open.exec(body);
  if (!m) return undefined;
  const rest = body.slice(m.index + m[0].length);
  const close = rest.search(new RegExp(`</ai-agent-${esc}-FINAL\\s*>`, 'i'));
  const content = close >= 0 ? rest.slice(0, close) : rest;
  return content.trim();
}

/** The report says nothing relevant was found (a success: docs/design/tool-outputs.md, decision 4). */
export function isNotFound(content: string): boolean {
  return /^NO RELEVANT DATA FOUND\b/.test(content.trim());
}
