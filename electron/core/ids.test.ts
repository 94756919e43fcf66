import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { uuidv7 } from './ids';

describe('uuidv7', () => {
  it('makes valid, unique version-7 UUIDs that sort by time', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(1_700_000_000_000 + i));
    for (const id of ids.slice(0, 200)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(uuidv7(0x0123456789ab).slice(0, 13)).toBe('01234567-89ab');
  });
});
