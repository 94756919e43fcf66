import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { AllowedHostSchema } from '../../../../shared/model/settings';
import { assertUrlAllowed, effectivePort, hostLabel, isExactlyAllowed, matchHost, parseAllowedHost, parseAllowedHosts } from './hosts';

const rules = (...entries: string[]) => parseAllowedHosts(entries).rules;
const allows = (entries: string[], url: string) => {
  const u = new URL(url);
  return matchHost(rules(...entries), u.hostname, effectivePort(u), u.protocol) !== undefined;
};

describe('parseAllowedHost', () => {
  it('normalises case, a trailing dot, IDN and IP spellings', () => {
    expect(parseAllowedHost('API.Example.COM.')).toMatchObject({ host: 'api.example.com', wildcard: false, ip: false });
    expect(parseAllowedHost('bücher.de')).toMatchObject({ host: 'xn--bcher-kva.de' });
    expect(parseAllowedHost('2130706433:8080')).toMatchObject({ host: '127.0.0.1', port: 8080, ip: true });
    expect(parseAllowedHost('[0:0::1]:443')).toMatchObject({ host: '[::1]', port: 443, ip: true });
    expect(parseAllowedHost('*.Example.com:8443')).toMatchObject({ host: 'example.com', wildcard: true, port: 8443 });
    expect(parseAllowedHost(' localhost ')).toMatchObject({ host: 'localhost' });
    expect(parseAllowedHost('api.example.com').port).toBeUndefined();
  });

  it("reads 'private:' before an entry as the private-network mark (but 'private:8080' as a host and port)", () => {
    expect(parseAllowedHost('api.example.com')).toMatchObject({ private: false });
    expect(parseAllowedHost('private:nas.lan')).toMatchObject({ host: 'nas.lan', private: true, wildcard: false });
    expect(parseAllowedHost('private:*.corp.example:8443')).toMatchObject({ host: 'corp.example', private: true, wildcard: true, port: 8443 });
    expect(parseAllowedHost('private:[::1]:8080')).toMatchObject({ host: '[::1]', private: true, ip: true, port: 8080 });
    expect(parseAllowedHost('private:8080')).toMatchObject({ host: 'private', port: 8080, private: false });
    expect(() => parseAllowedHost('private:')).toThrow("has no host after 'private:'");
    expect(AllowedHostSchema.safeParse('private:*.corp.example:8443').success).toBe(true);
    expect(AllowedHostSchema.safeParse('private:[::1]').success).toBe(true);
  });

  it.each([
    ['', 'is empty'],
    ['*.127.0.0.1', 'wildcard over an IP'],
    ['*.[::1]', 'wildcard over an IP'],
    ['*.example.1', 'not a valid'],
    ['a..', 'empty label'],
    ['a.*.example.com', "'*'"],
    ['*example.com', "'*'"],
    ['example.com:0', 'port'],
    ['example.com:65536', 'port'],
    ['example.com:http', 'port'],
    ['example.com/path', 'not a host name'],
    ['user@example.com', 'not a host name'],
    ['[::1', "'['"],
    ['[::1]x', ':port'],
    ['[zz::1]', 'not a valid'],
    ['0x100000000', 'not a valid'],
    ['a..b', 'empty label'],
    ['.a.com', 'empty label'],
  ])("refuses '%s' (%s)", (entry, why) => {
    let err: unknown;
    try {
      parseAllowedHost(entry);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_FAILED');
    expect((err as AppError).message).toContain(why);
  });

  it('reports bad entries without throwing, and they allow nothing', () => {
    const { rules: r, problems } = parseAllowedHosts(['ok.com', '*.1.2.3.4', 'bad/entry']);
    expect(r.map((x) => x.host)).toEqual(['ok.com']);
    expect(problems.map((p) => p.entry)).toEqual(['*.1.2.3.4', 'bad/entry']);
  });

  it('accepts every entry the Settings schema accepts, or refuses it with a message (never throws otherwise)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(\*\.)?[A-Za-z0-9.-]{1,30}(:\d{1,5})?$/), (entry) => {
        fc.pre(AllowedHostSchema.safeParse(entry).success);
        try {
          const r = parseAllowedHost(entry);
          expect(r.host).toBe(r.host.toLowerCase());
          expect(r.host.endsWith('.')).toBe(false);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('matchHost', () => {
  it('an entry without a port allows the default port of each scheme only', () => {
    expect(allows(['api.example.com'], 'https://api.example.com/x')).toBe(true);
    expect(allows(['api.example.com'], 'http://api.example.com/x')).toBe(true);
    expect(allows(['api.example.com'], 'https://api.example.com:443/x')).toBe(true);
    expect(allows(['api.example.com'], 'https://api.example.com:8443/x')).toBe(false);
    expect(allows(['api.example.com'], 'http://api.example.com:443/x')).toBe(false);
    expect(allows(['api.example.com'], 'https://api.example.com:80/x')).toBe(false);
  });

  it('an entry with a port allows that port only, on either scheme', () => {
    expect(allows(['api.example.com:8443'], 'https://api.example.com:8443/')).toBe(true);
    expect(allows(['api.example.com:8443'], 'http://api.example.com:8443/')).toBe(true);
    expect(allows(['api.example.com:8443'], 'https://api.example.com/')).toBe(false);
    expect(allows(['api.example.com:443'], 'https://api.example.com/')).toBe(true);
  });

  it('wildcards match on a label boundary, not the apex nor look-alikes', () => {
    const w = ['*.example.com'];
    expect(allows(w, 'https://a.example.com/')).toBe(true);
    expect(allows(w, 'https://a.b.example.com/')).toBe(true);
    expect(allows(w, 'https://example.com/')).toBe(false);
    expect(allows(w, 'https://badexample.com/')).toBe(false);
    expect(allows(w, 'https://example.com.evil.com/')).toBe(false);
    expect(allows(w, 'https://a.example.com.evil.com/')).toBe(false);
    expect(allows(w, 'https://.example.com/')).toBe(false);
  });

  it('is not fooled by look-alike names, user info or trailing dots', () => {
    expect(allows(['allowed.com'], 'https://allowed.com.evil.com/')).toBe(false);
    expect(allows(['allowed.com'], 'https://evilallowed.com/')).toBe(false);
    expect(allows(['allowed.com'], 'https://allowed.com@evil.com/')).toBe(false);
    expect(allows(['allowed.com'], 'https://ALLOWED.com./')).toBe(true);
    expect(allows(['allowed.com.'], 'https://allowed.com/')).toBe(true);
    expect(allows(['allowed.com'], 'https://allowed.com../')).toBe(false);
    expect(allows(['bücher.de'], 'https://xn--bcher-kva.de/')).toBe(true);
    expect(allows(['xn--bcher-kva.de'], 'https://BÜCHER.de/')).toBe(true);
  });

  it('matches IP literals by address, whatever the spelling', () => {
    const r = ['127.0.0.1:8080'];
    for (const h of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '0x7f000001']) expect(allows(r, `http://${h}:8080/`), h).toBe(true);
    expect(allows(r, 'http://[::ffff:127.0.0.1]:8080/')).toBe(false);
    expect(allows(r, 'http://localhost:8080/')).toBe(false);
    expect(allows(r, 'http://127.0.0.2:8080/')).toBe(false);
    expect(allows(['[::1]:8080'], 'http://[0::1]:8080/')).toBe(true);
    expect(allows(['localhost:8080'], 'http://127.0.0.1:8080/')).toBe(false);
  });

  it('prefers an exact entry over a wildcard, and says which is exact', () => {
    const r = rules('*.test:1234', 'api.test:1234');
    expect(matchHost(r, 'api.test', 1234, 'http:')?.wildcard).toBe(false);
    expect(isExactlyAllowed(r, 'api.test', 1234, 'http:')).toBe(true);
    expect(isExactlyAllowed(r, 'api.test.', 1234, 'http:')).toBe(true);
    expect(isExactlyAllowed(r, 'other.test', 1234, 'http:')).toBe(false);
    // An exact entry on another port does not make a wildcard match exact.
    const r2 = rules('*.test', 'api.test:8443');
    expect(matchHost(r2, 'api.test', 443, 'https:')?.wildcard).toBe(true);
    expect(isExactlyAllowed(r2, 'api.test', 443, 'https:')).toBe(false);
  });
});

describe('assertUrlAllowed', () => {
  const r = rules('allowed.com', '127.0.0.1:9999');
  const refuse = (url: string) => {
    try {
      assertUrlAllowed(new URL(url), r);
    } catch (e) {
      return e as AppError;
    }
    throw new Error(`${url} was allowed`);
  };

  it('names the host (and port) to add', () => {
    const e = refuse('https://evil.com/x?key=SECRET');
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toBe("host 'evil.com' is not in the allowed hosts; add it in Settings → Allowed hosts");
    expect(refuse('https://allowed.com:8443/').message).toContain("'allowed.com:8443'");
    expect(refuse('http://0x7f.1:9998/').message).toContain("'127.0.0.1:9998'");
  });

  it('refuses other schemes and user info, without echoing the credentials', () => {
    expect(refuse('file:///etc/passwd').message).toContain("scheme 'file'");
    expect(refuse('ftp://allowed.com/').code).toBe('FORBIDDEN');
    const e = refuse('https://evil:hunter2@allowed.com/');
    expect(e.message).toContain('user info');
    expect(e.message).not.toContain('hunter2');
    expect(refuse('https://evil@allowed.com/').code).toBe('FORBIDDEN');
  });

  it('returns the rule when allowed', () => {
    expect(assertUrlAllowed(new URL('https://Allowed.COM./a'), r).host).toBe('allowed.com');
    expect(hostLabel(new URL('http://[::1]:80/'))).toBe('[::1]');
  });
});
