import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { CurlError, curlToTool, parseCurl, tokenizeShell, type CurlToolProposal } from './curl';
import { ToolPutBodySchema } from './tool';
import { labelViolation } from './validation';

function refusal(fn: () => unknown): CurlError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CurlError) return e;
    throw e;
  }
  throw new Error('expected a CurlError');
}

function proposal(line: string, slug?: string): CurlToolProposal {
  const p = curlToTool(parseCurl(line), slug === undefined ? {} : { slug });
  const checked = ToolPutBodySchema.safeParse(p.tool);
  expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
  return p;
}

describe('tokenizeShell', () => {
  it.each([
    [`curl 'https://x.com/a?b=1&c=2'`, ['curl', 'https://x.com/a?b=1&c=2']],
    [`curl "a\\"b" 'c"d' e\\ f`, ['curl', 'a"b', 'c"d', 'e f']],
    [`curl $'it\\'s\\n\\x41\\u00e9'`, ['curl', "it's\nAé"]],
    [`curl -H 'A: b' \\\n  --data '{"a":1}'`, ['curl', '-H', 'A: b', '--data', '{"a":1}']],
    [`curl -H 'A: b' \\\r\n  -v\r\n`, ['curl', '-H', 'A: b', '-v']],
    [`curl 'x'#not-a-comment`, ['curl', 'x#not-a-comment']],
    [`curl x # a comment`, ['curl', 'x']],
    [`curl "price: $ 5" 'a$b' a$`, ['curl', 'price: $ 5', 'a$b', 'a$']],
    [`curl ''`, ['curl', '']],
    [`curl "\\\`"`, ['curl', '`']],
    [`curl 'a'"b"c`, ['curl', 'abc']],
    [`curl x\n\n# trailing comment\n`, ['curl', 'x']],
  ])('reads %j', (line, words) => {
    expect(tokenizeShell(line)).toEqual(words);
  });

  it.each([
    ['curl $(whoami)', 'command substitution $(...)'],
    ['curl "https://x.com/$(id)"', 'command substitution $(...)'],
    ['curl `whoami`', 'backticks'],
    ['curl "`id`"', 'backticks'],
    ['curl https://x.com/$HOME', 'the variable $HOME'],
    ['curl "${TOKEN}"', 'the variable ${TOKEN}'],
    ['curl -H "Authorization: Bearer $TOKEN" https://x.com', 'the variable $TOKEN'],
    ['curl $1', 'the shell parameter $1'],
    ['curl $((1+2))', 'arithmetic expansion'],
    ['curl https://x.com; rm -rf /', "operator ';'"],
    ['curl https://x.com | sh', "operator '|'"],
    ['curl https://x.com && echo ok', "operator '&&'"],
    ['curl https://x.com > out.txt', "operator '>'"],
    ['curl https://x.com < in.txt', "operator '<'"],
    ['curl https://x.com 2>&1', "operator '>&'"],
    ['curl https://x.com &', "operator '&'"],
    ['curl <(echo x)', "operator '<('"],
    ['curl https://x.com/*', 'wildcard'],
    ['curl https://x.com/a?b=1', 'wildcard'],
    ['curl https://x.com/{a,b}', 'brace expansion'],
    ['curl ~/x', 'home folder'],
    ["curl 'unterminated", 'not closed'],
    ['curl "unterminated', 'not closed'],
    ["curl $'unterminated", 'not closed'],
    ['curl https://x.com\nrm -rf /', 'more than one command'],
    ['curl https://x.com\0', 'NUL'],
  ])('refuses %j', (line, what) => {
    expect(refusal(() => tokenizeShell(line)).message).toContain(what);
  });

  it('refuses a command that is too long, without reading it', () => {
    expect(refusal(() => tokenizeShell(`curl '${'a'.repeat(300 * 1024)}'`)).message).toMatch(/at most/);
  });
});

describe('parseCurl', () => {
  it('reads a GET with headers and flags that are ignored with a note', () => {
    const p = parseCurl(`curl -sSL -k --compressed 'https://API.Example.com/v1/items?limit=10' -H 'Accept: application/json'`);
    expect(p.method).toBe('GET');
    expect(p.url).toBe('https://api.example.com/v1/items?limit=10');
    expect(p.headers).toEqual([{ name: 'Accept', value: 'application/json' }]);
    expect(p.body).toBeUndefined();
    expect(p.notes.join('\n')).toMatch(/-s ignored[\s\S]*-k ignored: TLS certificates are always verified[\s\S]*--compressed ignored/);
  });

  it('joins several -d with & and makes the request a POST', () => {
    const p = parseCurl(`curl https://x.com/f -d a=1 --data 'b=2' --data-raw '@c' --data-urlencode 'q=hello world!'`);
    expect(p.method).toBe('POST');
    expect(p.body).toEqual({ text: 'a=1&b=2&@c&q=hello%20world%21', json: false });
  });

  it('reads --json (concatenated) and adds Content-Type and Accept', () => {
    const p = parseCurl(`curl --json '{"a":' --json '1}' https://x.com/j`);
    expect(p.body).toEqual({ text: '{"a":1}', json: true });
    expect(p.headers).toEqual([
      { name: 'Content-Type', value: 'application/json' },
      { name: 'Accept', value: 'application/json' },
    ]);
  });

  it('moves the data into the query with -G', () => {
    const p = parseCurl(`curl -G 'https://x.com/search?x=1' -d q=cats --data-urlencode 'n=a b'`);
    expect(p.method).toBe('GET');
    expect(p.url).toBe('https://x.com/search?x=1&q=cats&n=a%20b');
    expect(p.body).toBeUndefined();
  });

  it('reads clustered and attached short options, --url, -A, -e, -b, -I, -m, --retry', () => {
    const p = parseCurl(`curl -sXPUT -H'X-A: 1' -A agent/1 -e 'https://ref/;auto' -b 'a=1; b=2' -m 2.5 --retry 30 --max-redirs 3 --url https://x.com/r`);
    expect(p.method).toBe('PUT');
    expect(p.headers).toEqual([
      { name: 'X-A', value: '1' },
      { name: 'User-Agent', value: 'agent/1' },
      { name: 'Referer', value: 'https://ref/' },
      { name: 'Cookie', value: 'a=1; b=2' },
    ]);
    expect(p.timeoutMs).toBe(2500);
    expect(p.maxRetries).toBe(10);
    expect(p.maxRedirects).toBe(3);
    expect(parseCurl('curl -I https://x.com').method).toBe('HEAD');
  });

  it('returns -u credentials apart, and user info of the URL too', () => {
    expect(parseCurl('curl -u alice:s3cr:et https://x.com').credentials).toEqual({ username: 'alice', password: 's3cr:et' });
    const p = parseCurl('curl https://bob:p%40ss@x.com/a');
    expect(p.credentials).toEqual({ username: 'bob', password: 'p@ss' });
    expect(p.url).toBe('https://x.com/a');
    const noPass = parseCurl('curl -u carol https://x.com');
    expect(noPass.credentials).toEqual({ username: 'carol' });
    expect(noPass.notes.join()).toMatch(/no password/);
  });

  it('assumes https for a URL without a scheme and drops the fragment', () => {
    const p = parseCurl("curl 'x.com:8080/a#frag'");
    expect(p.url).toBe('https://x.com:8080/a');
    expect(p.notes.join('\n')).toMatch(/https:\/\/ was assumed[\s\S]*fragment/);
  });

  it.each([
    ['', 'paste a curl command'],
    ['wget https://x.com', 'must start with curl'],
    ['curl', 'no URL'],
    ['curl https://a.com https://b.com', 'one URL per tool'],
    ['curl --frobnicate https://x.com', "'--frobnicate' is unknown"],
    ['curl -Z https://x.com', "'-Z' is unknown"],
    ['curl -d @body.json https://x.com', 'reads a file'],
    ['curl --data-binary @body.bin https://x.com', 'reads a file'],
    ['curl --json @body.json https://x.com', 'reads a file'],
    ["curl --data-urlencode 'me@example.com' https://x.com", 'reads a file'],
    ['curl -b cookies.txt https://x.com', 'reads cookies from a file'],
    ['curl -F a=@f https://x.com', 'multipart forms'],
    ['curl -T f https://x.com', 'uploading a file'],
    ['curl -K cfg https://x.com', 'reads options from a file'],
    ['curl -x http://proxy:8080 https://x.com', 'proxies'],
    ['curl -X OPTIONS https://x.com', "method 'OPTIONS' is not supported"],
    ['curl -X GET -d a=1 https://x.com', 'Add -G'],
    ['curl -H', 'needs a value'],
    ["curl -H 'no colon here' https://x.com", 'is not a header'],
    ["curl -H 'Bad Name: x' https://x.com", 'not a valid header name'],
    ['curl ftp://x.com/file', 'only http and https'],
    ["curl 'file:///etc/passwd'", 'only http and https'],
    ["curl 'javascript:alert(1)'", 'not an http or https URL'],
    ["curl 'https://x.com/a[1-3]'", 'URL globbing'],
    ["curl 'https://exa mple.com/'", 'no valid host'],
    ["curl 'https://x.com:99999/'", 'out of range'],
    ['curl --json a -d b https://x.com', 'cannot be mixed'],
    ['curl -m soon https://x.com', 'needs a number'],
    ['curl - https://x.com', 'standard input'],
  ])('refuses %j', (line, what) => {
    expect(refusal(() => parseCurl(line)).message).toContain(what);
  });

  it('accepts URL globbing characters with -g', () => {
    expect(parseCurl("curl -g 'https://x.com/a[1]'").url).toBe('https://x.com/a[1]');
  });

  it('is a VALIDATION_FAILED AppError', () => {
    const e = refusal(() => parseCurl('curl $(whoami)'));
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('VALIDATION_FAILED');
  });
});

describe('curlToTool', () => {
  it('GET with a query: each parameter becomes an argument with its value as default', () => {
    const p = proposal(`curl 'https://api.example.com/v1/search?q=cats&limit=10&flag'`);
    expect(p.tool.http).toMatchObject({
      method: 'GET',
      urlTemplate: 'https://api.example.com/v1/search?flag',
      query: { q: '${q}', limit: '${limit}' },
      auth: { kind: 'none' },
      responseMode: 'json',
    });
    expect(p.tool.argSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string', description: "Query parameter 'q'.", default: 'cats' }, limit: { type: 'integer', description: "Query parameter 'limit'.", default: 10 } },
      additionalProperties: false,
    });
    expect(p.tool.outputSchema).toEqual({});
    expect(p.hostsProposal).toEqual(['api.example.com']);
    expect(p.secretsNeeded).toEqual([]);
    expect(p.suggestedSlug).toBe('get-v1-search');
  });

  it('id-like path segments become arguments', () => {
    const p = proposal('curl https://x.com/users/42/posts/0b0c5a7e-0f5d-4a47-9b3e-2b6f0c8e1d2a');
    expect(p.tool.http.urlTemplate).toBe('https://x.com/users/${userId}/posts/${postId}');
    expect(p.tool.argSchema.properties).toMatchObject({ userId: { type: 'integer', default: 42 }, postId: { type: 'string', default: '0b0c5a7e-0f5d-4a47-9b3e-2b6f0c8e1d2a' } });
    expect(p.tool.argSchema.required).toBeUndefined();
    expect(p.suggestedSlug).toBe('get-users-posts');
  });

  it('POST --json: top-level scalars become arguments with their JSON types and values, the rest stays literal', () => {
    const p = proposal(`curl --json '{"name":"Rex","age":3,"weight":4.5,"good":true,"tags":["a","\${x}"],"owner":{"id":1}}' https://pets.example.com/pets`);
    expect(p.tool.http.method).toBe('POST');
    expect(p.tool.http.body).toEqual({
      kind: 'json',
      template: { name: '${name}', age: '${age}', weight: '${weight}', good: '${good}', tags: ['a', '$${x}'], owner: { id: 1 } },
    });
    expect(p.tool.argSchema).toMatchObject({
      properties: { name: { type: 'string', default: 'Rex' }, age: { type: 'integer', default: 3 }, weight: { type: 'number', default: 4.5 }, good: { type: 'boolean', default: true } },
    });
    expect(p.tool.argSchema.required).toBeUndefined();
    // The backend sets Content-Type for a JSON body; Accept stays.
    expect(p.tool.http.headers).toEqual({ Accept: 'application/json' });
  });

  it('-d with JSON and no Content-Type is sent as JSON, with a note', () => {
    const p = proposal(`curl -X PATCH https://x.com/a -d '{"n":1}'`);
    expect(p.tool.http.body).toEqual({ kind: 'json', template: { n: '${n}' } });
    expect(p.notes.join()).toMatch(/sent as application\/json/);
  });

  it('a form body: fields become arguments, a password-like field a secret', () => {
    const p = proposal(`curl https://x.com/login -d 'user=al&password=hunter2'`);
    expect(p.tool.http.body).toEqual({ kind: 'form', fields: { user: '${user}', password: '${secret:X_PASSWORD}' } });
    expect(p.secretsNeeded).toEqual([{ name: 'X_PASSWORD', hosts: ['x.com'], reason: "the form field 'password'", value: 'hunter2' }]);
  });

  it('other bodies stay text with their Content-Type', () => {
    const p = proposal(`curl https://x.com/t -H 'Content-Type: text/csv' --data-binary 'a,b\n1,\${2}'`);
    expect(p.tool.http.body).toEqual({ kind: 'text', template: 'a,b\n1,$${2}', contentType: 'text/csv' });
  });

  it('Authorization: Bearer becomes bearer auth; the token goes to secretsNeeded only', () => {
    const line = `curl https://api.github.com/user -H 'Authorization: Bearer ghp_abc123' -H 'Accept: application/vnd.github+json'`;
    const p = proposal(line);
    expect(p.tool.http.auth).toEqual({ kind: 'bearer', secret: 'GITHUB_TOKEN' });
    expect(p.secretsNeeded).toEqual([{ name: 'GITHUB_TOKEN', hosts: ['api.github.com'], reason: expect.stringContaining('bearer'), value: 'ghp_abc123' }]);
    expect(JSON.stringify(p.tool)).not.toContain('ghp_abc123');
  });

  it('-u user:pass becomes basic auth; the password never enters the tool', () => {
    const p = proposal('curl -u alice:wonderland https://api.example.com:8443/me');
    expect(p.tool.http.auth).toEqual({ kind: 'basic', username: 'alice', passwordSecret: 'EXAMPLE_PASSWORD' });
    expect(p.secretsNeeded).toEqual([{ name: 'EXAMPLE_PASSWORD', hosts: ['api.example.com'], reason: expect.any(String), value: 'wonderland' }]);
    expect(p.hostsProposal).toEqual(['api.example.com:8443']);
    expect(JSON.stringify(p.tool)).not.toContain('wonderland');
  });

  it('Authorization: Basic is decoded into basic auth', () => {
    const p = proposal(`curl https://x.com -H 'Authorization: Basic ${btoa('bob:pa:ss')}'`);
    expect(p.tool.http.auth).toEqual({ kind: 'basic', username: 'bob', passwordSecret: 'X_PASSWORD' });
    expect(p.secretsNeeded[0]!.value).toBe('pa:ss');
  });

  it('an API key header, a key in the query and a cookie become secrets', () => {
    const p = proposal(`curl 'https://maps.example.org/geo?address=Paris&key=K123' -H 'X-Api-Key: H456' -b 'session=S789'`);
    expect(p.tool.http.auth).toEqual({ kind: 'apiKey', in: 'query', name: 'key', secret: 'EXAMPLE_API_KEY' });
    expect(p.tool.http.headers).toEqual({ 'X-Api-Key': '${secret:EXAMPLE_X_API_KEY}', Cookie: '${secret:EXAMPLE_COOKIE}' });
    expect(p.tool.http.query).toEqual({ address: '${address}' });
    expect(p.secretsNeeded.map((s) => s.value)).toEqual(['K123', 'H456', 'session=S789']);
    const text = JSON.stringify(p.tool);
    for (const v of ['K123', 'H456', 'S789']) expect(text).not.toContain(v);
  });

  it('other Authorization schemes keep the scheme and hide the credential', () => {
    const p = proposal(`curl https://x.com -H 'Authorization: Token abc'`);
    expect(p.tool.http.headers).toEqual({ Authorization: 'Token ${secret:X_AUTHORIZATION}' });
  });

  it('drops transport headers and empty ones with notes; -m, --retry and --max-redirs map to the spec', () => {
    const p = proposal(`curl -m 5 --retry 3 --max-redirs 1 https://x.com -H 'Host: evil' -H 'Content-Length: 3' -H 'Accept-Encoding: br' -H 'X-Empty:' -H 'sec-fetch-mode: cors' -H 'priority: u=1'`);
    expect(p.tool.http.headers).toEqual({});
    expect(p.tool.http.timeoutMs).toBe(5000);
    expect(p.tool.http.limits).toEqual({ maxRetries: 3, maxRedirects: 1 });
    expect(p.notes.join('\n')).toMatch(/'Host' was dropped[\s\S]*'Content-Length' was dropped[\s\S]*Accept-Encoding[\s\S]*empty header[\s\S]*only a browser sends were dropped: sec-fetch-mode, priority/);
  });

  it('a non-JSON Accept or HEAD answers as text', () => {
    expect(proposal(`curl https://x.com -H 'Accept: text/html'`).tool).toMatchObject({ http: { responseMode: 'text' }, outputSchema: { type: 'string' } });
    expect(proposal('curl -I https://x.com').tool.http.responseMode).toBe('text');
  });

  it('literal ${ in the URL and headers is escaped, never a placeholder', () => {
    const p = proposal(`curl -g 'https://x.com/a/\${b}?c=\${d}' -H 'X-T: \${e}'`);
    expect(p.tool.http.urlTemplate).toBe('https://x.com/a/$${b}');
    expect(p.tool.http.query).toEqual({ c: '${c}' });
    expect(p.tool.argSchema.properties).toMatchObject({ c: { type: 'string', default: '${d}' } });
    expect(p.tool.http.headers).toEqual({ 'X-T': '$${e}' });
  });

  it('two arguments or two secrets that would share a name are numbered apart', () => {
    const p = proposal(`curl 'https://api.example.com/users/42?userId=5' -H 'Authorization: Bearer abc' -d 'token=xyz'`);
    expect(Object.keys(p.tool.argSchema.properties ?? {})).toEqual(['userId', 'userId_2']);
    expect(p.tool.http.urlTemplate).toBe('https://api.example.com/users/${userId}');
    expect(p.tool.http.query).toEqual({ userId: '${userId_2}' });
    expect(p.secretsNeeded.map((s) => [s.name, s.value])).toEqual([
      ['EXAMPLE_TOKEN', 'abc'],
      ['EXAMPLE_TOKEN_2', 'xyz'],
    ]);
    expect(p.tool.http.body).toEqual({ kind: 'form', fields: { token: '${secret:EXAMPLE_TOKEN_2}' } });
  });

  // A saved tool could not keep a key named __proto__ (a record drops it): the command is refused, naming it.
  it('a query key, header or form field named __proto__ is refused by name, not dropped', () => {
    for (const cmd of [`curl 'https://x.com/a?__proto__=1&b=2'`, `curl https://x.com/a -H '__proto__: one'`, `curl https://x.com/a -d '__proto__=1&valueOf=2'`, `curl -u me:pw 'https://x.com/a?__proto__=sk_live_0123456789abcdefABCDEF'`]) {
      expect(refusal(() => curlToTool(parseCurl(cmd))).message, cmd).toMatch(/__proto__: '__proto__' cannot be used as a key/);
    }
  });

  // Checked through Object.entries: names Object.prototype has must stay plain keys.
  it('names Object.prototype has (constructor, toString, hasOwnProperty, valueOf) are kept and not numbered', () => {
    const q = proposal(`curl 'https://x.com/a?constructor=2&toString=x'`);
    expect(Object.entries(q.tool.http.query)).toEqual([
      ['constructor', '${constructor}'],
      ['toString', '${toString}'],
    ]);
    expect(Object.keys(q.tool.argSchema.properties ?? {})).toEqual(['constructor', 'toString']);
    expect(Object.getPrototypeOf(q.tool.argSchema.properties)).toBe(Object.prototype);
    const h = proposal(`curl https://x.com/a -H 'hasOwnProperty: one' -H 'hasOwnProperty: two'`);
    expect(Object.entries(h.tool.http.headers)).toEqual([['hasOwnProperty', 'one, two']]);
    const f = proposal(`curl https://x.com/a -d 'valueOf=2'`);
    expect(Object.entries((f.tool.http.body as { fields: Record<string, string> }).fields)).toEqual([['valueOf', '${valueOf}']]);
  });

  it('takes the slug given, and refuses one that breaks the slug rule', () => {
    expect(proposal('curl https://x.com/a', 'my-tool').suggestedSlug).toBe('my-tool');
    expect(refusal(() => curlToTool(parseCurl('curl https://x.com/a'), { slug: 'bad slug' })).message).toMatch(/slug may contain/);
  });

  it('a header value with a non-ASCII character is refused clearly', () => {
    expect(refusal(() => curlToTool(parseCurl(`curl https://x.com -H 'X-N: é'`))).message).toMatch(/non-ASCII/);
  });
});

describe('curlToTool: the values of the command are kept', () => {
  const props = (p: CurlToolProposal) => p.tool.argSchema.properties as Record<string, Record<string, unknown>>;

  it('keeps each query value as the default, typed from the value, and no argument is required', () => {
    const p = proposal(`curl 'https://api.example.com/forecast?city=Oslo&days=2&metric=true&ratio=0.75&empty='`);
    expect(p.tool.http.query).toEqual({ city: '${city}', days: '${days}', metric: '${metric}', ratio: '${ratio}', empty: '${empty}' });
    expect(props(p)).toEqual({
      city: { type: 'string', description: "Query parameter 'city'.", default: 'Oslo' },
      days: { type: 'integer', description: "Query parameter 'days'.", default: 2 },
      metric: { type: 'boolean', description: "Query parameter 'metric'.", default: true },
      ratio: { type: 'number', description: "Query parameter 'ratio'.", default: 0.75 },
      empty: { type: 'string', description: "Query parameter 'empty'.", default: '' },
    });
    expect(p.tool.argSchema).not.toHaveProperty('required');
  });

  it.each([
    ['007', '007'],
    ['0', 0],
    ['-12', -12],
    ['-0', '-0'],
    ['123456789', 123456789],
    ['1234567890', '1234567890'],
    ['4791234567', '4791234567'],
    ['12345678901234567890', '12345678901234567890'],
    ['+4791234567', '+4791234567'],
    ['1.0', '1.0'],
    ['2.50', '2.50'],
    ['59.9139', 59.9139],
    ['1e3', '1e3'],
    ['.5', '.5'],
    ['True', 'True'],
    ['false', false],
    ['0x1f', '0x1f'],
  ])('a query value %j is kept as %j', (text, expected) => {
    const p = proposal(`curl 'https://x.com/a?v=${text.replace('+', '%2B')}'`);
    expect(props(p).v!.default).toEqual(expected);
    expect(props(p).v!.type).toBe(typeof expected === 'string' ? 'string' : typeof expected === 'boolean' ? 'boolean' : Number.isInteger(expected) ? 'integer' : 'number');
  });

  it('path segments and form fields keep their values as typed defaults too', () => {
    const p = proposal(`curl https://x.com/users/42/orders/000123 -d 'qty=3&gift=false&note=hi'`);
    expect(props(p)).toMatchObject({
      userId: { type: 'integer', default: 42 },
      orderId: { type: 'string', default: '000123' },
      qty: { type: 'integer', default: 3 },
      gift: { type: 'boolean', default: false },
      note: { type: 'string', default: 'hi' },
    });
    expect(p.tool.argSchema).not.toHaveProperty('required');
  });

  it('-G data moved into the query is typed as well', () => {
    const p = proposal(`curl -G https://x.com/search -d q=cats -d page=2`);
    expect(props(p)).toMatchObject({ q: { type: 'string', default: 'cats' }, page: { type: 'integer', default: 2 } });
  });

  it("a nested field named 'key' names a thing and stays as it is (Jira's project key)", () => {
    const p = proposal(`curl https://x.atlassian.net/rest/api/3/issue --json '{"fields":{"project":{"key":"PROJ"},"summary":"Hi"}}'`);
    expect(p.tool.http.body).toEqual({ kind: 'json', template: { fields: { project: { key: 'PROJ' }, summary: 'Hi' } } });
    expect(p.secretsNeeded).toEqual([]);
  });

  it('a JSON string that holds digits stays a string (the JSON type decides)', () => {
    const p = proposal(`curl --json '{"zip":"0150","count":2}' https://x.com/a`);
    expect(props(p)).toMatchObject({ zip: { type: 'string', default: '0150' }, count: { type: 'integer', default: 2 } });
  });

  it('secrets never become defaults: they stay secrets, and their values stay out of the tool', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl';
    const line = [
      `curl 'https://api.example.com/v1/items/7?appid=OWM123&access_key=AK456&q=x&session=${jwt}'`,
      `-H 'Authorization: Bearer tok789'`,
      `-H 'X-Trace: ghp_abcdefghijklmnopqrstuvwx12'`,
      `--json '{"title":"t","api_token":"AT000","nested":{"password":"PW111","keep":"k"},"list":["sk-abcdefghijklmnopqrstuv"]}'`,
    ].join(' ');
    const p = proposal(line);
    // OpenWeatherMap's appid is an API key; the bearer token, coming second, a secret header value.
    expect(p.tool.http.auth).toEqual({ kind: 'apiKey', in: 'query', name: 'appid', secret: 'EXAMPLE_API_KEY' });
    expect(p.tool.http.query).toEqual({ access_key: '${secret:EXAMPLE_ACCESS_KEY}', q: '${q}', session: '${secret:EXAMPLE_SESSION}' });
    expect(p.tool.http.headers).toMatchObject({ Authorization: 'Bearer ${secret:EXAMPLE_AUTHORIZATION}', 'X-Trace': '${secret:EXAMPLE_X_TRACE}' });
    expect(p.tool.http.body).toEqual({
      kind: 'json',
      template: { title: '${title}', api_token: '${secret:EXAMPLE_API_TOKEN}', nested: { password: '${secret:EXAMPLE_PASSWORD}', keep: 'k' }, list: ['${secret:EXAMPLE_VALUE}'] },
    });
    expect(Object.keys(props(p)).sort()).toEqual(['itemId', 'q', 'title']);
    const text = JSON.stringify(p.tool);
    for (const v of ['OWM123', 'AK456', jwt, 'tok789', 'ghp_abcdefghijklmnopqrstuvwx12', 'AT000', 'PW111', 'sk-abcdefghijklmnopqrstuv']) {
      expect(text).not.toContain(v);
      expect(p.secretsNeeded.map((x) => x.value)).toContain(v);
    }
  });
});

describe('curlToTool: credentials under longer names and as numbers', () => {
  const props = (p: CurlToolProposal) => p.tool.argSchema.properties as Record<string, Record<string, unknown>>;
  it('a number under a credential name, and names such as user_password, pwd, passphrase, private_key, are secrets, never defaults', () => {
    const line = `curl https://api.example.com/login --json '{"user":"ada","password":123456,"user_password":"UP222","pwd":"PWD333","passphrase":"PP444","private_key":"PK555","page_token":"next-1","deep":{"pin_password":987654}}'`;
    const p = proposal(line);
    const text = JSON.stringify(p.tool);
    for (const v of ['123456', 'UP222', 'PWD333', 'PP444', 'PK555', '987654']) {
      expect(text).not.toContain(v);
      expect(p.secretsNeeded.map((x) => x.value)).toContain(v);
    }
    // A pagination cursor is an ordinary argument, with its default.
    expect(props(p).page_token).toMatchObject({ type: 'string', default: 'next-1' });
    expect(props(p).user).toMatchObject({ default: 'ada' });
  });
});

describe('property: any text', () => {
  const shellish = fc.string({ unit: fc.constantFrom('curl', ' ', '-', 'H', 'd', 'X', 'u', "'", '"', '\\', '$', '(', ')', '`', '|', ';', '&', '{', '}', ',', '\n', 'a', ':', '/', 'https://x.com', '?', '=', '#', '@', '~', '*', '[', ']', '%', '\u00e9', '\0'), maxLength: 40 });

  it('parseCurl and curlToTool either give a valid tool or throw a CurlError with a message', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), shellish, shellish.map((s) => `curl ${s}`), shellish.map((s) => `curl https://x.com/${s}`)), (line) => {
        let result: CurlToolProposal;
        try {
          result = curlToTool(parseCurl(line));
        } catch (e) {
          expect(e).toBeInstanceOf(CurlError);
          expect((e as Error).message.length).toBeGreaterThan(0);
          return;
        }
        expect(ToolPutBodySchema.safeParse(result.tool).success).toBe(true);
        expect(labelViolation('slug', result.suggestedSlug)).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });

  it('never lets a substitution through: a line with an unquoted $( or ` is refused', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.constantFrom('$(id)', '`id`', '$HOME', '${X}'), fc.string({ maxLength: 30 }), (a, sub, b) => {
        const clean = (s: string) => s.replace(/['"\\$`#\n]/g, '');
        expect(() => parseCurl(`curl https://x.com/${clean(a)} ${sub} ${clean(b)}`)).toThrow(CurlError);
      }),
    );
  });
});
