import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import {
  MAX_HEADER_VALUE_BYTES,
  MAX_URL_BYTES,
  renderHeaderValue,
  renderJson,
  renderPath,
  renderText,
  renderUrl,
  renderUrlQuery,
  templateOrigin,
  type RenderEnv,
} from './template';

const env = (args: Record<string, unknown>, secrets: Record<string, string> = {}): RenderEnv => ({
  args,
  secret: (name) => {
    const v = secrets[name];
    if (v === undefined) throw new AppError('NOT_FOUND', `no secret named '${name}'`);
    return v;
  },
});

function refused(fn: () => unknown, code = 'VALIDATION_FAILED'): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe(code);
    return e as AppError;
  }
  throw new Error('expected a refusal');
}

describe('path segments', () => {
  it('encodes each value with encodeURIComponent, keeping literal text as written', () => {
    expect(renderPath('/users/${id}/posts', env({ id: 'a b/c?d#e' })).path).toBe('/users/a%20b%2Fc%3Fd%23e/posts');
    expect(renderPath('/v1/u-${id}.json', env({ id: 42 })).path).toBe('/v1/u-42.json');
    expect(renderPath('/x/${flag}', env({ flag: true })).path).toBe('/x/true');
  });

  it("refuses empty, '.', '..' and values that decode to them, naming the placeholder but not the value", () => {
    for (const bad of ['', '.', '..', '%2e%2e', '%2E.', '%252e%252e', '..%2f', 'a/../b', '..\\x', '%2e%2e%2fadmin']) {
      const e = refused(() => renderPath('/files/${name}', env({ name: bad })));
      expect(e.message).toContain('${name}');
      if (bad.length > 3) expect(e.message).not.toContain(bad);
    }
  });

  it('refuses a segment that becomes a dot segment or empty with its literal text', () => {
    refused(() => renderPath('/a/.${x}/b', env({ x: '.' })));
    refused(() => renderPath('/a/%2e${x}/b', env({ x: '.' })));
  });

  it('refuses CR, LF and NUL, also percent-encoded', () => {
    for (const bad of ['a\r\nb', 'a\0', '%0d%0aX-Evil: 1', '%00']) refused(() => renderPath('/p/${v}', env({ v: bad })));
  });

  it('refuses objects, arrays and null in URL parts', () => {
    refused(() => renderPath('/p/${v}', env({ v: { a: 1 } })));
    refused(() => renderPath('/p/${v}', env({ v: [1] })));
    refused(() => renderPath('/p/${v}', env({ v: null })));
  });

  it('names a missing argument or path', () => {
    expect(refused(() => renderPath('/p/${user.id}', env({ user: {} }))).message).toContain('${user.id}');
    refused(() => renderPath('/p/${user.id}', env({})));
    // Prototype properties are not arguments.
    refused(() => renderPath('/p/${constructor}', env({})));
    refused(() => renderPath('/p/${a.toString}', env({ a: {} })));
  });

  it('follows dotted paths, array indexes included', () => {
    expect(renderPath('/p/${user.tags.1}', env({ user: { tags: ['a', 'b'] } })).path).toBe('/p/b');
  });

  it('refuses lone surrogates', () => {
    refused(() => renderPath('/p/${v}', env({ v: 'a\uD800' })));
  });
});

describe('query values', () => {
  it('form-encodes values in the URL template and keeps literals', () => {
    expect(renderUrlQuery('q=${q}&lang=en', env({ q: 'a b&c=d?#' }))).toBe('q=a+b%26c%3Dd%3F%23&lang=en');
  });

  it('refuses placeholders in keys', () => {
    refused(() => renderUrlQuery('${k}=1', env({ k: 'x' })));
    refused(() => renderUrlQuery('${k}', env({ k: 'x' })));
  });

  it('renderUrl adds the query map, form-encoded, and drops the fragment', () => {
    const url = renderUrl('https://api.example.com/s?x=1#frag', { q: 'a b', 'k&y': '${v}' }, env({ v: 'c/d' }));
    expect(url).toBe('https://api.example.com/s?x=1&q=a+b&k%26y=c%2Fd');
  });
});

describe('headers', () => {
  it('interpolates and accepts printable ASCII', () => {
    expect(renderHeaderValue('X-User', 'id=${id}; v=${v}', env({ id: 7, v: 'ok' }))).toBe('id=7; v=ok');
  });

  it('refuses CR, LF, NUL, other controls and non-ASCII', () => {
    for (const bad of ['a\r\nX-Evil: 1', 'a\nb', 'a\0b', 'a\x07', 'é']) {
      const e = refused(() => renderHeaderValue('X-V', '${v}', env({ v: bad })));
      expect(e.message).not.toContain(bad);
    }
  });

  it('refuses over-long values', () => {
    refused(() => renderHeaderValue('X-V', '${v}', env({ v: 'a'.repeat(MAX_HEADER_VALUE_BYTES + 1) })));
  });
});

describe('bodies', () => {
  it('json: a lone placeholder takes the JSON value, other strings interpolate, keys stay literal', () => {
    const out = renderJson({ user: '${user}', n: '${n}', greeting: 'hi ${user.name}!', list: ['${n}', 'x'], '${k}': 1, lit: 3 }, env({ user: { name: 'Ann', age: 3 }, n: 5 }));
    expect(out).toEqual({ user: { name: 'Ann', age: 3 }, n: 5, greeting: 'hi Ann!', list: [5, 'x'], '${k}': 1, lit: 3 });
  });

  it('json: secrets stay strings, $${ writes a literal', () => {
    expect(renderJson({ k: '${secret:KEY}', lit: '$${x}' }, env({}, { KEY: 'v' }))).toEqual({ k: 'v', lit: '${x}' });
  });

  it('json: does not let an argument named __proto__ reach the prototype', () => {
    const out = renderJson(JSON.parse('{"__proto__": "${v}"}'), env({ v: { polluted: true } })) as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('text: objects are written as JSON, CR/LF kept', () => {
    expect(renderText('a=${a}\nb=${b}', env({ a: { x: 1 }, b: 'two\r\nlines' }), 'f')).toBe('a={"x":1}\nb=two\r\nlines');
  });
});

describe('renderUrl', () => {
  it('never lets a placeholder reach the authority (the template is refused)', () => {
    refused(() => templateOrigin('https://${host}/x'));
    refused(() => templateOrigin('https://api.example.com:${port}/x'));
    refused(() => templateOrigin('https://user:pw@api.example.com/x'));
    refused(() => templateOrigin('ftp://api.example.com/x'));
  });

  it('gives the host secrets are resolved for: lowercase, no port, no trailing dot', () => {
    expect(templateOrigin('https://API.Example.COM.:8443/x').hostname).toBe('api.example.com');
    expect(templateOrigin('http://127.0.0.1:9/x').hostname).toBe('127.0.0.1');
  });

  it('refuses URLs over the limit with PAYLOAD_TOO_LARGE', () => {
    refused(() => renderUrl('https://a.example/p/${v}', {}, env({ v: 'x'.repeat(MAX_URL_BYTES) })), 'PAYLOAD_TOO_LARGE');
    refused(() => renderUrl('https://a.example/p?q=${v}', {}, env({ v: 'x'.repeat(100 * 1024) })), 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a template whose literal path the URL parser would reshape', () => {
    refused(() => renderUrl('https://a.example/a/../${v}', {}, env({ v: 'b' })));
    refused(() => renderUrl('https://a.example/a\\${v}', {}, env({ v: 'b' })));
  });

  it('resolves secrets and encodes them like any value', () => {
    expect(renderUrl('https://a.example/k/${secret:K}?t=${secret:K}', {}, env({}, { K: 's/e c' }))).toBe('https://a.example/k/s%2Fe%20c?t=s%2Fe+c');
  });
});

describe('property: no value can change the host or add a path segment', () => {
  // Strings rich in the characters that matter, plus anything at all.
  const nasty = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: fc.constantFrom('.', '/', '\\', '%', '2', 'e', 'E', 'f', '?', '#', '@', ':', '&', '=', '+', ' ', '\r', '\n', '\0', '[', ']', 'a', '\u3002', '\uFF0E', '\uFF0F') }),
    fc.constantFrom('..', '.', '', '%2e%2e', '%2E%2e', '%252e%252e', 'a/b', '?#', '\r\n', '\0', '//evil.example', '@evil.example', '\\\\evil.example', '..;', '%2f'),
  );

  it('path and query: the URL keeps its origin and segment count, and each value round-trips', () => {
    fc.assert(
      fc.property(nasty, nasty, (a, b) => {
        let url: string;
        try {
          url = renderUrl('https://api.example.com:8443/x/${a}/y?q=${b}&z=1', { r: '${a}' }, env({ a, b }));
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
          expect(['VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE']).toContain((e as AppError).code);
          return;
        }
        const u = new URL(url);
        expect(u.origin).toBe('https://api.example.com:8443');
        expect(u.username + u.password + u.hash).toBe('');
        const segs = u.pathname.split('/');
        expect(segs).toHaveLength(4);
        expect(segs[1]).toBe('x');
        expect(segs[3]).toBe('y');
        expect(decodeURIComponent(segs[2]!)).toBe(a);
        expect(u.searchParams.get('q')).toBe(b);
        expect(u.searchParams.get('r')).toBe(a);
        expect(u.searchParams.get('z')).toBe('1');
        expect([...u.searchParams.keys()]).toEqual(['q', 'z', 'r']);
      }),
      { numRuns: 3000 },
    );
  });

  it('headers: a rendered value never holds CR, LF or NUL', () => {
    fc.assert(
      fc.property(nasty, (v) => {
        try {
          const out = renderHeaderValue('X-V', 'pre ${v}', env({ v }));
          expect(out).not.toMatch(/[\r\n\0]/);
        } catch (e) {
          expect((e as AppError).code).toBe('VALIDATION_FAILED');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('optional placeholders (${name?})', () => {
  it('a query pair or inline query pair holding one that was not given (or null) is left out', () => {
    const q = { limit: '${limit?}', status: '${status}' };
    expect(renderUrl('https://api.example.com/pets?sort=${sort?}&x=1', q, env({ status: 'sold' }))).toBe('https://api.example.com/pets?x=1&status=sold');
    expect(renderUrl('https://api.example.com/pets', q, env({ status: 'sold', limit: null }))).toBe('https://api.example.com/pets?status=sold');
    expect(renderUrl('https://api.example.com/pets?sort=${sort?}', q, env({ status: 'sold', limit: 0, sort: 'name' }))).toBe('https://api.example.com/pets?sort=name&limit=0&status=sold');
  });

  it('a required placeholder not given is still refused, naming it', () => {
    expect(refused(() => renderUrl('https://api.example.com/pets', { status: '${status}' }, env({}))).message).toMatch(/\$\{status\} names an argument that was not given/);
  });

  it('in a JSON body, the property or array item is left out; a given null stays', () => {
    const template = { data: { name: '${name}', notes: '${notes?}', tags: ['${tag?}', 'fixed'], due: 'on ${due?}', parent: '${parent?}' } };
    expect(renderJson(template, env({ name: 'n', parent: null }))).toEqual({ data: { name: 'n', tags: ['fixed'], parent: null } });
    expect(renderJson(template, env({ name: 'n', notes: 'x', tag: 't', due: 'monday' }))).toEqual({ data: { name: 'n', notes: 'x', tags: ['t', 'fixed'], due: 'on monday' } });
    expect(renderJson('${body?}', env({}))).toBeUndefined();
  });

  it('in a text body it renders as an empty string', () => {
    expect(renderText('a${x?}b', env({}), 'http.body.template')).toBe('ab');
  });

  it('a dotted optional path is missing when any step is missing', () => {
    expect(renderUrl('https://api.example.com/', { q: '${filter.name?}' }, env({ filter: {} }))).toBe('https://api.example.com/');
    expect(renderUrl('https://api.example.com/', { q: '${filter.name?}' }, env({ filter: { name: 'a' } }))).toBe('https://api.example.com/?q=a');
  });
});

describe('server variables in the URL', () => {
  it('a host that still holds {var} is refused with a message naming it', () => {
    const e = refused(() => templateOrigin('https://{your-domain}.atlassian.net/rest/api/3/${id}'));
    expect(e.message).toMatch(/server variable \{your-domain\}.*fill it in/);
  });

  it('braces in a query value are not server variables', () => {
    expect(renderUrl('https://api.example.com/graphql?q={viewer}', {}, env({}))).toBe('https://api.example.com/graphql?q={viewer}');
  });
});

describe('query parameters with a style (queryEncoding)', () => {
  it('writes arrays and objects as deepObject, exploded or joined; optional ones not given are left out', () => {
    const query = { expand: '${expand?}', created: '${created?}', opt_fields: '${opt_fields?}', ids: '${ids?}', skip: '${skip?}' };
    const enc = {
      expand: { style: 'deepObject', explode: true },
      created: { style: 'deepObject', explode: true },
      opt_fields: { style: 'form', explode: false },
      ids: { style: 'form', explode: true },
      skip: { style: 'form', explode: true },
    } as const;
    const url = renderUrl('https://api.example.com/v1/charges', query, env({ expand: ['customer', 'invoice'], created: { gte: 5 }, opt_fields: ['name', 'notes'], ids: [1, 2] }), enc);
    expect(decodeURIComponent(url)).toBe('https://api.example.com/v1/charges?expand[0]=customer&expand[1]=invoice&created[gte]=5&opt_fields=name,notes&ids=1&ids=2');
  });

  it('refuses CR or LF inside a styled value, naming the placeholder', () => {
    expect(refused(() => renderUrl('https://api.example.com/', { tags: '${tags}' }, env({ tags: ['a\r\nb'] }), { tags: { style: 'form', explode: true } })).message).toMatch(/\$\{tags\}/);
  });
});
