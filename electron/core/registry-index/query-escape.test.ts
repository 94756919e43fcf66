import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fts5Tokens, toFts5Query } from './query-escape';

const HOSTILE = ['"', "'", 'NEAR(', 'NEAR(a b, 2)', '*', '-', '- x', 'AND', 'OR', 'NOT', 'a AND', 'OR b', ':', 'col:x', '^', '^x', '(', ')', '()', '{', '}', '+', '\0', '\ud800', '😀', 'é', '\u200b', '\\', '%', '_', '"x"*', 'a OR NOT b'];

describe('FTS5 query escaping', () => {
  let db: Database.Database;
  beforeAll(() => {
    db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE fts USING fts5(slug, body)`);
    const ins = db.prepare(`INSERT INTO fts (slug, body) VALUES (?, ?)`);
    ins.run('readfile', 'near the and or not of a file');
    ins.run('café', 'colons: and carets ^ and quotes "');
    ins.run('emoji', '😀 smile');
  });
  afterAll(() => db.close());

  const match = (expr: string) => db.prepare(`SELECT slug FROM fts WHERE fts MATCH ? ORDER BY bm25(fts)`).pluck().all(expr);

  it('turns hostile text into plain tokens', () => {
    expect(toFts5Query('NEAR(')).toBe('"NEAR"');
    expect(toFts5Query('readf', { prefix: true })).toBe('"readf"*');
    expect(toFts5Query('a OR b', { prefixAll: true })).toBe('"a"* "OR"* "b"*');
    expect(toFts5Query('"*-:^()')).toBeNull();
    expect(fts5Tokens('col:x ^y')).toEqual(['col', 'x', 'y']);
  });

  it('finds what the words say, operators included', () => {
    expect(match(toFts5Query('NEAR(')!)).toEqual(['readfile']);
    expect(match(toFts5Query('and OR not')!)).toEqual(['readfile']);
    expect(match(toFts5Query('rea', { prefix: true })!)).toEqual(['readfile']);
    expect(match(toFts5Query('CAFÉ')!)).toEqual(['café']);
  });

  it('never makes a MATCH syntax error', () => {
    for (const h of HOSTILE) {
      for (const opts of [{}, { prefix: true }, { op: 'OR' as const, prefixAll: true }]) {
        const q = toFts5Query(h, opts);
        if (q !== null) expect(() => match(q)).not.toThrow();
      }
    }
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom(...HOSTILE)), { maxLength: 6 }).map((xs) => xs.join(' ')),
        fc.boolean(),
        (s, prefix) => {
          const q = toFts5Query(s, { prefix });
          if (q !== null) match(q);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
