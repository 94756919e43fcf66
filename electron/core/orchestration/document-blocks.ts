/**
 * Documents passed with a delegation, a question or a handoff, as the receiving model sees
 * them: each file's text in a `<document>` block while it fits the receiver's budget; one that
 * does not fit is stored behind a handle (docs/design/tool-outputs.md) and the block carries the
 * handle message instead, never a cut text. Paths never leave the workspace.
 */
import fsp from 'node:fs/promises';
import { resolveInWorkspace } from '../lib/workspace';
import { mimeTypeOf, utf8Text } from '../documents/text-facts';

/** A document larger than this is not read at all. */
export const PASS_MAX_BYTES = 64 * 1024 * 1024;

export interface DocumentBlocksDeps {
  workspaceDir: string;
  countTokens: (text: string) => number;
  /** Stores an oversized document's text behind a handle for the receiver; answers the message the model gets. */
  storeOversized: (text: string, path: string) => Promise<string>;
}

export interface PassedDocument {
  path: string;
  how: 'inline' | 'handle' | 'binary' | 'missing' | 'refused';
  tokens?: number;
  bytes?: number;
  why?: string;
}

export interface DocumentBlocks {
  /** The blocks, one per document, in the order given; '' for none. */
  text: string;
  documents: PassedDocument[];
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export async function documentBlocks(paths: readonly string[], budgetTokens: number, deps: DocumentBlocksDeps): Promise<DocumentBlocks> {
  let left = Math.max(0, budgetTokens);
  const blocks: string[] = [];
  const documents: PassedDocument[] = [];
  for (const given of paths) {
    let p;
    try {
      p = await resolveInWorkspace(deps.workspaceDir, given);
    } catch (e) {
      const why = (e as Error).message;
      documents.push({ path: given, how: 'refused', why });
      blocks.push(`<document path="${attr(given)}" error="${attr(why)}"/>`);
      continue;
    }
    const st = await fsp.stat(p.abs).catch(() => undefined);
    if (!st?.isFile()) {
      const why = 'not found in the workspace';
      documents.push({ path: p.rel, how: 'missing', why });
      blocks.push(`<document path="${attr(p.rel)}" error="${why}"/>`);
      continue;
    }
    if (st.size > PASS_MAX_BYTES) {
      const why = `too large to pass (${st.size} bytes; the limit is ${PASS_MAX_BYTES}); read it with the file tools`;
      documents.push({ path: p.rel, how: 'refused', bytes: st.size, why });
      blocks.push(`<document path="${attr(p.rel)}" bytes="${st.size}" error="${attr(why)}"/>`);
      continue;
    }
    const bytes = await fsp.readFile(p.abs);
    const text = utf8Text(bytes);
    if (text === undefined) {
      const type = mimeTypeOf(p.rel, false);
      documents.push({ path: p.rel, how: 'binary', bytes: bytes.length });
      blocks.push(`<document path="${attr(p.rel)}" type="${type}" bytes="${bytes.length}" note="binary: not loaded as text"/>`);
      continue;
    }
    const type = mimeTypeOf(p.rel, true);
    const tokens = deps.countTokens(text);
    if (tokens <= left) {
      left -= tokens;
      documents.push({ path: p.rel, how: 'inline', tokens, bytes: bytes.length });
      blocks.push(`<document path="${attr(p.rel)}" type="${type}" tokens="${tokens}">\n${text}\n</document>`);
      continue;
    }
    const message = await deps.storeOversized(text, p.rel);
    documents.push({ path: p.rel, how: 'handle', tokens, bytes: bytes.length });
    blocks.push(`<document path="${attr(p.rel)}" type="${type}" tokens="${tokens}" stored="handle">\n${message}\n</document>`);
  }
  return { text: blocks.join('\n\n'), documents };
}
