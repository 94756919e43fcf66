/** Settings → Memory sources: the form's text fields to a source's settings, and back. */
import { MEMORY_PERMISSIONS, type MemoryPermission } from '../../../shared/model/memory';
import type { FileRule, SourceConfig } from '../../../shared/model/memory-sources';

export interface SourceDraft {
  kind: 'files' | 'watch';
  id: string;
  folder: string;
  /** One rule per line: `glob Permission`. */
  rules: string;
  /** One glob per line. */
  include: string;
}

export const emptyDraft = (): SourceDraft => ({ kind: 'files', id: '', folder: '', rules: '** ReadOnly', include: '' });

export function toDraft(c: SourceConfig): SourceDraft {
  return c.kind === 'files'
    ? { kind: 'files', id: c.id, folder: c.folder, rules: c.rules.map((r) => `${r.pattern} ${r.permission}`).join('\n'), include: '' }
    : { kind: 'watch', id: c.id, folder: c.folder, rules: '', include: c.include.join('\n') };
}

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** `drafts/** ReadWrite` → a rule; the permission's case is forgiven. Undefined for a bad line. */
export function parseRule(line: string): FileRule | undefined {
  const m = /^(.+?)\s+(\S+)$/.exec(line.trim());
  if (!m) return undefined;
  const permission = MEMORY_PERMISSIONS.find((p) => p.toLowerCase() === m[2]!.toLowerCase());
  return permission ? { pattern: m[1]!, permission: permission as MemoryPermission } : undefined;
}

/** The draft as the settings `memory.sources.save` takes, or the first problem (line numbers from 1). */
export function fromDraft(d: SourceDraft): { ok: true; config: SourceConfig } | { ok: false; badLine?: { line: number; text: string }; noRules?: true } {
  const base = { id: d.id.trim(), folder: d.folder.trim() };
  if (d.kind === 'watch') {
    const include = lines(d.include);
    return { ok: true, config: { kind: 'watch', ...base, include: include.length ? include : ['**'], paused: false } };
  }
  const raw = d.rules.split('\n');
  const rules: FileRule[] = [];
  for (const [i, text] of raw.entries()) {
    if (!text.trim()) continue;
    const r = parseRule(text);
    if (!r) return { ok: false, badLine: { line: i + 1, text: text.trim() } };
    rules.push(r);
  }
  if (rules.length === 0) return { ok: false, noRules: true };
  return { ok: true, config: { kind: 'files', ...base, rules } };
}
