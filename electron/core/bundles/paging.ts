/**
 * Pages of the registry's lists. Items are listed in id order (UUIDv7: creation order),
 * and the token is a keyset cursor, base64url of `{v, f, after}`: the last id returned
 * and a hash of the filter. A cursor survives inserts and deletes between pages (nothing
 * is skipped or repeated); a token from another filter, or one that does not decode, is
 * VALIDATION_FAILED.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import { REGISTRY_DEFAULT_PAGE_SIZE, REGISTRY_MAX_PAGE_SIZE, type Page } from '../../../shared/model/bundle';
import { UUID_V7_PATTERN } from '../../../shared/model/validation';

const TOKEN_VERSION = 1;

function invalidToken(why: string): AppError {
  return new AppError('VALIDATION_FAILED', `pageToken is not valid: ${why}; start again without a pageToken`, {
    field: 'pageToken',
    rule: 'format',
  });
}

/** A short, stable hash of the filter a token belongs to. */
export function filterHash(filter: unknown): string {
  return createHash('sha256').update(JSON.stringify(filter)).digest('base64url').slice(0, 12);
}

export function encodePageToken(afterId: string, filter: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, f: filter, after: afterId }), 'utf8').toString('base64url');
}

export function decodePageToken(token: string, filter: string): string {
  if (token.length === 0 || token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken('not base64url');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('it does not decode');
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (b.v !== TOKEN_VERSION || typeof b.after !== 'string' || !UUID_V7_PATTERN.test(b.after)) throw invalidToken('it does not decode');
  if (b.f !== filter) throw invalidToken('it belongs to a list with other filters');
  return b.after;
}

export function checkPageSize(pageSize: unknown): number {
  if (pageSize === undefined) return REGISTRY_DEFAULT_PAGE_SIZE;
  if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > REGISTRY_MAX_PAGE_SIZE) {
    throw new AppError('VALIDATION_FAILED', `pageSize must be a whole number from 1 to ${REGISTRY_MAX_PAGE_SIZE}: got ${String(pageSize)}`, {
      field: 'pageSize',
      rule: 'range',
    });
  }
  return pageSize;
}

/** One page of `items` (already filtered), in id order. */
export function pageOf<T extends { id: string }>(items: T[], opts: { pageSize?: number; pageToken?: string; filter: unknown }): Page<T> {
  const size = checkPageSize(opts.pageSize);
  const hash = filterHash(opts.filter);
  const after = opts.pageToken === undefined ? undefined : decodePageToken(opts.pageToken, hash);
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((x) => x.id > after);
  const from = start < 0 ? sorted.length : start;
  const page = sorted.slice(from, from + size);
  const more = from + size < sorted.length;
  return more ? { items: page, nextPageToken: encodePageToken(page[page.length - 1]!.id, hash) } : { items: page };
}
