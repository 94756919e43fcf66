/**
 * What the case entries of a bundle archive share (zip-testcases.ts, zip-evals.ts): the entry is
 * `{"cases": [...]}` and nothing else, with at most so many cases; a refused case is named by
 * its place and, when it has one, its name.
 */
import { quote } from '../../../shared/model/validation';

/** The list of a parsed entry, or why the whole entry is refused; `noun` names its cases ('test cases'), `per` what they belong to ('a tool'). */
export function entryCases(doc: unknown, noun: string, max: number, per: string): unknown[] | string {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'must be a JSON object {"cases": [...]}';
  const extra = Object.keys(doc).filter((k) => k !== 'cases');
  if (extra.length) return `unknown field ${quote(extra[0]!)}: the entry has only "cases"`;
  const list = (doc as { cases?: unknown }).cases;
  if (!Array.isArray(list)) return `"cases" must be an array of ${noun}`;
  if (list.length > max) return `has ${list.length} ${noun}; ${per} may have at most ${max}`;
  return list;
}

/** ` 'its name'` of a case that has a name, else nothing: for the message refusing it. */
export function caseName(value: unknown): string {
  return value && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string' ? ` ${quote((value as { name: string }).name)}` : '';
}
