import { z } from 'zod';

/** A boolean that also accepts the query-string spellings "true" and "false". */
export const QueryBool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** A page size from JSON or a query string: a whole number from 1 to 100. */
export const PageSize = z
  .union([z.number(), z.string().regex(/^\d{1,6}$/, 'a whole number').transform(Number)])
  .pipe(z.number().int().min(1, 'at least 1').max(100, 'at most 100'));

export const PageToken = z.string().max(512);

export const RECOMMENDED_PAGE_SIZE = 20;
