/**
 * The REST API under /tools, tools side: tool versions, lists, search and invoke, over
 * real HTTP on 127.0.0.1 (docs/design/registry.md: routes and behavioural rules).
 */
import { v7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { localToolBody } from '../../core/bundles/testing/fixtures';
import { useRestHost, type Reply } from '../testing/rest-host';

const FILES = '01941f29-7c00-7445-bfe3-19d44c6cadc8';
const MATH = '01941f29-7c0f-7ad2-912a-3744428a5066';

const startHost = useRestHost();

/** A core and its host with the REST routes, `api()` to call it as a script would, and `newBundle()`. */
async function start() {
  // The test tools' function: registered like a built-in.
  const { core, api } = await startHost(undefined, (c) => c.functions.register('test.echo', async (_ctx, args) => String(args.text)));
  /** A new user bundle; returns its id. */
  const newBundle = async (over: Record<string, unknown> = {}): Promise<string> => {
    const id = v7();
    const r = await api('PUT', `/tools/bundles/${id}`, { slug: 'demo', displayName: 'Demo', isEnabled: true, description: '', ...over });
    expect(r.status).toBe(200);
    return id;
  };
  return { core, api, newBundle };
}

const toolPath = (bundleId: string, slug: string, version: string) =>
  `/tools/bundles/${bundleId}/tools/${encodeURIComponent(slug)}/version/${encodeURIComponent(version)}`;

const localTool = localToolBody;

const httpTool = (urlTemplate: string) => ({ ...localTool(), local: undefined, type: 'http', http: { method: 'GET', urlTemplate } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ids = (r: Reply): string[] => r.body.value.items.map((t: { id: string }) => t.id);

describe('REST /tools: tool versions', () => {
  it('PUT creates a version (201), GET reads it back', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const put = await api('PUT', toolPath(b, 'echo', '1.0.0'), localTool());
    expect(put.status).toBe(201);
    const tool = put.body.value;
    expect(tool).toMatchObject({ bundleId: b, slug: 'echo', version: '1.0.0', displayName: 'Echo', tags: ['test'], type: 'local', isEnabled: true, isBuiltIn: false });
    expect(tool.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tool.modifiedAt).toBe(tool.createdAt);
    expect(await api('GET', toolPath(b, 'echo', '1.0.0'))).toMatchObject({ status: 200, body: { ok: true, value: tool } });
    const http = await api('PUT', toolPath(b, 'fetch', '1'), httpTool('https://api.example.com/items/${id}'));
    expect(http.status).toBe(201);
    expect(http.body.value.http).toMatchObject({ method: 'GET', urlTemplate: 'https://api.example.com/items/${id}', query: {}, timeoutMs: 30000 });
  });

  it('PUT of an existing <slug,version> is 409 and leaves the stored tool unchanged; other versions and bundles are fine', async () => {
    const { api, newBundle } = await start();
    const [a, b] = [await newBundle(), await newBundle()];
    const first = (await api('PUT', toolPath(a, 'echo', '1'), localTool())).body.value;
    const again = await api('PUT', toolPath(a, 'echo', '1'), localTool({ displayName: 'Changed', tags: [] }));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { bundleId: a, slug: 'echo', version: '1', rule: 'exists' } });
    expect(again.body.error.message).toContain('already exists');
    expect((await api('GET', toolPath(a, 'echo', '1'))).body.value).toEqual(first);
    expect((await api('PUT', toolPath(a, 'echo', '2'), localTool())).status).toBe(201);
    expect((await api('PUT', toolPath(b, 'echo', '1'), localTool())).status).toBe(201);
  });

  it('slug and version: letters, digits and "-" (dot in version only), at most 64, case-sensitive, compared after NFC', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const refused: [string, string, string][] = [
      ['read_file', '1', 'slug'],
      ['read file', '1', 'slug'],
      ['read/file', '1', 'slug'],
      ['read.file', '1', 'slug'],
      ['a'.repeat(65), '1', 'slug'],
      ['echo', 'v_1', 'version'],
      ['echo', '1 2', 'version'],
      ['echo', '...', 'version'],
    ];
    for (const [slug, version, field] of refused) {
      const r = await api('PUT', toolPath(b, slug, version), localTool());
      expect([r.status, r.body.error.code], `${slug} ${version}`).toEqual([400, 'VALIDATION_FAILED']);
      expect(r.body.error.message.startsWith(`${field} `), r.body.error.message).toBe(true);
      expect(r.body.error.details.field).toBe(field);
    }
    expect((await api('PUT', toolPath(b, 'a'.repeat(64), '1'), localTool())).status).toBe(201);
    expect((await api('PUT', toolPath(b, 'Ünïcode-1', 'v1.2.3-beta'), localTool())).status).toBe(201);
    // Case-sensitive: two tools.
    expect((await api('PUT', toolPath(b, 'Echo', '1'), localTool())).status).toBe(201);
    expect((await api('PUT', toolPath(b, 'echo', '1'), localTool())).status).toBe(201);
    // NFC: e + U+0301 is the same slug as U+00E9.
    const decomposed = await api('PUT', toolPath(b, 'cafe\u0301', '1'), localTool());
    expect([decomposed.status, decomposed.body.value.slug]).toEqual([201, 'caf\u00e9']);
    expect((await api('GET', toolPath(b, 'caf\u00e9', '1'))).body.value.id).toBe(decomposed.body.value.id);
    expect((await api('PUT', toolPath(b, 'caf\u00e9', '1'), localTool())).status).toBe(409);
    const badEscape = await api('GET', `/tools/bundles/${b}/tools/%E0%A4%A/version/1`);
    expect(badEscape.status).toBe(400);
  });

  it('refuses a schema that does not compile, an http urlTemplate that is not http(s), and a back-end of the wrong type', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const badSchema = await api('PUT', toolPath(b, 'x', '1'), localTool({ argSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }));
    expect([badSchema.status, badSchema.body.error.details]).toEqual([400, { field: 'argSchema', rule: 'json-schema' }]);
    expect(badSchema.body.error.message).toMatch(/^argSchema is not a valid JSON Schema 2020-12/);
    const notObject = await api('PUT', toolPath(b, 'x', '1'), localTool({ argSchema: { type: 'array' } }));
    expect(notObject.status).toBe(400);
    expect(notObject.body.error.message).toContain('argSchema must describe an object');
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'example.com']) {
      const r = await api('PUT', toolPath(b, 'x', '1'), httpTool(url));
      expect(r.status, url).toBe(400);
      expect(r.body.error.message).toContain('urlTemplate must start with http:// or https://');
    }
    const mismatch = await api('PUT', toolPath(b, 'x', '1'), localTool({ type: 'http' }));
    expect(mismatch.status).toBe(400);
    expect((await api('GET', toolPath(b, 'x', '1'))).status).toBe(404);
    const noBundle = await api('PUT', toolPath(v7(), 'x', '1'), localTool());
    expect([noBundle.status, noBundle.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('PATCH changes isEnabled only (modifiedAt untouched); any other field is 400', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const first = (await api('PUT', toolPath(b, 'echo', '1'), localTool())).body.value;
    await sleep(5);
    const off = await api('PATCH', toolPath(b, 'echo', '1'), { isEnabled: false });
    expect([off.status, off.body.value]).toEqual([200, { ...first, isEnabled: false }]);
    for (const body of [{ isEnabled: true, displayName: 'X' }, { displayName: 'X' }, { isEnabled: 'true' }]) {
      const r = await api('PATCH', toolPath(b, 'echo', '1'), body);
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect((await api('GET', toolPath(b, 'echo', '1'))).body.value).toEqual({ ...first, isEnabled: false });
    expect((await api('PATCH', toolPath(b, 'nope', '1'), { isEnabled: false })).status).toBe(404);
  });

  it('PUT and PATCH inside a disabled or a soft-deleted bundle are refused with CONFLICT and change nothing', async () => {
    const { api, newBundle } = await start();
    for (const [action, rule] of [['disable', 'bundle-disabled'], ['delete', 'bundle-deleted']] as const) {
      const b = await newBundle();
      const tool = (await api('PUT', toolPath(b, 'echo', '1'), localTool())).body.value;
      if (action === 'disable') await api('PATCH', `/tools/bundles/${b}`, { isEnabled: false });
      else await api('DELETE', `/tools/bundles/${b}`);
      const put = await api('PUT', toolPath(b, 'other', '1'), localTool());
      const patch = await api('PATCH', toolPath(b, 'echo', '1'), { isEnabled: false });
      for (const r of [put, patch]) {
        expect([r.status, r.body.error.code, r.body.error.details], action).toEqual([409, 'CONFLICT', { bundleId: b, rule }]);
      }
      expect((await api('GET', toolPath(b, 'other', '1'))).status).toBe(404);
      expect((await api('GET', toolPath(b, 'echo', '1'))).body.value).toEqual(tool);
      // Emptying the bundle is allowed (a deleted bundle is reaped only once empty).
      expect((await api('DELETE', toolPath(b, 'echo', '1'))).status, action).toBe(200);
    }
  });

  it('DELETE removes a version for good', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    await api('PUT', toolPath(b, 'echo', '1'), localTool());
    const del = await api('DELETE', toolPath(b, 'echo', '1'));
    expect([del.status, del.body]).toEqual([200, { ok: true, value: { deleted: true } }]);
    const gone = await api('GET', toolPath(b, 'echo', '1'));
    expect([gone.status, gone.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await api('DELETE', toolPath(b, 'echo', '1'))).status).toBe(404);
    expect((await api('GET', '/tools/tools/search?q=echo&includeDisabled=true')).body.value.items).toEqual([]);
    // The pair is free again: a new tool with a new id.
    expect((await api('PUT', toolPath(b, 'echo', '1'), localTool())).status).toBe(201);
  });

  it('POST .../invoke runs the tool: 200 with the value, 400 for bad args, 403 when off, 404 when missing', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    await api('PUT', toolPath(b, 'echo', '1'), localTool());
    const run = await api('POST', `${toolPath(b, 'echo', '1')}/invoke`, { args: { text: 'hi' } });
    expect([run.status, run.body.ok, run.body.value.value, run.body.value.attempts]).toEqual([200, true, 'hi', 1]);
    expect(run.body.value.invocationId).toMatch(/^[0-9a-f-]{36}$/);
    const record = await api('GET', `/tools/bundles/${b}`);
    expect(record.status).toBe(200);

    const bad = await api('POST', `${toolPath(b, 'echo', '1')}/invoke`, { args: { text: 42 } });
    expect([bad.status, bad.body.error.code, bad.body.error.details.phase]).toEqual([400, 'VALIDATION_FAILED', 'args']);
    expect(bad.body.error.details.issues[0].path).toBe('/text');
    const missing = await api('POST', `${toolPath(b, 'nope', '1')}/invoke`, { args: {} });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const extra = await api('POST', `${toolPath(b, 'echo', '1')}/invoke`, { args: {}, timeout: 5 });
    expect(extra.status).toBe(400);
    await api('PATCH', toolPath(b, 'echo', '1'), { isEnabled: false });
    const off = await api('POST', `${toolPath(b, 'echo', '1')}/invoke`, { args: { text: 'hi' } });
    expect([off.status, off.body.error.code]).toEqual([403, 'FORBIDDEN']);
    await api('PUT', toolPath(b, 'gone', '1'), localTool({ local: { functionId: 'test.gone' } }));
    const gone = await api('POST', `${toolPath(b, 'gone', '1')}/invoke`, { args: { text: 'hi' } });
    expect([gone.status, gone.body.error.code]).toEqual([503, 'UNAVAILABLE']);
  });

  it('POST .../invoke refuses a body that names another target (bundleId, slug, version) or any undocumented field: 400 naming it, and runs nothing', async () => {
    const { core, api, newBundle } = await start();
    const [a, other] = [await newBundle(), await newBundle()];
    await api('PUT', toolPath(a, 'echo', '1'), localTool());
    await api('PUT', toolPath(a, 'other', '2'), localTool());
    await api('PUT', toolPath(other, 'echo', '1'), localTool());
    const bodies: [Record<string, unknown>, boolean][] = [
      [{ slug: 'other' }, true],
      [{ version: '2' }, true],
      [{ bundleId: other }, true],
      [{ bundleID: other }, true],
      [{ id: v7() }, true],
      [{ source: 'user' }, false],
    ];
    for (const [extra, target] of bodies) {
      const field = Object.keys(extra)[0]!;
      const r = await api('POST', `${toolPath(a, 'echo', '1')}/invoke`, { args: { text: 'hi' }, ...extra });
      expect([r.status, r.body.error.code], field).toEqual([400, 'VALIDATION_FAILED']);
      expect(r.body.error.message, field).toContain(`unknown field(s) '${field}'`);
      expect(r.body.error.message, field).toContain("the body may only have 'args', 'invocationId', 'timeoutMs'");
      if (target) expect(r.body.error.message, field).toContain('the path says which tool');
      expect(r.body.error.details.issues, field).toEqual([{ path: `body.${field}`, message: 'unknown field' }]);
    }
    const ran = await core.call('invocations.list', {});
    expect(ran.ok && ran.value).toEqual([]);
    // The documented fields are taken.
    const id = v7();
    const ok = await api('POST', `${toolPath(a, 'echo', '1')}/invoke`, { args: { text: 'hi' }, invocationId: id, timeoutMs: 5000 });
    expect([ok.status, ok.body.value.value, ok.body.value.invocationId]).toEqual([200, 'hi', id]);
  });

  it('POST .../invoke runs a built-in tool', async () => {
    const { api } = await start();
    const r = await api('POST', `${toolPath(MATH, 'calc', '1')}/invoke`, { args: { expression: '2 * (3 + 4)' } });
    expect([r.status, r.body.ok]).toEqual([200, true]);
    expect(JSON.stringify(r.body.value.value)).toContain('14');
  });

  it('a built-in tool accepts PATCH {isEnabled} only', async () => {
    const { api } = await start();
    const off = await api('PATCH', toolPath(FILES, 'readfile', '1'), { isEnabled: false });
    expect([off.status, off.body.value.isEnabled, off.body.value.isBuiltIn]).toEqual([200, false, true]);
    expect(off.body.value.modifiedAt).toBe('2025-01-01T00:00:00.000Z');
    expect((await api('GET', toolPath(FILES, 'readfile', '1'))).body.value.isEnabled).toBe(false);
    expect(ids(await api('GET', `/tools/tools?bundleIDs=${FILES}`))).not.toContain(off.body.value.id);
    const other = await api('PATCH', toolPath(FILES, 'readfile', '1'), { isEnabled: true, description: 'mine' });
    expect(other.status).toBe(400);
    expect((await api('PUT', toolPath(FILES, 'readfile', '1'), localTool())).status).toBe(403);
  });
});

describe('REST GET /tools/tools', () => {
  it('filters by tags (every tag), bundleIDs and includeDisabled', async () => {
    const { api, newBundle } = await start();
    const [a, b] = [await newBundle(), await newBundle()];
    const t1 = (await api('PUT', toolPath(a, 'one', '1'), localTool({ tags: ['red', 'big'] }))).body.value.id;
    const t2 = (await api('PUT', toolPath(a, 'two', '1'), localTool({ tags: ['red'], isEnabled: false }))).body.value.id;
    const t3 = (await api('PUT', toolPath(b, 'three', '1'), localTool({ tags: ['red', 'big'] }))).body.value.id;
    expect(ids(await api('GET', '/tools/tools?tags=red'))).toEqual([t1, t3]);
    expect(ids(await api('GET', '/tools/tools?tags=red&includeDisabled=true'))).toEqual([t1, t2, t3]);
    expect(ids(await api('GET', '/tools/tools?tags=red,big'))).toEqual([t1, t3]);
    expect(ids(await api('GET', '/tools/tools?tags=red&tags=big'))).toEqual([t1, t3]);
    expect(ids(await api('GET', `/tools/tools?bundleIDs=${a}&includeDisabled=true`))).toEqual([t1, t2]);
    expect(ids(await api('GET', `/tools/tools?bundleIDs=${b},${a}`))).toEqual([t1, t3]);
    // A disabled bundle hides its tools unless includeDisabled=true.
    await api('PATCH', `/tools/bundles/${b}`, { isEnabled: false });
    expect(ids(await api('GET', '/tools/tools?tags=red'))).toEqual([t1]);
    expect(ids(await api('GET', '/tools/tools?tags=red&includeDisabled=true'))).toEqual([t1, t2, t3]);
    // Built-in tools are listed like any other.
    const builtins = (await api('GET', `/tools/tools?bundleIDs=${FILES}`)).body.value.items;
    expect(builtins.map((t: { slug: string }) => t.slug).sort()).toEqual(['appendfile', 'grep', 'listdir', 'readfile', 'writefile']);
  });

  it('pages with recommendedPageSize and pageToken through every tool exactly once', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const mine: string[] = [];
    for (let i = 0; i < 7; i++) mine.push((await api('PUT', toolPath(b, `t${i}`, '1'), localTool())).body.value.id);
    const all = ids(await api('GET', '/tools/tools?recommendedPageSize=100'));
    expect(all).toEqual(expect.arrayContaining(mine));
    const seen: string[] = [];
    const sizes: number[] = [];
    let token: string | undefined;
    do {
      const r = await api('GET', `/tools/tools?recommendedPageSize=4${token ? `&pageToken=${token}` : ''}`);
      expect(r.status).toBe(200);
      sizes.push(r.body.value.items.length);
      seen.push(...ids(r));
      token = r.body.value.nextPageToken;
    } while (token);
    expect(seen).toEqual(all);
    expect(sizes.every((n, i) => n === 4 || i === sizes.length - 1)).toBe(true);
    for (const q of ['recommendedPageSize=0', 'recommendedPageSize=101', 'recommendedPageSize=abc', 'pageToken=%%%', 'tags=not_a_tag', 'bundleIDs=x']) {
      const r = await api('GET', `/tools/tools?${q}`);
      expect([r.status, r.body.error.code], q).toEqual([400, 'VALIDATION_FAILED']);
    }
  });
});

describe('REST GET /tools/tools/search', () => {
  it('ranks prefix > whole word > fuzzy, newest first inside a tier, and hides disabled tools unless asked', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    const put = async (slug: string, displayName: string, description: string) => {
      await sleep(5);
      return (await api('PUT', toolPath(b, slug, '1'), localTool({ displayName, description, tags: [] }))).body.value.id as string;
    };
    const older = await put('quill-pen', 'Quill pen', 'Writes.');
    const newer = await put('quill-box', 'Quill box', 'Holds.');
    const word = await put('writer', 'Writer', 'Writes with a quill.');
    const fuzzy = await put('quilt', 'Quilt', 'Warm.');
    const r = await api('GET', '/tools/tools/search?q=quill');
    expect(r.status).toBe(200);
    expect(r.body.value.items.map((h: { tier: string; tool: { id: string } }) => [h.tier, h.tool.id])).toEqual([
      ['prefix', newer],
      ['prefix', older],
      ['word', word],
      ['fuzzy', fuzzy],
    ]);
    expect(r.body.value.recommendedPageSize).toBe(20);

    await api('PATCH', toolPath(b, 'quilt', '1'), { isEnabled: false });
    expect((await api('GET', '/tools/tools/search?q=quill')).body.value.items).toHaveLength(3);
    const all = (await api('GET', '/tools/tools/search?q=quill&includeDisabled=true')).body.value.items;
    expect(all.map((h: { tool: { id: string; isEnabled: boolean } }) => [h.tool.id, h.tool.isEnabled]).at(-1)).toEqual([fuzzy, false]);
    await api('PATCH', `/tools/bundles/${b}`, { isEnabled: false });
    expect((await api('GET', '/tools/tools/search?q=quill')).body.value.items).toEqual([]);
  });

  it('pages with pageSize and pageToken, and takes any text as a query', async () => {
    const { api, newBundle } = await start();
    const b = await newBundle();
    for (let i = 0; i < 5; i++) await api('PUT', toolPath(b, `zebra-${i}`, '1'), localTool({ tags: [] }));
    const first = await api('GET', '/tools/tools/search?q=zebra&pageSize=3');
    expect(first.body.value.items).toHaveLength(3);
    const rest = await api('GET', `/tools/tools/search?q=zebra&pageSize=3&pageToken=${first.body.value.nextPageToken}`);
    expect(rest.body.value.items).toHaveLength(2);
    expect(rest.body.value.nextPageToken).toBeUndefined();
    const slugs = [...first.body.value.items, ...rest.body.value.items].map((h: { tool: { slug: string } }) => h.tool.slug);
    expect(slugs.sort()).toEqual(['zebra-0', 'zebra-1', 'zebra-2', 'zebra-3', 'zebra-4']);
    const other = await api('GET', `/tools/tools/search?q=zeb&pageToken=${first.body.value.nextPageToken}`);
    expect([other.status, other.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);

    for (const q of ['"NEAR(* -x', 'a OR b AND NOT c*', "'; DROP TABLE tools; --", '^zebra:*', '(((']) {
      const r = await api('GET', `/tools/tools/search?q=${encodeURIComponent(q)}`);
      expect([r.status, r.body.ok], q).toEqual([200, true]);
    }
    // An empty query lists everything by recency.
    const recent = await api('GET', '/tools/tools/search?q=&pageSize=100');
    expect(recent.body.value.items.every((h: { tier: string }) => h.tier === 'recent')).toBe(true);
    expect(recent.body.value.items.length).toBeGreaterThanOrEqual(5 + 7);
    for (const q of ['pageSize=0', 'pageSize=101', 'pageToken=junk', `q=${'x'.repeat(4097)}`]) {
      expect((await api('GET', `/tools/tools/search?${q}`)).status, q).toBe(400);
    }
    // A long query (but within the contract's 4 KiB) is cut by the index, not refused.
    const long = await api('GET', `/tools/tools/search?q=zebra${'x'.repeat(1000)}`);
    expect([long.status, long.body.ok]).toEqual([200, true]);
  });
});
