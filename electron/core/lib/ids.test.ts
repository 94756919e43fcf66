import { parse, validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { fastUuidv7 } from './ids';

describe('fastUuidv7', () => {
  it('makes valid, unique version-7 ids that sort by their time', () => {
    const ids = Array.from({ length: 5000 }, () => fastUuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    const a = fastUuidv7(Date.UTC(2026, 0, 1));
    const b = fastUuidv7(Date.UTC(2026, 0, 2));
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe(fastUuidv7(Date.UTC(2026, 0, 1)).slice(0, 13));
  });

  it('holds the time in its first 48 bits and the RFC 9562 variant', () => {
    const ms = Date.UTC(2026, 10, 24, 22, 40, 1, 234);
    const bytes = parse(fastUuidv7(ms));
    const stamp = bytes.slice(0, 6).reduce((n, b) => n * 256 + b, 0);
    expect(stamp).toBe(ms);
    expect(bytes[8]! >> 6).toBe(0b10);
    expect(fastUuidv7(0)).toMatch(/^00000000-0000-7/);
  });

  it('spreads its random bits: every hex digit outside the fixed ones varies', () => {
    const ids = Array.from({ length: 2000 }, () => fastUuidv7(1_700_000_000_000));
    const fixed = new Set([8, 13, 14, 18, 23]); // dashes, the version digit
    for (let i = 15; i < 36; i++) {
      if (fixed.has(i)) continue;
      const seen = new Set(ids.map((id) => id[i]));
      expect(seen.size, `position ${i}`).toBeGreaterThan(i === 19 ? 3 : 12);
    }
  });
});
