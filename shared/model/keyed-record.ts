import { z } from 'zod';

/**
 * A record whose keys the user or a file chooses (query parameters, headers, environment
 * variables). zod's own record silently drops a `__proto__` key; this one refuses it by name,
 * so what was written is never changed without a word.
 */
export function keyedRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(key: K, value: V) {
  return z.preprocess((input, ctx) => {
    if (input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, '__proto__')) {
      ctx.addIssue({ code: 'custom', message: "'__proto__' cannot be used as a key", path: ['__proto__'], input });
    }
    return input;
  }, z.record(key, value));
}
