/**
 * A bundle's saved test cases inside its ZIP (zip.ts): one entry per tool slug that has cases,
 *
 *   testcases/<slug>.json   {"cases":[{"name","args","assertions"}, ...]}
 *
 * in the order they were saved. Like the tools, no ids and no times travel: an import gives
 * each case a new id and the time of the import. Only cases of a slug the bundle has a tool
 * for are exported (cases saved for a draft never saved as a tool stay behind).
 *
 * On import an entry is untrusted input, checked here before anything is written: its name
 * must follow the slug rule; it may declare at most MAX_TESTCASES_ENTRY_BYTES (refused from the
 * header, not inflated); it must be JSON `{"cases": [...]}` with at most MAX_TEST_CASES cases,
 * each checked as 'testcases.save' checks one (checkImportedCase). A bad entry, or a bad case
 * in a good entry, is reported in the import's `invalid` list and skipped; the rest is imported.
 */
import { nfc, labelViolation } from '../../../shared/model/validation';
import type { TestCase } from '../../../shared/model/testcase';
import { checkImportedCase, MAX_TEST_CASES, type TestCaseInput } from '../testcases/test-case-store';
import { caseName, entryCases } from './zip-case-entry';

export const TESTCASES_DIR = 'testcases/';
/** Largest test-case entry (one tool slug's cases, uncompressed): an export refuses past it, an import skips the entry. */
export const MAX_TESTCASES_ENTRY_BYTES = 8 * 1024 * 1024;

export function testCaseEntryName(slug: string): string {
  return `${TESTCASES_DIR}${nfc(slug)}.json`;
}

/** Whether an entry name is a test-case entry of the layout (its slug is checked later). */
export function isTestCaseEntryName(name: string): boolean {
  return name.startsWith(TESTCASES_DIR) && name.split('/').length === 2 && name.endsWith('.json') && name.length > TESTCASES_DIR.length + 5;
}

/** The entry's text for saved cases: what a person chose, no ids, no times. */
export function testCaseEntryText(cases: TestCase[]): string {
  return `${JSON.stringify({ cases: cases.map((c) => ({ name: c.name, args: c.args, assertions: c.assertions })) }, null, 2)}\n`;
}

/** The slug of `testcases/<slug>.json`, or why the name is refused. */
export function testCaseSlug(entry: string): { slug: string } | string {
  const slug = entry.slice(TESTCASES_DIR.length, -'.json'.length);
  const v = labelViolation('slug', slug);
  if (v) return `in the file name: ${v.message}`;
  return { slug: nfc(slug) };
}

export interface CheckedTestCases {
  cases: TestCaseInput[];
  /** One message per case that was refused (the others are kept). */
  refused: string[];
}

/** Checks a parsed test-case entry: the cases to import and the ones refused, or why the whole entry is refused. */
export function checkTestCaseDoc(doc: unknown): CheckedTestCases | string {
  const list = entryCases(doc, 'test cases', MAX_TEST_CASES, 'a tool');
  if (typeof list === 'string') return list;
  const out: CheckedTestCases = { cases: [], refused: [] };
  list.forEach((value, i) => {
    const checked = checkImportedCase(value);
    if (checked.ok) out.cases.push(checked.value);
    else out.refused.push(`case ${i + 1}${caseName(value)}: ${checked.message}; this case was skipped`);
  });
  return out;
}
