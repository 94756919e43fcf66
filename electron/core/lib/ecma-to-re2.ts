/**
 * Rewrites a JSON Schema `pattern` (ECMA-262 syntax with the `u` flag, as ajv runs it) into
 * RE2 syntax that matches exactly the same strings, so it can run on a linear-time engine
 * (re2js) instead of JavaScript's backtracking one. Only a yes/no answer is needed, so every
 * group becomes non-capturing.
 *
 * What the two dialects spell differently is spelled out here: `.` (ECMAScript leaves out
 * \r, U+2028 and U+2029 too), `\s` (ECMAScript's is Unicode white space), control and
 * Unicode escapes (`\cJ`, `\u{1F600}`, a `\uD83D\uDE00` pair), empty classes (`[]`,
 * `[^]`), property names (`\p{Letter}`, `\p{Script=Greek}`). Every literal that is not a
 * letter or a digit is written as `\x{…}`, so nothing can be read as RE2 syntax.
 *
 * What RE2 cannot express answers null: lookahead and lookbehind, backreferences, inline
 * modifiers, properties RE2 does not know under the same meaning. Such patterns run on the
 * bounded slow path (./schema-regexp.ts). The caller has already compiled the pattern with
 * `new RegExp(pattern, 'u')`: the syntax is valid, and anything this reader does not
 * recognise answers null too (the slow path is exact, only slower).
 */

type Range = readonly [number, number];

const MAX_CP = 0x10ffff;
const DIGIT: readonly Range[] = [[0x30, 0x39]];
const WORD: readonly Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** ECMAScript WhiteSpace and LineTerminator: \t \n \v \f \r, the Zs separators, U+2028/9, U+FEFF. */
const SPACE: readonly Range[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
/** `.` without the s flag: anything but a line terminator. */
const NOT_LINE_END: readonly Range[] = complement([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);

/** RE2 has no empty class: these stand for `[^]` and `[]`. */
const ANYTHING = `[${rangesBody([[0, MAX_CP]])}]`;
const NOTHING = `[^${rangesBody([[0, MAX_CP]])}]`;

/**
 * General_Category values, long and short (ECMAScript accepts both), to the short name RE2
 * knows. Each was compared with JavaScript's over every code point (ecma-to-re2.test.ts
 * samples them); both follow the Unicode tables of their release.
 */
const CATEGORIES: Record<string, string> = {};
for (const [short, ...long] of [
  ['L', 'Letter'], ['LC', 'Cased_Letter'], ['Lu', 'Uppercase_Letter'], ['Ll', 'Lowercase_Letter'], ['Lt', 'Titlecase_Letter'], ['Lm', 'Modifier_Letter'], ['Lo', 'Other_Letter'],
  ['M', 'Mark', 'Combining_Mark'], ['Mn', 'Nonspacing_Mark'], ['Mc', 'Spacing_Mark'], ['Me', 'Enclosing_Mark'],
  ['N', 'Number'], ['Nd', 'Decimal_Number', 'digit'], ['Nl', 'Letter_Number'], ['No', 'Other_Number'],
  ['P', 'Punctuation', 'punct'], ['Pc', 'Connector_Punctuation'], ['Pd', 'Dash_Punctuation'], ['Ps', 'Open_Punctuation'],
  ['Pe', 'Close_Punctuation'], ['Pi', 'Initial_Punctuation'], ['Pf', 'Final_Punctuation'], ['Po', 'Other_Punctuation'],
  ['S', 'Symbol'], ['Sm', 'Math_Symbol'], ['Sc', 'Currency_Symbol'], ['Sk', 'Modifier_Symbol'], ['So', 'Other_Symbol'],
  ['Z', 'Separator'], ['Zs', 'Space_Separator'], ['Zl', 'Line_Separator'], ['Zp', 'Paragraph_Separator'],
  ['C', 'Other'], ['Cn', 'Unassigned'], ['Cc', 'Control', 'cntrl'], ['Cf', 'Format'], ['Cs', 'Surrogate'], ['Co', 'Private_Use'],
] as const) {
  for (const name of [short, ...long]) CATEGORIES[name] = short;
}
/** Binary properties that are plain ranges. */
const BINARY: Record<string, readonly Range[]> = {
  ASCII: [[0, 0x7f]],
  Any: [[0, MAX_CP]],
  ASCII_Hex_Digit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

function literal(cp: number): string {
  const alnum = (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return alnum ? String.fromCodePoint(cp) : `\\x{${cp.toString(16)}}`;
}

function rangesBody(ranges: readonly Range[]): string {
  return ranges.map(([a, b]) => (a === b ? literal(a) : `${literal(a)}-${literal(b)}`)).join('');
}

/** Thrown inside the reader: the pattern needs the exact (slow) engine. */
class Unsupported extends Error {}

const HEX = /^[0-9a-fA-F]+$/;
const isHex = (s: string | undefined, n: number): boolean => s !== undefined && s.length === n && HEX.test(s);

class Reader {
  private i = 0;
  private depth = 0;
  private readonly cps: string[];
  /** A `|` outside every group was read. */
  topAlternation = false;
  /** A word boundary (`\b`, `\B`) was read in a pattern that ignores case. */
  foldedBoundary = false;

  constructor(
    pattern: string,
    /** The i flag too: RE2 runs the spelling with (?i). */
    private readonly ignoreCase = false,
  ) {
    // By code point: with the u flag a surrogate pair is one character.
    this.cps = Array.from(pattern);
  }

  translate(): string {
    let out = '';
    while (this.i < this.cps.length) {
      const c = this.cps[this.i++]!;
      switch (c) {
        case '\\':
          out += this.escape();
          break;
        case '[':
          out += this.charClass();
          break;
        case '(':
          out += this.group();
          this.depth++;
          break;
        case '{':
          out += this.braces();
          break;
        case ')':
          this.depth--;
          out += c;
          break;
        case '|':
          if (this.depth === 0) this.topAlternation = true;
          out += c;
          break;
        case '^': case '$': case '*': case '+': case '?':
          out += c;
          break;
        case '.':
          out += `[${rangesBody(NOT_LINE_END)}]`;
          break;
        default:
          out += literal(c.codePointAt(0)!);
      }
    }
    return out;
  }

  /** `{n}`, `{n,}`, `{n,m}`: copied as they are (RE2 refuses counts past 1000: the slow path takes those). */
  private braces(): string {
    let body = '';
    while (this.i < this.cps.length && this.cps[this.i] !== '}') body += this.cps[this.i++];
    if (this.cps[this.i] !== '}' || !/^\d+(,\d*)?$/.test(body)) throw new Unsupported();
    this.i++;
    return `{${body}}`;
  }

  private group(): string {
    if (this.cps[this.i] !== '?') return '(?:';
    const next = this.cps[this.i + 1];
    if (next === ':') {
      this.i += 2;
      return '(?:';
    }
    if (next === '<' && this.cps[this.i + 2] !== '=' && this.cps[this.i + 2] !== '!') {
      // A named group: the name does not matter for a yes/no answer.
      const close = this.cps.indexOf('>', this.i);
      if (close < 0) throw new Unsupported();
      this.i = close + 1;
      return '(?:';
    }
    // Lookahead, lookbehind, inline modifiers.
    throw new Unsupported();
  }

  /** An escape outside a class (the backslash is read). */
  private escape(): string {
    const c = this.cps[this.i];
    switch (c) {
      case 'b': case 'B':
        this.i++;
        if (this.ignoreCase) this.foldedBoundary = true;
        return `\\${c}`;
      case 'W':
        // Ignoring case, JavaScript counts ſ and the Kelvin sign as word characters, so \W holds
        // nothing that folds to k or s; RE2 would fold the complement's ranges back to them.
        // A negated class is folded before it is negated, by both engines.
        if (this.ignoreCase) {
          this.i++;
          return `[^${rangesBody(WORD)}]`;
        }
        return this.classEscapeOutside();
      case 'd': case 'D': case 'w': case 's': case 'S': case 'p': case 'P':
        return this.classEscapeOutside();
      case 'k':
        throw new Unsupported();
      default:
        if (c !== undefined && c >= '1' && c <= '9') throw new Unsupported();
        return literal(this.characterEscape());
    }
  }

  /** A class escape outside a class, as a class (the backslash is read). */
  private classEscapeOutside(): string {
    const body = this.classEscape();
    return body === '' ? NOTHING : `[${body}]`;
  }

  /** \d \D \w \W \s \S \p{…} \P{…} as the inside of a class (the backslash is read). */
  private classEscape(): string {
    const c = this.cps[this.i++];
    switch (c) {
      case 'd': return rangesBody(DIGIT);
      case 'D': return rangesBody(complement(DIGIT));
      case 'w': return rangesBody(WORD);
      case 'W': return rangesBody(complement(WORD));
      case 's': return rangesBody(SPACE);
      case 'S': return rangesBody(complement(SPACE));
      case 'p': case 'P': return this.property(c === 'P');
      default: throw new Unsupported();
    }
  }

  private property(negated: boolean): string {
    if (this.cps[this.i] !== '{') throw new Unsupported();
    const close = this.cps.indexOf('}', this.i);
    if (close < 0) throw new Unsupported();
    const body = this.cps.slice(this.i + 1, close).join('');
    this.i = close + 1;
    const eq = body.indexOf('=');
    const key = eq < 0 ? '' : body.slice(0, eq);
    const value = eq < 0 ? body : body.slice(eq + 1);
    let name: string | undefined;
    if (key === '' && BINARY[value]) return rangesBody(negated ? complement(BINARY[value]) : BINARY[value]);
    if (key === '' || key === 'General_Category' || key === 'gc') name = Object.hasOwn(CATEGORIES, value) ? CATEGORIES[value] : undefined;
    // Script names as RE2 spells them (Latin, Greek, Han); an alias it does not know fails to compile: the slow path.
    else if ((key === 'Script' || key === 'sc') && /^[A-Z][A-Za-z_]*$/.test(value)) name = value;
    if (name === undefined) throw new Unsupported();
    // Ignoring case, JavaScript folds the complement (\P{Lu} matches A: it holds a); RE2's \P{…} folds, then negates.
    if (negated && this.ignoreCase) throw new Unsupported();
    return `\\${negated ? 'P' : 'p'}{${name}}`;
  }

  /** One character written as an escape (the backslash is read): its code point. */
  private characterEscape(): number {
    const c = this.cps[this.i++];
    switch (c) {
      case 'f': return 0x0c;
      case 'n': return 0x0a;
      case 'r': return 0x0d;
      case 't': return 0x09;
      case 'v': return 0x0b;
      case '0': return 0;
      case 'c': {
        const letter = this.cps[this.i++];
        if (letter === undefined || !/^[A-Za-z]$/.test(letter)) throw new Unsupported();
        return letter.charCodeAt(0) % 32;
      }
      case 'x': {
        const h = this.cps.slice(this.i, this.i + 2).join('');
        if (!isHex(h, 2)) throw new Unsupported();
        this.i += 2;
        return parseInt(h, 16);
      }
      case 'u':
        return this.unicodeEscape();
      default:
        // An identity escape: a syntax character or '/' (the u flag allows no other).
        if (c === undefined || !/^[\^$\\.*+?()[\]{}|/-]$/.test(c)) throw new Unsupported();
        return c.codePointAt(0)!;
    }
  }

  /** `\u{…}`, `\uXXXX`, and a `\uD83D\uDE00` pair as one code point (the `\u` is read). */
  private unicodeEscape(): number {
    if (this.cps[this.i] === '{') {
      const close = this.cps.indexOf('}', this.i);
      const h = close < 0 ? '' : this.cps.slice(this.i + 1, close).join('');
      if (!HEX.test(h)) throw new Unsupported();
      this.i = close + 1;
      const cp = parseInt(h, 16);
      if (cp > MAX_CP) throw new Unsupported();
      return cp;
    }
    const h = this.cps.slice(this.i, this.i + 4).join('');
    if (!isHex(h, 4)) throw new Unsupported();
    this.i += 4;
    const lead = parseInt(h, 16);
    if (lead >= 0xd800 && lead <= 0xdbff && this.cps[this.i] === '\\' && this.cps[this.i + 1] === 'u') {
      const t = this.cps.slice(this.i + 2, this.i + 6).join('');
      const trail = isHex(t, 4) ? parseInt(t, 16) : -1;
      if (trail >= 0xdc00 && trail <= 0xdfff) {
        this.i += 6;
        return 0x10000 + ((lead - 0xd800) << 10) + (trail - 0xdc00);
      }
    }
    return lead;
  }

  /** `[…]` (the `[` is read). */
  private charClass(): string {
    let negated = false;
    if (this.cps[this.i] === '^') {
      negated = true;
      this.i++;
    }
    let body = '';
    while (this.cps[this.i] !== ']') {
      if (this.i >= this.cps.length) throw new Unsupported();
      const a = this.classAtom();
      if (typeof a === 'number' && this.cps[this.i] === '-' && this.cps[this.i + 1] !== ']' && this.i + 1 < this.cps.length) {
        this.i++;
        const b = this.classAtom();
        if (typeof b !== 'number' || b < a) throw new Unsupported();
        body += `${literal(a)}-${literal(b)}`;
      } else body += typeof a === 'number' ? literal(a) : a;
    }
    this.i++;
    if (body === '') return negated ? ANYTHING : NOTHING;
    return `[${negated ? '^' : ''}${body}]`;
  }

  /** One member of a class: a code point, or a set written as class content. */
  private classAtom(): number | string {
    const c = this.cps[this.i++]!;
    if (c !== '\\') return c.codePointAt(0)!;
    const e = this.cps[this.i];
    if (e === 'b') {
      this.i++;
      return 0x08;
    }
    // Ignoring case, \W inside a class cannot be written so that RE2 folds it as JavaScript does.
    if (this.ignoreCase && e === 'W') throw new Unsupported();
    if (e === 'd' || e === 'D' || e === 'w' || e === 'W' || e === 's' || e === 'S' || e === 'p' || e === 'P') return this.classEscape();
    if (e === 'B' || e === 'k' || (e !== undefined && e >= '1' && e <= '9')) throw new Unsupported();
    return this.characterEscape();
  }
}

export interface Re2Spelling {
  /** The pattern in RE2 syntax, to search for anywhere in a string. */
  source: string;
  /**
   * When the pattern is `^body$` with no `|` outside a group, the body alone: it matches a
   * string whole (re2js' testExact), which answers the same and runs several times faster.
   */
  whole?: string;
  /**
   * Ignoring case, the pattern has a word boundary: JavaScript's /ui counts ſ (U+017F) and the
   * Kelvin sign (U+212A) as word characters there, RE2 does not. A text holding either must be
   * tested by JavaScript's engine; any other text answers the same on both.
   */
  foldedBoundary?: true;
}

/**
 * The RE2 spelling of an ECMAScript pattern (the u flag; with `ignoreCase` the i flag too, to
 * be run with RE2's (?i)), or null when RE2 cannot express it.
 */
export function spellForRe2(pattern: string, options: { ignoreCase?: boolean } = {}): Re2Spelling | null {
  const reader = new Reader(pattern, options.ignoreCase);
  let source: string;
  try {
    source = reader.translate();
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
  // Literals are always written as escapes, so a bare ^ first and $ last are the anchors, outside every group.
  const anchored = !reader.topAlternation && source.length >= 2 && source.startsWith('^') && source.endsWith('$');
  const boundary = reader.foldedBoundary ? { foldedBoundary: true as const } : {};
  return anchored ? { source, whole: source.slice(1, -1), ...boundary } : { source, ...boundary };
}

export function ecmaToRe2(pattern: string): string | null {
  return spellForRe2(pattern)?.source ?? null;
}
