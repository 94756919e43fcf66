/**
 * The RE2 spelling of a JSON Schema pattern must answer exactly as JavaScript's RegExp with
 * the u flag does: each pattern is run on both engines over the same strings.
 */
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { ecmaToRe2, spellForRe2 } from './ecma-to-re2';

const PATTERNS = [
  '^(a+)+$', '^[a-z0-9-]+$', '\\d{3}-\\d{4}', '^\\w+@\\w+\\.\\w+$', '\\s', '\\S+', '^.$', '^.*$', '^.+$', '[^]', '[]', '^[^]*$',
  '[\\s\\S]', '^[^\\d]*$', '\\bfoo\\b', '\\Bo', '^\\p{L}+$', '^\\p{Lu}', '\\P{L}', '\\p{Script=Greek}', '\\p{sc=Latin}',
  '\\p{General_Category=Decimal_Number}', '\\p{gc=Lu}', '\\p{Letter}', '\\p{Cased_Letter}', '\\p{Other}', '\\p{Unassigned}',
  '\\u{1F600}', '\\uD83D\\uDE00', '^[😀-😂]$', '^.$', '[\\u0041-\\u005A]+', '\\x41', '\\cJ', '\\0', '[\\b]', '[\\-a]', '[a-]',
  'a{2,3}?', 'a{2,}', '^a{2}$', '(?<year>\\d{4})-(?<m>\\d\\d)', '(?:ab)|cd', 'a|', '()', '^(|a)$',
  '\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\', '^$', '$^', '[\\^]', '[a\\]]', '\\t\\n\\v\\f\\r', '\\p{ASCII}', '\\P{Any}',
  '\\p{ASCII_Hex_Digit}+', '[\\p{L}\\d_]+', '[^\\p{L}]', '^[^\\s]+$', '[\\W]', '[\\D]', '[^\\S]', '\\p{punct}', '\\p{cntrl}',
  '^\\uD83D', '\\uDE00$', '[\\uD800-\\uDFFF]', '^[\\u{10000}-\\u{10FFFF}]$', 'a*?b', '^(?:a|ab)(?:c|bcd)(?:d*)$', '[.]', '^\\.$',
  '^[A-Z][a-z]*(?: [A-Z][a-z]*)*$', '^https?://[^\\s/$.?#].[^\\s]*$', '^\\+?[1-9]\\d{1,14}$', '^#(?:[0-9a-fA-F]{3}){1,2}$',
];

const INPUTS = [
  '', 'a', 'aa', 'aaa', 'aaaab', 'abc', 'ABC', 'Abc Def', '123', '555-1234', 'x@y.z', ' ', '\t', '\u00a0', '\u2028', '\u2029',
  '\n', '\r', 'a\n', '\na', '\u0085', '\ufeff', '\u000b', '😀', '😁', '😃', '\uD83D', '\uDE00', 'x\uD83D', '\uDE00x', 'αβγ',
  'Привет', 'foo bar', 'foobar', '\u0000', '\b', '-', ']', '^', '.', '/.*+?()[]{}|^$\\', '日本', 'é', 'e\u0301', '٣', 'A1b2',
  '1999-12', '#fff', '#12345g', '+4915112345678', 'https://example.com/x', 'abcd', 'abd', 'ac', 'J', '\u0001',
];

describe('ecmaToRe2', () => {
  it('answers as JavaScript does (u flag) for each pattern and string', () => {
    for (const p of PATTERNS) {
      const spelled = ecmaToRe2(p);
      expect(spelled, `${p} should be expressible in RE2`).not.toBeNull();
      const re2 = RE2JS.compile(spelled!);
      const js = new RegExp(p, 'u');
      for (const s of INPUTS) expect(re2.test(s), `${JSON.stringify(p)} on ${JSON.stringify(s)} (RE2: ${spelled})`).toBe(js.test(s));
      // A ^…$ pattern's body, matched whole, answers the same.
      const whole = spellForRe2(p)!.whole;
      if (whole === undefined) continue;
      const body = RE2JS.compile(whole);
      for (const s of INPUTS) expect(body.testExact(s), `${JSON.stringify(p)} whole on ${JSON.stringify(s)} (RE2: ${whole})`).toBe(js.test(s));
    }
  });

  it('offers the body of a ^…$ pattern to match whole, unless a top-level | splits the anchors', () => {
    expect(spellForRe2('^[a-z]+$')).toEqual({ source: '^[a-z]+$', whole: '[a-z]+' });
    expect(spellForRe2('^(a|b)$')?.whole).toBe('(?:a|b)');
    expect(spellForRe2('^$')?.whole).toBe('');
    expect(spellForRe2('^a|b$')?.whole).toBeUndefined();
    expect(spellForRe2('^a\\$')?.whole).toBeUndefined();
    expect(spellForRe2('(^a$)')?.whole).toBeUndefined();
  });

  it('matches the same code points as JavaScript for the class escapes, `.` and Unicode properties', () => {
    const sets = ['.', '\\s', '\\S', '\\w', '\\W', '\\d', '\\p{L}', '\\p{Nd}', '\\p{P}', '\\p{Zs}', '\\P{Cn}', '\\p{Script=Han}'];
    for (const p of sets) {
      const re2 = RE2JS.compile(`^${ecmaToRe2(p)!}$`);
      const js = new RegExp(`^${p}$`, 'u');
      // Every code point of the first planes and a sample of the rest (the whole range was compared when written).
      for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x3400 ? 1 : 97) {
        const s = String.fromCodePoint(cp);
        if (re2.test(s) !== js.test(s)) expect.fail(`${p} on U+${cp.toString(16)}: RE2 ${re2.test(s)}, JavaScript ${js.test(s)}`);
      }
    }
  });

  it('answers as JavaScript does for random patterns over random strings (a seeded sample)', () => {
    let seed = 12345;
    const pick = <T>(xs: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return xs[seed % xs.length]!;
    };
    const atoms = ['a', 'b', '.', '\\d', '\\D', '\\s', '\\S', '\\w', '\\W', '[ab]', '[^a]', '[a-c\\d]', '[^\\s]', '\\p{L}', '\\P{Lu}', '😀', '[😀-😂]',
      '(?:', '(', '(?<n>', ')', '|', '*', '+', '?', '{1,2}', '{2}', '{0,}', '^', '$', '\\b', '\\B', '*?', '\\n', '\\u2028', '[.]', '[]', '[^]', '\\-', 'é', '\\.'];
    const letters = ['a', 'b', '1', ' ', '\n', '😀', '😁', 'é', '\u2028', 'Z', '\r', '-', '.', '\uD83D', '_'];
    let compared = 0;
    for (let k = 0; k < 6000; k++) {
      let p = '';
      for (let i = 0, n = 1 + (k % 7); i < n; i++) p += pick(atoms);
      let js: RegExp;
      try {
        js = new RegExp(p, 'u');
      } catch {
        continue;
      }
      const spelled = spellForRe2(p)!;
      const re2 = RE2JS.compile(spelled.source);
      const body = spelled.whole === undefined ? undefined : RE2JS.compile(spelled.whole);
      for (let j = 0; j < 10; j++) {
        let s = '';
        for (let i = 0, m = j % 6; i < m; i++) s += pick(letters);
        if (re2.test(s) !== js.test(s)) expect.fail(`${JSON.stringify(p)} on ${JSON.stringify(s)}: RE2 ${re2.test(s)}, JavaScript ${js.test(s)}`);
        if (body && body.testExact(s) !== js.test(s)) expect.fail(`${JSON.stringify(p)} whole on ${JSON.stringify(s)}: RE2 ${body.testExact(s)}, JavaScript ${js.test(s)}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20_000);
  });

  it('answers null for what RE2 cannot express: lookaround, backreferences, unknown properties', () => {
    for (const p of ['(?=a)', '(?!a)b', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?<x>a)\\k<x>', '\\p{Emoji}', '\\p{Script_Extensions=Greek}', '[\\p{Alphabetic}]']) {
      expect(ecmaToRe2(p), p).toBeNull();
    }
  });

  it('writes every literal that is not a letter or digit as an escape, so none reads as RE2 syntax', () => {
    // RE2 would read [[:a] as the start of a POSIX class; JavaScript reads '[', ':' and 'a'.
    expect(ecmaToRe2('[[:a]')).toBe('[\\x{5b}\\x{3a}a]');
    expect(RE2JS.compile(ecmaToRe2('[[:a]')!).test(':')).toBe(true);
    expect(RE2JS.compile(ecmaToRe2('(?<P>a)')!).test('a')).toBe(true);
  });
});
