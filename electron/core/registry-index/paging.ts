/**
 * Page tokens: opaque to clients, base64url of a small JSON object holding the tier and
 * the keyset cursor (the last row returned) plus a hash of the query, so a token cannot
 * be replayed against another query. A token that does not decode, or does not belong to
 * the query, is a VALIDATION_FAILED error.
 */
import { AppError } from '../../../shared/errors';
import type { RankKey, Tier } from './ranking';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const RECOMMENDED_PAGE_SIZE = 20;
const TOKEN_VERSION = 1;
const MAX_TOKEN_LEN = 2048;

export interface PageCursor extends RankKey {
  tier: Tier;
}

const TIERS: readonly Tier[] = ['prefix', 'word', 'fuzzy', 'recent'];

/** FNV-1a over the folded query and the filter, as 8 hex digits. */
export function queryHash(folded: string, includeDisabled: boolean): string {
  let h = 0x811c9dc5;
  const s = (includeDisabled ? '1' : '0') + folded;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

export function encodePageToken(c: PageCursor, hash: string): string {
  const body = { v: TOKEN_VERSION, h: hash, t: c.tier, m: c.negMod, i: c.id };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function invalid(why: string): AppError {
  return new AppError('VALIDATION_FAILED', `invalid pageToken: ${why}`, { field: 'pageToken' });
}

export function decodePageToken(token: unknown, hash: string, allowedTiers: readonly Tier[]): PageCursor {
  if (typeof token !== 'string' || token.length === 0) throw invalid('not a non-empty string');
  if (token.length > MAX_TOKEN_LEN || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid('not base64url');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('does not decode');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('does not decode');
  const b = body as Record<string, unknown>;
  if (b.v !== TOKEN_VERSION) throw invalid('unknown version');
  if (typeof b.t !== 'string' || !TIERS.includes(b.t as Tier)) throw invalid('unknown tier');
  if (typeof b.m !== 'number' || !Number.isSafeInteger(b.m)) throw invalid('bad cursor');
  if (typeof b.i !== 'string' || b.i.length === 0) throw invalid('bad cursor');
  if (b.h !== hash) throw invalid('it belongs to another query');
  if (!allowedTiers.includes(b.t as Tier)) throw invalid('it belongs to another query');
  return { tier: b.t as Tier, negMod: b.m, id: b.i };
}

export function validatePageSize(pageSize: unknown): number {
  if (pageSize === undefined || pageSize === null) return DEFAULT_PAGE_SIZE;
  if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new AppError('VALIDATION_FAILED', `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`, {
      field: 'pageSize',
    });
  }
  return pageSize;
}
