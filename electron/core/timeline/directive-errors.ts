/** Directive errors as a refusal (a message, a workflow) or as outcomes (a context section). */
import type { DirectiveError } from '../../../shared/directives/types';
import { AppError, isAppError } from '../../../shared/errors';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import { directiveErrorAt } from './strings';

/** `line 2, column 8: unknown parameter ...`, and how many more there are. */
export function describeDirectiveErrors(errors: readonly DirectiveError[]): string {
  const first = errors[0];
  if (!first) return 'directive error';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return directiveErrorAt(first.line, first.column, first.message) + more;
}

/** VALIDATION_FAILED with every error in details.errors. */
export function directiveRefusal(what: string, errors: readonly DirectiveError[]): AppError {
  return new AppError('VALIDATION_FAILED', `${what} has directive errors: ${describeDirectiveErrors(errors)}`, { errors });
}

/** The DirectiveError[] a runner's refusal carries, when it is one. */
export function refusalErrors(e: unknown): DirectiveError[] | undefined {
  if (!isAppError(e) || e.code !== 'VALIDATION_FAILED') return undefined;
  const errors = (e.details as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors as DirectiveError[]) : undefined;
}

/** Each error as an outcome naming the line it is on. */
export function errorOutcomes(text: string, errors: readonly DirectiveError[]): DirectiveOutcome[] {
  const lines = text.split('\n');
  return errors.map((e) => ({
    directive: (lines[e.line - 1] ?? '').replace(/\r$/, '').trim(),
    error: { code: 'VALIDATION_FAILED', message: directiveErrorAt(e.line, e.column, e.message) },
  }));
}
