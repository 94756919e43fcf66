/**
 * Destinations in the core: read from text (the `+` palette's output field, through the
 * same grammar as directives), checked before anything runs, and resolved to what is
 * written (placeholders expanded).
 */
import { parseDestination, workspacePathProblem } from '../../../shared/directives/parser';
import { AppError } from '../../../shared/errors';
import type { Destination } from '../../../shared/model/routing';
import { expandPlaceholders, unknownPlaceholderMessage, unknownPlaceholders } from './placeholders';

/**
 * A destination as written (`variable:results`, `file:out/{today}.md`, `discard`,
 * `inline`); absent or blank means inline. VALIDATION_FAILED with the parser's message.
 */
export function destinationFromText(text: string | undefined, field = 'output'): Destination {
  if (text === undefined || text.trim() === '') return { kind: 'inline' };
  const r = parseDestination(text);
  if (!r.ok) throw new AppError('VALIDATION_FAILED', `${field}: ${r.message}`, { field });
  const problem = destinationProblem(r.destination);
  if (problem) throw new AppError('VALIDATION_FAILED', `${field}: ${problem}`, { field });
  return r.destination;
}

/** What would make routing to `d` fail before any write (an unknown placeholder), or null. */
export function destinationProblem(d: Destination): string | null {
  if (d.kind !== 'file') return null;
  const unknown = unknownPlaceholders(d.path);
  return unknown.length > 0 ? unknownPlaceholderMessage(unknown[0]!) : null;
}

/** A file destination's path with its placeholders expanded; FORBIDDEN when it would leave the workspace. */
export function resolveFilePath(p: string, now: Date): string {
  const expanded = expandPlaceholders(p, now);
  const problem = workspacePathProblem(expanded);
  if (problem) throw new AppError('FORBIDDEN', problem, { path: expanded });
  return expanded;
}
