/**
 * A bundle's eval cases inside its ZIP (zip.ts): one entry,
 *
 *   evals.json   {"cases":[{name, prompt, context, expect, answer, scope, results, otherCalls, approvals, timeoutMs?}, ...]}
 *
 * in the order they were saved. No ids and no times travel: an import gives each case a new id
 * and the time of the import. A case names tools by slug (its own bundle's, whatever the bundle
 * is called after the import) or by bundle/slug (another bundle's, left as written).
 *
 * On import the entry is untrusted input: at most MAX_EVALS_ENTRY_BYTES declared (refused from
 * the header, not inflated), JSON `{"cases": [...]}` with at most MAX_EVAL_CASES cases, each
 * checked as 'evals.save' checks one. A case that expects, or answers for, a tool of its own
 * bundle that the archive does not bring is refused: it could never run. A bad entry, or a bad
 * case, is reported in the import's `invalid` list and skipped; the rest is imported.
 */
import { MAX_EVAL_CASES, type EvalCase, type EvalCaseBody } from '../../../shared/model/evals';
import { nfc, quote } from '../../../shared/model/validation';
import { checkImportedEvalCase } from '../evals/eval-case-check';
import { caseName, entryCases } from './zip-case-entry';

export const EVALS_ENTRY = 'evals.json';
/** Largest eval-case entry (uncompressed): an export refuses past it, an import skips the entry. */
export const MAX_EVALS_ENTRY_BYTES = 16 * 1024 * 1024;

/** The entry's text: what a person chose, no ids, no times. */
export function evalsEntryText(cases: readonly EvalCase[]): string {
  return `${JSON.stringify({ cases: cases.map(({ id: _id, createdAt: _c, updatedAt: _u, ...body }) => body) }, null, 2)}\n`;
}

export interface CheckedEvalCases {
  cases: EvalCaseBody[];
  /** One message per case that was refused (the others are kept). */
  refused: string[];
}

/** Checks a parsed entry against the tool slugs the archive brings: the cases to import, or why the whole entry is refused. */
export function checkEvalsDoc(doc: unknown, toolSlugs: ReadonlySet<string>): CheckedEvalCases | string {
  const list = entryCases(doc, 'eval cases', MAX_EVAL_CASES, 'a bundle');
  if (typeof list === 'string') return list;
  const out: CheckedEvalCases = { cases: [], refused: [] };
  list.forEach((value, i) => {
    const name = caseName(value);
    const checked = checkImportedEvalCase(value);
    if (!checked.ok) {
      out.refused.push(`eval case ${i + 1}${name}: ${checked.message}; this case was skipped`);
      return;
    }
    const missing = ownTools(checked.value).filter((slug) => !toolSlugs.has(slug));
    if (missing.length) {
      out.refused.push(`eval case ${i + 1}${name}: it names ${missing.map(quote).join(', ')}, which this archive does not bring; this case was skipped`);
      return;
    }
    out.cases.push(checked.value);
  });
  return out;
}

/** The slugs of its own bundle a case names (expected tools and canned results). */
function ownTools(c: EvalCaseBody): string[] {
  const refs = [...(c.expect.kind === 'tools' ? c.expect.tools.map((t) => t.tool) : []), ...c.results.map((r) => r.tool)];
  return [...new Set(refs.filter((r) => !r.includes('/')).map(nfc))];
}
