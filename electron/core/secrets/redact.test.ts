import { describe, expect, it } from 'vitest';
import { createRedactor, encodingsOf, REDACTED, redactDeep } from './redact';

const SECRET = 'p@ss w0rd/+&"é';
const KEY = 'sk-live-4f9a8b7c6d5e';

describe('createRedactor', () => {
  const redact = createRedactor(() => [SECRET, KEY]);

  it('redacts the plain value, every occurrence', () => {
    expect(redact(`key=${KEY}; again ${KEY}.`)).toBe(`key=${REDACTED}; again ${REDACTED}.`);
    expect(redact(`${KEY}${KEY}`)).toBe(`${REDACTED}${REDACTED}`);
    expect(redact('nothing here')).toBe('nothing here');
  });

  it('redacts URL encodings: encodeURIComponent (either hex case) and form encoding', () => {
    const uri = encodeURIComponent(SECRET);
    expect(uri).not.toBe(SECRET);
    expect(redact(`https://x.com/?p=${uri}&q=1`)).toBe(`https://x.com/?p=${REDACTED}&q=1`);
    expect(redact(`?p=${uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`)).toBe(`?p=${REDACTED}`);
    const form = new URLSearchParams({ p: SECRET }).toString();
    expect(form).toContain('+');
    expect(redact(form)).toBe(`p=${REDACTED}`);
  });

  it('redacts base64: standard, unpadded, URL-safe', () => {
    const value = 'key~~~?>>>'; // base64 a2V5fn5+Pz4+Pg== has '+' and padding
    const r = createRedactor(() => [value]);
    const std = Buffer.from(value).toString('base64');
    const url = Buffer.from(value).toString('base64url');
    expect(std).not.toBe(url);
    expect(std).toContain('+');
    expect(r(`token ${std} end`)).toBe(`token ${REDACTED} end`);
    expect(r(`token ${std.replace(/=+$/, '')} end`)).toBe(`token ${REDACTED} end`);
    expect(r(`token ${url} end`)).toBe(`token ${REDACTED} end`);
    expect(r(`"${std}"`)).toBe(`"${REDACTED}"`);
  });

  it("redacts HTTP Basic auth's base64(user:password) when the password is a secret, whatever the user", () => {
    for (const user of ['', 'a', 'ab', 'abc', 'alice', 'some.user@example.com']) {
      const header = `Authorization: Basic ${Buffer.from(`${user}:${KEY}`).toString('base64')}`;
      expect(redact(header), user).toBe(`Authorization: Basic ${REDACTED}`);
      const json = JSON.stringify({ headers: { authorization: `Basic ${Buffer.from(`${user}:${SECRET}`).toString('base64')}` } });
      expect(redact(json), user).toBe(JSON.stringify({ headers: { authorization: `Basic ${REDACTED}` } }));
    }
    // Base64 of a longer text that contains the secret, behind a path that shifts the alignment.
    const blob = Buffer.from(`{"apiKey":"${KEY}","n":1}`).toString('base64url');
    for (const prefix of ['/v1/', '/v12/', '/v123/', '/']) {
      expect(redact(`GET ${prefix}${blob}`)).toBe(`GET ${REDACTED}`);
    }
    // Basic auth of unrelated credentials is left alone.
    const other = `Basic ${Buffer.from('alice:not-a-secret').toString('base64')}`;
    expect(redact(other)).toBe(other);
  });

  it('redacts the value as escaped inside a JSON string', () => {
    const pem = '-----BEGIN KEY-----\nMIIB"quoted"\\back\n-----END KEY-----';
    const r = createRedactor(() => [pem]);
    expect(r(JSON.stringify({ key: pem }))).toBe(`{"key":"${REDACTED}"}`);
    expect(r(`raw: ${pem}`)).toBe(`raw: ${REDACTED}`);
  });

  it('redacts a longer secret whole when it contains a shorter one, and merges overlaps', () => {
    const r = createRedactor(() => ['abcd', 'xxabcdyy', 'cdyyzz12']);
    expect(r('1 xxabcdyy 2')).toBe(`1 ${REDACTED} 2`);
    expect(r('1 abcd 2')).toBe(`1 ${REDACTED} 2`);
    expect(r('xxabcdyyzz12!')).toBe(`${REDACTED}!`);
    expect(r('abcabcd')).toBe(`abc${REDACTED}`);
  });

  it('ignores values shorter than 4 characters (code points)', () => {
    const r = createRedactor(() => ['abc', 'a', '', '𝐀𝐁𝐂', 'wxyz']);
    expect(r('abc a 𝐀𝐁𝐂 wxyz')).toBe(`abc a 𝐀𝐁𝐂 ${REDACTED}`);
  });

  it('follows the current values, rebuilding only when they change', () => {
    let list = ['first-secret'];
    let calls = 0;
    const r = createRedactor(() => {
      calls++;
      return list;
    });
    expect(r('first-secret second-secret')).toBe(`${REDACTED} second-secret`);
    list = ['first-secret', 'second-secret'];
    expect(r('first-secret second-secret')).toBe(`${REDACTED} ${REDACTED}`);
    list = [];
    expect(r('first-secret')).toBe('first-secret');
    expect(calls).toBe(3);
  });

  it('finds every secret among many in a large text, as replacing each one by one would', () => {
    const secrets = Array.from({ length: 2000 }, (_, k) => `secret-${k.toString(36)}-${'x'.repeat(k % 50)}-${k * 7919}`);
    const r = createRedactor(() => secrets);
    const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit 0123456789 ';
    const text = Array.from({ length: 20_000 }, (_, k) => (k % 1000 === 0 ? secrets[k % secrets.length] : filler)).join('');
    const out = r(text);
    expect(out.split(REDACTED)).toHaveLength(21);
    let naive = text;
    for (const s of [...secrets].sort((a, b) => b.length - a.length)) naive = naive.replaceAll(s, REDACTED);
    expect(out).toBe(naive);
  });

  it('redacts echoes in hex (either case), every byte percent-encoded, and base64 URL-encoded', () => {
    const r = createRedactor(() => [SECRET, KEY]);
    const hex = Buffer.from(KEY).toString('hex');
    expect(r(`digest ${hex} and ${hex.toUpperCase()}.`)).toBe(`digest ${REDACTED} and ${REDACTED}.`);
    const every = Buffer.from(SECRET).toString('hex').replace(/../g, '%$&');
    expect(r(`?a=${every}&b=${every.toUpperCase()}`)).toBe(`?a=${REDACTED}&b=${REDACTED}`);
    const value = 'key~~~?>>>'; // base64 a2V5fn5+Pz4+Pg==: '+' and '=' are escaped in a URL
    const b64InUrl = encodeURIComponent(Buffer.from(value).toString('base64'));
    expect(b64InUrl).toBe('a2V5fn5%2BPz4%2BPg%3D%3D');
    const rv = createRedactor(() => [value]);
    expect(rv(`?t=${b64InUrl}&u=${b64InUrl.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`)).toBe(`?t=${REDACTED}&u=${REDACTED}`);
  });

  it('handles a base64-like run of many MiB (no stack overflow) and finds a secret far into it', () => {
    const key = `${KEY}0`; // 21 bytes: its base64 has no '=' to end the run
    const r = createRedactor(() => [key]);
    const long = 'a'.repeat(12 << 20);
    expect(r(`x ${long} y`)).toBe(`x ${long} y`);
    // The secret's base64 at a 4-character boundary deep inside the run, across a 1 MiB window edge.
    const inner = `${'A'.repeat((1 << 20) - 8)}${Buffer.from(key).toString('base64')}${'A'.repeat(1 << 20)}`;
    expect(r(`Basic ${inner} end`)).toBe(`Basic ${REDACTED} end`);
  });

  it('lists the encodings it covers', () => {
    expect(encodingsOf('a b/c')).toEqual(
      expect.arrayContaining(['a b/c', 'a%20b%2Fc', 'a%20b%2fc', 'a+b%2Fc', Buffer.from('a b/c').toString('base64')]),
    );
  });
});

describe('redactDeep', () => {
  const redact = createRedactor(() => [KEY, '12345678']);

  it('redacts strings and keys at any depth, and numbers whose digits are a secret', () => {
    const input = {
      headers: { Authorization: `Bearer ${KEY}`, [KEY]: 'as a key' },
      list: [KEY, 1, true, null, { deep: [`x${KEY}x`] }],
      pin: 12345678,
      other: 42,
    };
    expect(redactDeep(input, redact)).toEqual({
      headers: { Authorization: `Bearer ${REDACTED}`, [REDACTED]: 'as a key' },
      list: [REDACTED, 1, true, null, { deep: [`x${REDACTED}x`] }],
      pin: REDACTED,
      other: 42,
    });
    expect(input.headers.Authorization).toBe(`Bearer ${KEY}`); // the input is not changed
  });

  it('keeps both entries when two keys redact to the same text, and survives cycles and odd keys', () => {
    const k2 = `${KEY}`;
    const o: Record<string, unknown> = { [k2]: 1, [REDACTED]: 2 };
    expect(redactDeep(o, redact)).toEqual({ [REDACTED]: 1, [`${REDACTED} (2)`]: 2 });
    const cyc: Record<string, unknown> = { a: KEY };
    cyc.self = cyc;
    expect(redactDeep(cyc, redact)).toEqual({ a: REDACTED, self: '[circular]' });
    const proto = JSON.parse(`{"__proto__": {"x": "${KEY}"}}`);
    const out = redactDeep(proto, redact) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ x: REDACTED });
  });

  it('walks each value once, however many keys hold secrets on the way down', () => {
    let calls = 0;
    const counting = (t: string) => {
      calls++;
      return redact(t);
    };
    let v: Record<string, unknown> = { leaf: 'x' };
    for (let k = 0; k < 16; k++) v = { a: v, [KEY]: k };
    const out = JSON.stringify(redactDeep(v, counting));
    expect(out).not.toContain(KEY);
    expect(out).toContain(`"${REDACTED}":15`);
    // Per level: two keys and one number; at the bottom, a key and a string.
    expect(calls).toBeLessThanOrEqual(16 * 3 + 2);
  });

  it('copies an object met again by another path once (a value that shares parts is not walked again and again)', () => {
    let calls = 0;
    const counting = (t: string) => {
      calls++;
      return redact(t);
    };
    let v: Record<string, unknown> = { leaf: KEY };
    for (let k = 0; k < 16; k++) v = { l: v, r: v };
    const out = redactDeep(v, counting) as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out.l).toEqual(out.r);
    expect(calls).toBeLessThanOrEqual(16 * 2 + 2);
  });

  it('redacts bytes that contain a secret', () => {
    expect(redactDeep({ body: Buffer.from(`token=${KEY}`) }, redact)).toEqual({ body: REDACTED });
    const plain = new Uint8Array([1, 2, 3]);
    expect((redactDeep({ body: plain }, redact) as { body: unknown }).body).toBe(plain);
  });

  it('does not overflow the stack on deep values', () => {
    let v: unknown = KEY;
    for (let k = 0; k < 5000; k++) v = [v];
    expect(() => JSON.stringify(redactDeep(v, redact))).not.toThrow();
    expect(JSON.stringify(redactDeep(v, redact))).not.toContain(KEY);
  });
});
