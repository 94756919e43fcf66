/**
 * Inspect → Documents as typed: the filters (tags, type, creator, words) as a
 * `documents.list` query, the choices the filters offer (from the documents there are), the
 * tags box as a list and back, and what `documents.describe` gets from the details form.
 */
import type { DocumentInfo, DocumentQuery } from '../../../shared/model/document';

export interface DocumentFilters {
  /** Comma-separated, as typed. */
  tags: string;
  /** '' (any), a type (`text/csv`) or a family ending in '/' (`text/`). */
  mimeType: string;
  /** '' (anyone) or a creator as the documents name it. */
  createdBy: string;
  words: string;
}

/** Documents asked for at once; the list says when there may be more. */
export const DOCUMENT_LIST_LIMIT = 500;

export const emptyFilters = (): DocumentFilters => ({ tags: '', mimeType: '', createdBy: '', words: '' });

/** `a, b,,a ,c` → ['a', 'b', 'c']: trimmed, no empties, each once, in the order typed. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))];
}

export const tagsText = (tags: readonly string[]): string => tags.join(', ');

export function queryOf(f: DocumentFilters): DocumentQuery {
  const tags = parseTags(f.tags).slice(0, 20);
  const words = f.words.trim();
  return {
    ...(tags.length ? { tags } : {}),
    ...(f.mimeType ? { mimeType: f.mimeType } : {}),
    ...(f.createdBy ? { createdBy: f.createdBy } : {}),
    ...(words ? { text: words } : {}),
    limit: DOCUMENT_LIST_LIMIT,
  };
}

export const hasFilters = (f: DocumentFilters): boolean => parseTags(f.tags).length > 0 || !!f.mimeType || !!f.createdBy || f.words.trim() !== '';

export interface FilterChoices {
  /** Each family (`text/`) with more than one type in it, then each type. */
  mimeTypes: { value: string; family: boolean; count: number }[];
  creators: { value: string; count: number }[];
  tags: { value: string; count: number }[];
}

const counted = (values: string[]) => {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([value, count]) => ({ value, count }));
};

/** What the filters can offer, from the documents there are; a value chosen before stays offered. */
export function filterChoices(docs: readonly DocumentInfo[], current: DocumentFilters = emptyFilters()): FilterChoices {
  const types = counted(docs.map((d) => d.mimeType));
  const families = counted(docs.map((d) => d.mimeType.split('/')[0] + '/')).filter((fam) => types.filter((t) => t.value.startsWith(fam.value)).length > 1);
  const mimeTypes = [...families.map((x) => ({ ...x, family: true })), ...types.map((x) => ({ ...x, family: false }))];
  if (current.mimeType && !mimeTypes.some((m) => m.value === current.mimeType)) mimeTypes.push({ value: current.mimeType, family: current.mimeType.endsWith('/'), count: 0 });
  const creators = counted(docs.map((d) => d.createdBy));
  if (current.createdBy && !creators.some((c) => c.value === current.createdBy)) creators.push({ value: current.createdBy, count: 0 });
  return { mimeTypes, creators, tags: counted(docs.flatMap((d) => d.tags)) };
}

/** Adds a tag to the tags box (a click on a tag), unless it is there already. */
export function withTag(text: string, tag: string): string {
  const tags = parseTags(text);
  return tags.includes(tag) ? tagsText(tags) : tagsText([...tags, tag]);
}

/** A version's hash as shown: its first 10 hex digits. */
export const shortHash = (hash: string): string => hash.replace(/^sha256:/, '').slice(0, 10);

export interface DescribeDraft {
  description: string;
  tags: string;
}

export const describeDraftOf = (d: DocumentInfo): DescribeDraft => ({ description: d.description, tags: tagsText(d.tags) });

/** The fields of `documents.describe` that changed (none: nothing to save). */
export function describePatch(d: DocumentInfo, draft: DescribeDraft): { description?: string; tags?: string[] } {
  const out: { description?: string; tags?: string[] } = {};
  const description = draft.description.trim();
  if (description !== d.description) out.description = description;
  const tags = parseTags(draft.tags);
  if (JSON.stringify(tags) !== JSON.stringify(d.tags)) out.tags = tags;
  return out;
}

/** Problems with the tags box before saving (the core's limits: 50 tags, 100 characters each). */
export function tagsProblem(text: string, tooMany: (n: number) => string, tooLong: (tag: string) => string): string | undefined {
  const tags = parseTags(text);
  if (tags.length > 50) return tooMany(tags.length);
  const long = tags.find((t) => t.length > 100);
  return long ? tooLong(long) : undefined;
}

/** Who made or changed a document, as a person reads it: "you", a conversation by its title, else as stored (a task). */
export function creatorLabel(who: string, titles: ReadonlyMap<string, string>, words: { user: string; conversation: (title: string) => string }): string {
  if (who === 'user') return words.user;
  const title = titles.get(who);
  return title !== undefined ? words.conversation(title) : who;
}
