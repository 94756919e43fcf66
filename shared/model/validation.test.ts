import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counted } from '../testing/counted-reads';
import { AppError } from '../errors';
import { BundlePutBodySchema, EnabledPatchBodySchema } from './bundle';
import { isToolUsable, ToolPutBodySchema, ToolSchema } from './tool';
import {
  argSchemaViolation,
  checkSlug,
  checkUuidV7,
  checkVersion,
  jsonViolation,
  labelViolation,
  LABEL_MAX_RUNES,
  nfc,
  sameLabel,
  schemaViolation,
  SCHEMA_LIMITS,
  toolKey,
} from './validation';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('slug rule', () => {
  it.each(['readfile', 'Read', 'a-b', '-', 'über', '読む', 'файл', 'مرحبا', '١٢٣', 'x'.repeat(64), '𝐀'.repeat(64)])('accepts %s', (s) => {
    expect(labelViolation('slug', s)).toBeNull();
  });

  it.each([
    ['read_file', 'charset'],
    ['read file', 'charset'],
    ['a/b', 'charset'],
    ['a\\b', 'charset'],
    ['a.b', 'charset'],
    ['tab\there', 'charset'],
    ['nul\u0000', 'charset'],
    ['nbsp\u00a0', 'charset'],
    ['zero\u200bwidth', 'charset'],
    ['x²', 'charset'],
    ['Ⅻ', 'charset'],
    ['$x', 'charset'],
    ['smile😀', 'charset'],
    ['', 'required'],
    ['x'.repeat(65), 'max-length'],
    ['𝐀'.repeat(65), 'max-length'],
  ])('refuses %j (%s)', (s, rule) => {
    expect(labelViolation('slug', s)?.rule).toBe(rule);
  });

  it('refuses non-strings', () => {
    expect(labelViolation('slug', 42)?.rule).toBe('type');
    expect(labelViolation('slug', null)?.message).toBe('slug must be a string: got null');
  });

  it('says what is wrong in words a person can act on', () => {
    const e = thrown(() => checkSlug('read_file'));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toBe("slug may contain letters, digits and '-' only: got 'read_file' ('_' (U+005F) at position 5 is not allowed)");
    expect(e.details).toEqual({ field: 'slug', rule: 'charset' });
    expect(thrown(() => checkSlug('x'.repeat(70))).message).toMatch(/^slug may be at most 64 characters: got 70 in 'x{70}'$/);
    // An invisible character is named by its code point, never printed raw.
    expect(thrown(() => checkSlug('a\u0007b')).message).toContain("'a\\u{7}b' (U+0007 at position 2");
  });

  it('counts runes, not UTF-16 units', () => {
    expect('𝐀'.repeat(LABEL_MAX_RUNES).length).toBe(128);
    expect(labelViolation('slug', '𝐀'.repeat(LABEL_MAX_RUNES))).toBeNull();
  });

  it('composes accents before checking and stores NFC', () => {
    const decomposed = 'cafe\u0301';
    expect(checkSlug(decomposed)).toBe('caf\u00e9');
    expect(sameLabel(decomposed, 'caf\u00e9')).toBe(true);
    // A mark with no precomposed form stays a mark, which the slug rule does not allow.
    expect(labelViolation('slug', 'हिन्दी')?.rule).toBe('charset');
  });

  it('is case-sensitive', () => {
    expect(sameLabel('Read', 'read')).toBe(false);
    expect(toolKey('Read', '1')).not.toBe(toolKey('read', '1'));
  });
});

describe('version rule', () => {
  it.each(['1', '1.0.0', 'v2-beta.1', '2024.01', '.1', 'β'])('accepts %s', (v) => {
    expect(labelViolation('version', v)).toBeNull();
  });

  it.each([
    ['1_0', 'charset'],
    ['1 0', 'charset'],
    ['1/0', 'charset'],
    ['1+build', 'charset'],
    ['.', 'dots-only'],
    ['..', 'dots-only'],
    ['', 'required'],
  ])('refuses %j (%s)', (v, rule) => {
    expect(labelViolation('version', v)?.rule).toBe(rule);
  });

  it('names the version and the dot in its message', () => {
    expect(thrown(() => checkVersion('1_0')).message).toBe("version may contain letters, digits, '-' and '.' only: got '1_0' ('_' (U+005F) at position 2 is not allowed)");
  });
});

describe('slug and version properties', () => {
  const isAllowed = (kind: 'slug' | 'version') => (r: string) => (kind === 'slug' ? /^[\p{L}\p{Nd}-]$/u : /^[\p{L}\p{Nd}.-]$/u).test(r);
  const codePoint = fc.integer({ min: 0x20, max: 0x2ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => String.fromCodePoint(cp));
  /** A rune that is allowed and stays allowed under NFC (some letters decompose into letter + mark). */
  const allowedRune = (kind: 'slug' | 'version') =>
    fc.oneof(
      fc.constantFrom(...'abcXYZ019-'.split('')),
      codePoint.filter((r) => isAllowed(kind)(r) && [...nfc(r)].every(isAllowed(kind))),
    );
  const validLabel = (kind: 'slug' | 'version') =>
    fc
      .array(allowedRune(kind), { minLength: 1, maxLength: LABEL_MAX_RUNES })
      .map((rs) => rs.join(''))
      .filter((s) => runes(nfc(s)) <= LABEL_MAX_RUNES && !/^\.+$/.test(s));
  const runes = (s: string) => [...s].length;
  /** A rune that is forbidden in both, and that NFC cannot turn into an allowed one. */
  const forbiddenRune = fc.oneof(
    fc.constantFrom('_', ' ', '\t', '\n', '/', '\\', '\u0000', '\u007f', '\u00a0', '\u200b', '\u2028', '$', '+', '€', '😀', '²', 'Ⅻ', '@', ':'),
    codePoint.filter((r) => !/[\p{L}\p{Nd}\p{M}.-]/u.test(r) && [...nfc(r)].some((x) => !isAllowed('version')(x))),
  );

  it('accepts every label made of allowed runes', () => {
    fc.assert(fc.property(validLabel('slug'), (s) => labelViolation('slug', s) === null));
    fc.assert(fc.property(validLabel('version'), (s) => labelViolation('version', s) === null));
  });

  it('refuses every label containing a forbidden rune', () => {
    fc.assert(
      fc.property(validLabel('slug'), forbiddenRune, fc.nat(), (s, bad, at) => {
        const rs = [...s];
        rs.splice(at % (rs.length + 1), 0, bad);
        const withBad = rs.join('');
        return labelViolation('slug', withBad) !== null && labelViolation('version', withBad) !== null;
      }),
    );
  });

  it('treats NFC-equivalent labels as the same label and stores the NFC form', () => {
    fc.assert(
      fc.property(validLabel('slug'), (s) => {
        const d = s.normalize('NFD');
        return sameLabel(d, s) && toolKey(d, '1') === toolKey(s, '1') && checkSlug(d) === nfc(s);
      }),
    );
  });

  it('never treats two labels differing in case as the same', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-z]{1,20}$/), (s) => !sameLabel(s, s.toUpperCase())));
  });
});

describe('ids', () => {
  it('accepts lowercase UUIDv7 only', () => {
    expect(checkUuidV7('0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35', 'id')).toBe('0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35');
    for (const bad of ['0190C2A4-7B1E-7C3D-9A4F-2B6E8D0C1F35', '0190c2a4-7b1e-4c3d-9a4f-2b6e8d0c1f35', '../../etc', '', 7]) {
      expect(thrown(() => checkUuidV7(bad, 'bundleId')).details).toEqual({ field: 'bundleId', rule: 'uuid-v7' });
    }
  });
});

describe('JSON limits', () => {
  it('refuses a 1 MB schema by its size', () => {
    const big = { type: 'object', description: 'x'.repeat(1024 * 1024) };
    expect(schemaViolation(big, 'outputSchema')?.rule).toBe('max-size');
  });

  it('refuses a 10,000-deep schema without recursion', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let k = 0; k < 10_000; k++) deep = { type: 'object', properties: { a: deep } };
    const c = counted(deep);
    expect(argSchemaViolation(c.value)).toMatchObject({ rule: 'max-depth', field: 'argSchema' });
    // It stops at the depth limit: a few reads per level for 64 levels, not 10,000.
    expect(c.reads.n).toBeLessThan(1000);
  });

  it('refuses object cycles and exponential sharing fast', () => {
    const cyc: Record<string, unknown> = { type: 'object' };
    cyc.properties = { self: cyc };
    expect(schemaViolation(cyc, 'outputSchema')?.rule).toBe('max-depth');
    let dag: Record<string, unknown> = { type: 'string' };
    for (let k = 0; k < 60; k++) dag = { anyOf: [dag, dag] };
    const c = counted(dag);
    expect(schemaViolation(c.value, 'outputSchema')?.rule).toMatch(/max-(nodes|size|depth)/);
    // It stops at the node limit (2,000) instead of walking 2^60 paths.
    expect(c.reads.n).toBeLessThan(20_000);
  });

  it('refuses too many subschemas', () => {
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: SCHEMA_LIMITS.maxNodes + 1 }, (_, k) => [`p${k}`, {}])) };
    expect(schemaViolation(wide, 'outputSchema')?.rule).toBe('max-nodes');
  });

  it('refuses what JSON cannot carry', () => {
    expect(jsonViolation({ a: undefined }, 'http', SCHEMA_LIMITS)?.rule).toBe('not-json');
    expect(jsonViolation({ a: Number.NaN }, 'http', SCHEMA_LIMITS)?.message).toBe('http.a must be a finite number');
    expect(jsonViolation({ a: new Date() }, 'http', SCHEMA_LIMITS)?.rule).toBe('not-json');
    expect(jsonViolation({ a: () => 1 }, 'http', SCHEMA_LIMITS)?.rule).toBe('not-json');
  });

  it('asks the argument schema to describe an object', () => {
    expect(argSchemaViolation({ type: 'object', properties: {} })).toBeNull();
    expect(argSchemaViolation({ type: 'string' })?.rule).toBe('root-type');
    expect(argSchemaViolation([])?.rule).toBe('type');
    expect(schemaViolation({}, 'outputSchema')).toBeNull();
  });
});

describe('body schemas', () => {
  const localBody = {
    displayName: 'Read a file',
    description: 'Reads a text file.',
    tags: ['files'],
    type: 'local',
    argSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputSchema: { type: 'string' },
    local: { functionId: 'files.read' },
    isEnabled: true,
  };

  it('accepts a local and an http tool body', () => {
    expect(ToolPutBodySchema.safeParse(localBody).success).toBe(true);
    const http = { ...localBody, type: 'http', local: undefined, http: { method: 'GET', urlTemplate: 'https://api.example.com/${q}', headers: { Accept: 'application/json' } } };
    const parsed = ToolPutBodySchema.parse(http);
    expect(parsed.http?.headers).toEqual({ Accept: 'application/json' });
  });

  it('refuses unknown fields, a mismatched back-end and a non-http URL', () => {
    expect(ToolPutBodySchema.safeParse({ ...localBody, slug: 'x' }).error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(ToolPutBodySchema.safeParse({ ...localBody, local: undefined }).error?.issues[0]?.message).toMatch(/needs local/);
    expect(ToolPutBodySchema.safeParse({ ...localBody, type: 'go' }).success).toBe(false);
    const ftp = ToolPutBodySchema.safeParse({ ...localBody, type: 'http', local: undefined, http: { method: 'GET', urlTemplate: 'ftp://x' } });
    expect(ftp.error?.issues[0]?.message).toBe('urlTemplate must start with http:// or https://');
    expect(BundlePutBodySchema.safeParse({ slug: 'a', displayName: 'A', isEnabled: true, description: '', extra: 1 }).success).toBe(false);
    expect(EnabledPatchBodySchema.safeParse({ isEnabled: true, slug: 'x' }).success).toBe(false);
  });

  it('refuses bad tags and blank names', () => {
    expect(ToolPutBodySchema.safeParse({ ...localBody, tags: ['a_b'] }).success).toBe(false);
    expect(ToolPutBodySchema.safeParse({ ...localBody, tags: ['a', 'a'] }).success).toBe(false);
    expect(ToolPutBodySchema.safeParse({ ...localBody, displayName: '   ' }).success).toBe(false);
  });

  it('describes a stored tool and its effective state', () => {
    const tool = ToolSchema.parse({
      ...localBody,
      id: '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35',
      bundleId: '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f36',
      slug: 'readfile',
      version: '1',
      isBuiltIn: false,
      createdAt: '2025-01-01T00:00:00.000Z',
      modifiedAt: '2025-01-01T00:00:00.000Z',
    });
    const bundle = { id: tool.bundleId, isEnabled: true, softDeletedAt: undefined };
    expect(isToolUsable(tool, bundle)).toBe(true);
    expect(isToolUsable(tool, { ...bundle, isEnabled: false })).toBe(false);
    expect(isToolUsable(tool, { ...bundle, softDeletedAt: '2025-01-02T00:00:00.000Z' })).toBe(false);
    expect(isToolUsable({ ...tool, isEnabled: false }, bundle)).toBe(false);
    expect(isToolUsable(tool, undefined)).toBe(false);
  });
});

