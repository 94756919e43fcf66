/**
 * The manifest left in place of a routed payload (docs/design/routing.md), exactly:
 *
 *   [tool routed] NAME -> DEST (total N chars)
 *   [input routed] 3 files -> variable:foo (total 12,340 chars)
 *   paths: notes/2026-01-01, notes/2026-01-02, notes/2026-01-03
 *
 * N has thousands separators. An input counts its items with the noun of its source:
 * `file:` files, `variable:` buffers, `url:` urls, anything else items ("1 file",
 * "2 buffers"). The `paths:` line is there when paths are known; it names at most
 * MANIFEST_MAX_PATHS of them and counts the rest.
 */
import type { Manifest, WriteMode } from '../../../shared/model/routing';
import { MANIFEST_MAX_PATHS } from './limits';

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

const NOUNS: Record<string, string> = { file: 'file', variable: 'buffer', url: 'url' };

/** The noun for the items of an input written `scheme:value`. */
export function inputNoun(name: string): string {
  const colon = name.indexOf(':');
  return (colon > 0 && NOUNS[name.slice(0, colon).toLowerCase()]) || 'item';
}

export function pathsLine(paths: readonly string[]): string {
  const shown = paths.slice(0, MANIFEST_MAX_PATHS).join(', ');
  const more = paths.length - MANIFEST_MAX_PATHS;
  return `paths: ${shown}${more > 0 ? `, and ${formatCount(more)} more` : ''}`;
}

export interface ManifestParts {
  kind: 'tool' | 'input';
  name: string;
  destination: string;
  target: Manifest['target'];
  writeMode: WriteMode;
  count: number;
  totalChars: number;
  paths: string[];
}

export function manifestText(m: Omit<ManifestParts, 'target' | 'writeMode'>): string {
  const total = `(total ${formatCount(m.totalChars)} chars)`;
  let head: string;
  if (m.kind === 'tool') head = `[tool routed] ${m.name} -> ${m.destination} ${total}`;
  else {
    const noun = inputNoun(m.name);
    head = `[input routed] ${formatCount(m.count)} ${noun}${m.count === 1 ? '' : 's'} -> ${m.destination} ${total}`;
  }
  return m.paths.length > 0 ? `${head}\n${pathsLine(m.paths)}` : head;
}

export function buildManifest(parts: ManifestParts): Manifest {
  return { ...parts, text: manifestText(parts) };
}
