import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { fastUuidv7 } from './ids';

describe('fastUuidv7', () => {
  it('makes valid, unique version-7 ids that sort by their time', () => {
    const ids = Array.from({ length: 5000 }, () => fastUuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    const a = fastUuidv7(Date.UTC(2026, 0, 1));
    const b = fastUuidv7(Date.UTC(2026, 0, 2));
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe(fastUuidv7(Date.UTC(2026, 0, 1)).slice(0, 13));
  });
});
