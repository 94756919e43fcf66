/**
 * An eval case checked as the file will hold it, before anything is written (a save, an
 * archive's case): its shape, and what could never run — a regular expression or JSONPath
 * that does not compile, a JSON Schema ajv refuses, a named scope without names, an error code
 * that is not one, two canned answers for one tool, a case past its size.
 */
import { AppError, ERROR_CODES } from '../../../shared/errors';
import { EvalCaseBodySchema, type EvalArgCheck, type EvalCaseBody } from '../../../shared/model/evals';
import { jsonViolation, quote, violationError, type RuleViolation } from '../../../shared/model/validation';
import { schemaCompileViolation } from '../bundles/schema-check';
import { assertionViolation } from '../testcases/run-tests';

/** One case, as JSON: its prompt, context, checks and canned answers together. */
export const EVAL_CASE_LIMITS = { maxBytes: 2 * 1024 * 1024, maxDepth: 64, maxNodes: 50_000 };

/** The case to save, or VALIDATION_FAILED naming the first thing wrong. */
export function checkEvalCase(input: unknown): EvalCaseBody {
  const shape = EvalCaseBodySchema.safeParse(input);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(case)';
    throw new AppError('VALIDATION_FAILED', `invalid eval case: ${field}: ${issue?.message ?? 'invalid'}`, { field });
  }
  const c = shape.data;
  const bad = caseViolation(c);
  if (bad) throw violationError(bad);
  const size = jsonViolation(c, 'evalCase', EVAL_CASE_LIMITS);
  if (size) throw violationError(size);
  return c;
}

/** The case as an archive carries it (no id, no times): the body to add, or why it is refused. */
export function checkImportedEvalCase(value: unknown): { ok: true; value: EvalCaseBody } | { ok: false; message: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'an eval case must be a JSON object' };
  try {
    return { ok: true, value: checkEvalCase(value) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

function caseViolation(c: EvalCaseBody): RuleViolation | null {
  if (c.scope.tools === 'named' && !c.scope.named?.length) {
    return { field: 'scope.named', rule: 'required', message: "a named scope needs the tools it offers: bundle/slug, or bundle/* for a whole bundle" };
  }
  if (c.scope.tools !== 'named' && c.scope.named?.length) {
    return { field: 'scope.named', rule: 'unused', message: `named tools are only read when scope.tools is 'named' (it is '${c.scope.tools}'): remove them or choose 'named'` };
  }
  if (c.expect.kind === 'tools') {
    const seen = new Set<string>();
    for (const [i, t] of c.expect.tools.entries()) {
      const key = t.tool.normalize('NFC');
      if (seen.has(key)) return { field: `expect.tools.${i}.tool`, rule: 'duplicate', message: `${quote(t.tool)} is expected twice: put all its argument checks under one entry` };
      seen.add(key);
      for (const [k, a] of t.args.entries()) {
        const v = argCheckViolation(a, `expect.tools.${i}.args.${k}`);
        if (v) return v;
      }
    }
  }
  for (const [i, a] of c.answer.entries()) {
    if (a.kind === 'regex') {
      const v = regexViolation(a.pattern, !!a.ignoreCase, `answer.${i}.pattern`);
      if (v) return v;
    }
    if (a.kind === 'judge' && !a.rubric.trim()) return { field: `answer.${i}.rubric`, rule: 'required', message: 'a judge check needs a rubric: what a good answer does' };
  }
  const canned = new Set<string>();
  for (const [i, r] of c.results.entries()) {
    const key = r.tool.normalize('NFC');
    if (canned.has(key)) return { field: `results.${i}.tool`, rule: 'duplicate', message: `${quote(r.tool)} has two canned results: keep one` };
    canned.add(key);
    if ('error' in r && !(ERROR_CODES as readonly string[]).includes(r.error.code)) {
      return { field: `results.${i}.error.code`, rule: 'error-code', message: `${quote(r.error.code)} is not an error code; use one of ${ERROR_CODES.join(', ')}` };
    }
    if ('value' in r && r.value === undefined) return { field: `results.${i}.value`, rule: 'required', message: 'a canned result needs a value (or an error)' };
  }
  return null;
}

function argCheckViolation(a: EvalArgCheck, field: string): RuleViolation | null {
  if (a.kind === 'jsonPathEquals') return assertionViolation({ kind: 'jsonPathEquals', path: a.path, value: a.value }, field);
  if (a.kind === 'schema' && a.schema !== undefined) return schemaCompileViolation(a.schema, `${field}.schema`);
  return null;
}

/** Why a pattern cannot be used (it does not compile), or null. */
export function regexViolation(pattern: string, ignoreCase: boolean, field: string): RuleViolation | null {
  try {
    new RegExp(pattern, ignoreCase ? 'ui' : 'u');
    return null;
  } catch (e) {
    return { field, rule: 'regex', message: `invalid regular expression ${quote(pattern)}: ${(e as Error).message}` };
  }
}
