import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { FullHttpSpecSchema, type FullHttpSpec } from '../../../../shared/model/http-spec';
import type { SecretResolver } from '../types';
import { assertSentBytes, buildRequest, isRetryable, Sensitive, sentBytes } from './request';

const SECRET = 'sk-DISTINCTIVE-9f8e7d6c';

function resolver(bound: Record<string, { value: string; host: string }> = { KEY: { value: SECRET, host: 'api.example.com' } }): SecretResolver & { asked: [string, string][] } {
  const asked: [string, string][] = [];
  return {
    asked,
    resolve(name, host) {
      asked.push([name, host]);
      const s = bound[name];
      if (!s) throw new AppError('NOT_FOUND', `no secret named '${name}'`);
      if (s.host !== host) throw new AppError('FORBIDDEN', `the secret '${name}' is not bound to '${host}'`);
      return s.value;
    },
    values: () => Object.values(bound).map((b) => b.value),
  };
}

const spec = (s: Partial<FullHttpSpec> & { urlTemplate: string }): FullHttpSpec => FullHttpSpecSchema.parse({ method: 'GET', ...s });
const decode = (b?: Uint8Array) => new TextDecoder().decode(b);

describe('buildRequest', () => {
  it('builds URL, query, headers and a default Accept', () => {
    const req = buildRequest(
      spec({ urlTemplate: 'https://api.example.com/users/${id}?fields=${f}', query: { lang: '${lang}' }, headers: { 'X-Trace': 't-${id}' } }),
      { id: 'a/b', f: 'x y', lang: 'fr' },
      resolver(),
      new Sensitive(),
    );
    expect(req).toMatchObject({ method: 'GET', url: 'https://api.example.com/users/a%2Fb?fields=x+y&lang=fr', hostname: 'api.example.com', headers: { 'X-Trace': 't-a/b', Accept: 'application/json' } });
    expect(req.body).toBeUndefined();
  });

  it('resolves secrets for the URL host and records them as sensitive', () => {
    const secrets = resolver();
    const sensitive = new Sensitive();
    const req = buildRequest(spec({ urlTemplate: 'https://API.example.com/k/${secret:KEY}', headers: { 'X-Key': '${secret:KEY}' } }), {}, secrets, sensitive);
    expect(secrets.asked).toEqual([
      ['KEY', 'api.example.com'],
      ['KEY', 'api.example.com'],
    ]);
    expect(sensitive.redact(`${req.url} ${JSON.stringify(req.headers)}`)).not.toContain(SECRET);
  });

  it('passes the resolver’s refusal on for a host the secret is not bound to', () => {
    expect(() => buildRequest(spec({ urlTemplate: 'https://other.example.com/${secret:KEY}' }), {}, resolver(), new Sensitive())).toThrowError(/not bound/);
  });

  it('json body: JSON value of a lone placeholder, Content-Type set', () => {
    const req = buildRequest(spec({ method: 'POST', urlTemplate: 'https://api.example.com/x', body: { kind: 'json', template: { q: '${q}', n: '${n}' } } }), { q: { deep: [1] }, n: 2 }, resolver(), new Sensitive());
    expect(JSON.parse(decode(req.body))).toEqual({ q: { deep: [1] }, n: 2 });
    expect(req.headers['Content-Type']).toBe('application/json');
  });

  it('text and form bodies', () => {
    const text = buildRequest(spec({ method: 'PUT', urlTemplate: 'https://api.example.com/x', body: { kind: 'text', template: 'hello ${who}', contentType: 'text/markdown' } }), { who: 'é' }, resolver(), new Sensitive());
    expect(decode(text.body)).toBe('hello é');
    expect(text.headers['Content-Type']).toBe('text/markdown');
    const form = buildRequest(spec({ method: 'POST', urlTemplate: 'https://api.example.com/x', body: { kind: 'form', fields: { a: '${a}', 'b c': 'lit' } } }), { a: 'x&y=z' }, resolver(), new Sensitive());
    expect(decode(form.body)).toBe('a=x%26y%3Dz&b+c=lit');
    expect(form.headers['Content-Type']).toBe('application/x-www-form-urlencoded');
  });

  it('keeps a Content-Type or Accept the tool sets itself', () => {
    const req = buildRequest(
      spec({ method: 'POST', urlTemplate: 'https://api.example.com/x', headers: { 'content-type': 'application/vnd.api+json', accept: '*/*' }, body: { kind: 'json', template: {} } }),
      {},
      resolver(),
      new Sensitive(),
    );
    expect(req.headers).toEqual({ 'content-type': 'application/vnd.api+json', accept: '*/*' });
  });

  it('sends Idempotency-Key and makes POST retryable only then', () => {
    const s = spec({ method: 'POST', urlTemplate: 'https://api.example.com/x', idempotencyKey: 'order-${id}' });
    expect(buildRequest(s, { id: 7 }, resolver(), new Sensitive()).headers['Idempotency-Key']).toBe('order-7');
    expect(isRetryable(s)).toBe(true);
    expect(isRetryable(spec({ method: 'POST', urlTemplate: 'https://a.example/' }))).toBe(false);
    expect(isRetryable(spec({ method: 'PUT', urlTemplate: 'https://a.example/' }))).toBe(true);
  });

  it('refuses reserved and invalid header names, and bodies on GET', () => {
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Bad Name', 'X\r\nY']) {
      expect(() => buildRequest(spec({ urlTemplate: 'https://a.example/', headers: { [name]: 'v' } }), {}, resolver(), new Sensitive())).toThrowError(AppError);
    }
    expect(() => buildRequest(spec({ urlTemplate: 'https://a.example/', body: { kind: 'text', template: 'x', contentType: 'text/plain' } }), {}, resolver(), new Sensitive())).toThrowError(/no body/);
  });

  it('refuses CRLF injection into headers through an argument', () => {
    expect(() => buildRequest(spec({ urlTemplate: 'https://a.example/', headers: { 'X-V': '${v}' } }), { v: 'x\r\nHost: evil' }, resolver(), new Sensitive())).toThrowError(/CR, LF or NUL/);
  });
});

describe('sent bytes', () => {
  it('counts request line, host, headers and body', () => {
    const req = { method: 'POST', url: 'http://h.example/p?q=1', headers: { a: 'b' }, body: new Uint8Array(10) };
    const expected = 'POST /p?q=1 HTTP/1.1\r\nhost: h.example\r\n'.length + 'a: b\r\n'.length + 'content-length: 10\r\n'.length + 10 + 2;
    expect(sentBytes(req)).toBe(expected);
    expect(assertSentBytes(req, expected)).toBe(expected);
    try {
      assertSentBytes(req, expected - 1);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).code).toBe('PAYLOAD_TOO_LARGE');
      expect((e as AppError).details).toMatchObject({ sentBytes: expected, limit: expected - 1 });
    }
  });
});

describe('Sensitive', () => {
  it('redacts a secret in every encoding we send it, after the app’s own redaction', () => {
    const s = new Sensitive((t) => t.replaceAll('app-known', '[redacted:X]'));
    s.add('p@ss w/rd"é');
    const forms = ['p@ss w/rd"é', encodeURIComponent('p@ss w/rd"é'), 'p%40ss+w%2Frd%22%C3%A9', JSON.stringify('p@ss w/rd"é').slice(1, -1), Buffer.from('p@ss w/rd"é').toString('base64')];
    for (const f of forms) expect(s.redact(`before ${f} after app-known`)).toBe('before [redacted] after [redacted:X]');
  });

  it('redacts sensitive headers whole and others by value', () => {
    const s = new Sensitive();
    s.add('tok123');
    s.addHeaderName('X-Api-Token');
    expect(s.redactHeaders({ Authorization: 'Basic abc', 'x-api-token': 'zzz', 'X-Other': 'has tok123' })).toEqual({ Authorization: '[redacted]', 'x-api-token': '[redacted]', 'X-Other': 'has [redacted]' });
  });
});

describe('optional parts, form styles and multipart', () => {
  it('an optional header not given is not sent; a JSON body that is only an optional placeholder sends no body', () => {
    const req = buildRequest(spec({ method: 'POST', urlTemplate: 'https://api.example.com/a', headers: { 'X-Opt': '${opt?}', 'X-Req': '${req}' }, body: { kind: 'json', template: '${body?}' } }), { req: 'r' }, resolver(), new Sensitive());
    expect(req.headers).not.toHaveProperty('X-Opt');
    expect(req.headers['X-Req']).toBe('r');
    expect(req.body).toBeUndefined();
    expect(req.headers).not.toHaveProperty('Content-Type');
  });

  it('form fields follow their style: deepObject nests as a[b][0][c]=v, form explodes arrays, optional fields left out', () => {
    const req = buildRequest(
      spec({
        method: 'POST',
        urlTemplate: 'https://api.example.com/v1/checkout/sessions',
        body: {
          kind: 'form',
          fields: { mode: '${mode}', line_items: '${line_items?}', expand: '${expand?}', metadata: '${metadata?}', events: '${events?}', plain: '${plain?}', csv: '${csv?}' },
          encoding: { line_items: { style: 'deepObject', explode: true }, expand: { style: 'deepObject', explode: true }, metadata: { style: 'deepObject', explode: true }, events: { style: 'form', explode: true }, csv: { style: 'form', explode: false } },
        },
      }),
      { mode: 'payment', line_items: [{ price: 'price_1', quantity: 2, adjustable_quantity: { enabled: true } }], expand: ['customer'], events: ['a', 'b'], plain: { x: 1 }, csv: ['x', 'y'] },
      resolver(),
      new Sensitive(),
    );
    expect(req.headers['Content-Type']).toBe('application/x-www-form-urlencoded');
    expect(decodeURIComponent(decode(req.body))).toBe(
      'mode=payment&line_items[0][price]=price_1&line_items[0][quantity]=2&line_items[0][adjustable_quantity][enabled]=true&expand[0]=customer&events=a&events=b&plain={"x":1}&csv=x,y',
    );
  });

  it('multipart: text fields, JSON fields and files (text or base64) that a real form-data parser reads back', async () => {
    const req = buildRequest(
      spec({
        method: 'POST',
        urlTemplate: 'https://api.example.com/files',
        body: { kind: 'multipart', fields: { purpose: '${purpose}', meta: '${meta}', file: '${file}', note: '${note?}', 'we"ird': '${w}' }, files: ['file'] },
      }),
      { purpose: 'fine-tune', meta: { a: 1 }, file: { base64: Buffer.from([0, 1, 2, 255]).toString('base64'), filename: 'data.bin', contentType: 'application/x-thing' }, w: 'q' },
      resolver(),
      new Sensitive(),
    );
    const type = req.headers['Content-Type']!;
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(req.body, { headers: { 'content-type': type } }).formData();
    expect(form.get('purpose')).toBe('fine-tune');
    expect(form.get('meta')).toBe('{"a":1}');
    expect(form.has('note')).toBe(false);
    expect(form.get('we"ird')).toBe('q');
    expect(new TextDecoder().decode(req.body)).toContain('name="we%22ird"');
    const file = form.get('file') as File;
    expect(file.name).toBe('data.bin');
    expect(file.type).toBe('application/x-thing');
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([0, 1, 2, 255]);
  });

  it('multipart: a file that is neither text nor { base64 } is refused clearly', () => {
    expect(() =>
      buildRequest(spec({ method: 'POST', urlTemplate: 'https://api.example.com/f', body: { kind: 'multipart', fields: { file: '${file}' }, files: ['file'] } }), { file: { data: 1 } }, resolver(), new Sensitive()),
    ).toThrow(/needs its bytes as base64/);
  });
});
