import { describe, expect, it } from 'vitest';
import { hostMatches, normaliseBinding, normaliseRequestHost } from './hosts';

const bind = (h: string) => {
  const r = normaliseBinding(h);
  if (!r.ok) throw new Error(r.violation.message);
  return r.host;
};

describe('secret host bindings', () => {
  it('normalises: lowercase, trailing dot removed, IPv6 kept in brackets', () => {
    expect(bind('API.Example.COM.')).toBe('api.example.com');
    expect(bind('*.Example.com')).toBe('*.example.com');
    expect(bind('[::1]')).toBe('[::1]');
    expect(bind('10.0.0.1')).toBe('10.0.0.1');
  });

  it('refuses ports, paths, schemes, bare and too-broad wildcards, empty labels', () => {
    for (const h of ['a.com:443', '[::1]:8080', 'https://a.com', 'a.com/x', '*', '*.com', 'a..com', '.a.com', '*.*.a.com', '', 'a b']) {
      expect(normaliseBinding(h).ok, h).toBe(false);
    }
    expect(normaliseBinding(42).ok).toBe(false);
  });

  it('matches exactly, or *. on a label boundary with at least one label in front', () => {
    const w = bind('*.example.com');
    expect(hostMatches(w, 'api.example.com')).toBe(true);
    expect(hostMatches(w, 'a.b.example.com')).toBe(true);
    for (const h of ['example.com', 'example.com.evil.com', 'badexample.com', '.example.com', 'a..example.com', 'evil.com', '']) {
      expect(hostMatches(w, normaliseRequestHost(h)), h).toBe(false);
    }
    expect(hostMatches('api.example.com', 'api.example.com')).toBe(true);
    expect(hostMatches('api.example.com', 'x.api.example.com')).toBe(false);
    expect(hostMatches('api.example.com', 'api.example.com:443')).toBe(false);
  });

  it('normalises request hosts the same way', () => {
    expect(normaliseRequestHost('API.example.com.')).toBe('api.example.com');
    expect(normaliseRequestHost('::1')).toBe('[::1]');
    expect(normaliseRequestHost('[::1]')).toBe('[::1]');
  });
});

describe('a binding written with the private: mark', () => {
  it('is refused with a message that says what to write instead', () => {
    const r = normaliseBinding('private:nas.lan');
    expect(r).toMatchObject({ ok: false, violation: { rule: 'private' } });
    expect(!r.ok && r.violation.message).toContain("write 'nas.lan'");
  });
});
