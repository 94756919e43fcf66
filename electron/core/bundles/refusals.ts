/**
 * The store's refusals, one place for their codes and words.
 *
 * - Built-ins are read-only except isEnabled: FORBIDDEN (no state of the request can make it pass).
 * - A PUT of an existing <slug, version>: CONFLICT, rule 'exists'.
 * - A PUT or PATCH inside a disabled or soft-deleted bundle: CONFLICT, rule 'bundle-disabled'
 *   or 'bundle-deleted'. CONFLICT rather than FORBIDDEN because it depends on the bundle's
 *   current state: enable (or restore) the bundle and the same request succeeds.
 */
import { AppError } from '../../../shared/errors';
import type { Bundle } from '../../../shared/model/bundle';
import { quote } from '../../../shared/model/validation';

function named(b: Pick<Bundle, 'id' | 'slug'>): string {
  return `bundle ${quote(b.slug)} (${b.id})`;
}

export function bundleNotFound(bundleId: string): AppError {
  return new AppError('NOT_FOUND', `bundle ${bundleId} does not exist`, { bundleId });
}

export function toolNotFound(bundleId: string, slug: string, version: string): AppError {
  return new AppError('NOT_FOUND', `tool ${quote(slug)} version ${quote(version)} does not exist in bundle ${bundleId}`, { bundleId, slug, version });
}

export function builtInReadOnly(b: Pick<Bundle, 'id' | 'slug'>, attempt: string): AppError {
  return new AppError('FORBIDDEN', `${named(b)} is built in: only isEnabled may change, so ${attempt} is not allowed`, {
    bundleId: b.id,
    rule: 'built-in',
  });
}

export function toolExists(bundleId: string, slug: string, version: string): AppError {
  return new AppError(
    'CONFLICT',
    `tool ${quote(slug)} version ${quote(version)} already exists in bundle ${bundleId}; a version cannot be replaced, PUT a new version instead`,
    { bundleId, slug, version, rule: 'exists' },
  );
}

/** Refuses changes inside a bundle that is disabled or soft-deleted. */
export function assertBundleActive(b: Bundle, attempt: string): void {
  if (b.softDeletedAt !== undefined) {
    throw new AppError('CONFLICT', `${named(b)} is deleted: PUT the bundle again to restore it before ${attempt}`, {
      bundleId: b.id,
      rule: 'bundle-deleted',
    });
  }
  if (!b.isEnabled) {
    throw new AppError('CONFLICT', `${named(b)} is disabled: enable it before ${attempt}`, { bundleId: b.id, rule: 'bundle-disabled' });
  }
}

export function storeClosed(): AppError {
  return new AppError('UNAVAILABLE', 'the tool store is not open');
}
