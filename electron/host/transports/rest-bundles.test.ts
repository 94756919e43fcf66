/**
 * The REST API under /tools, bundles side: routes, paging, built-ins, the host's gate and
 * events, over real HTTP on 127.0.0.1 (docs/design/registry.md: routes and behavioural rules).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { v4, v7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { RegistryChange } from '../../../shared/model/tool';
import { RESOURCES_DIR } from '../../core/testing/temp-dir';
import { useRestHost, type Reply } from '../testing/rest-host';

const FILES = '01941f29-7c00-7445-bfe3-19d44c6cadc8';
const TEXT = '01941f29-7c05-75d4-b8b8-8211af0864fb';
/** Every shipped built-in bundle, as [id, slug], in id order (the listing order). */
const BUILTINS: [string, string][] = readdirSync(path.join(RESOURCES_DIR, 'bundles'))
  .filter((d) => existsSync(path.join(RESOURCES_DIR, 'bundles', d, 'bundle.json')))
  .map((d) => JSON.parse(readFileSync(path.join(RESOURCES_DIR, 'bundles', d, 'bundle.json'), 'utf8')) as { id: string; slug: string })
  .map((b): [string, string] => [b.id, b.slug])
  .sort((a, b) => (a[0] < b[0] ? -1 : 1));
const BUILTIN_IDS = BUILTINS.map(([id]) => id);

const start = useRestHost();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bundle = (over: Record<string, unknown> = {}) => ({ slug: 'demo', displayName: 'Demo', isEnabled: true, description: 'For tests.', ...over });
const ids = (r: Reply): string[] => r.body.value.items.map((b: { id: string }) => b.id);

describe('REST /tools/bundles', () => {
  it('PUT creates a bundle; a replace keeps createdAt and moves modifiedAt only on a structural change', async () => {
    const { api } = await start();
    const id = v7();
    const created = await api('PUT', `/tools/bundles/${id}`, bundle());
    expect(created.status).toBe(200);
    const first = created.body.value;
    expect(created.body.ok).toBe(true);
    expect(first).toMatchObject({ id, slug: 'demo', displayName: 'Demo', description: 'For tests.', isEnabled: true, isBuiltIn: false });
    expect(first.createdAt).toBe(first.modifiedAt);
    expect(first).not.toHaveProperty('softDeletedAt');
    expect((await api('GET', `/tools/bundles/${id}`)).body).toEqual({ ok: true, value: first });

    await sleep(5);
    const toggled = (await api('PUT', `/tools/bundles/${id}`, bundle({ isEnabled: false }))).body.value;
    expect(toggled).toMatchObject({ isEnabled: false, createdAt: first.createdAt, modifiedAt: first.modifiedAt });

    await sleep(5);
    const renamed = (await api('PUT', `/tools/bundles/${id}`, bundle({ displayName: 'Renamed' }))).body.value;
    expect(renamed).toMatchObject({ displayName: 'Renamed', isEnabled: true, createdAt: first.createdAt });
    expect(Date.parse(renamed.modifiedAt)).toBeGreaterThan(Date.parse(first.modifiedAt));
  });

  it('PUT refuses a body that breaks the rules, naming the field', async () => {
    const { api } = await start();
    const id = v7();
    const bad = await api('PUT', `/tools/bundles/${id}`, bundle({ slug: 'has space' }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(bad.body.error.message).toContain("body.slug: slug may contain letters, digits and '-' only: got 'has space'");
    expect(bad.body.error.details.issues[0]).toMatchObject({ path: 'body.slug' });
    const extra = await api('PUT', `/tools/bundles/${id}`, { ...bundle(), color: 'red' });
    expect([extra.status, extra.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(extra.body.error.message).toContain('color');
    expect((await api('GET', `/tools/bundles/${id}`)).status).toBe(404);
  });

  it('PATCH toggles isEnabled only, without touching modifiedAt; disabled bundles leave the default list', async () => {
    const { api } = await start();
    const id = v7();
    const first = (await api('PUT', `/tools/bundles/${id}`, bundle())).body.value;
    await sleep(5);
    const off = await api('PATCH', `/tools/bundles/${id}`, { isEnabled: false });
    expect(off.status).toBe(200);
    expect(off.body.value).toEqual({ ...first, isEnabled: false });
    expect(ids(await api('GET', '/tools/bundles'))).not.toContain(id);
    expect(ids(await api('GET', '/tools/bundles?includeDisabled=false'))).not.toContain(id);
    expect(ids(await api('GET', '/tools/bundles?includeDisabled=true'))).toContain(id);

    for (const body of [{ isEnabled: true, displayName: 'X' }, { isEnabled: 'yes' }, {}]) {
      const r = await api('PATCH', `/tools/bundles/${id}`, body);
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect((await api('GET', `/tools/bundles/${id}`)).body.value.isEnabled).toBe(false);
  });

  it('DELETE is a soft delete: softDeletedAt is set, the bundle is hidden unless includeDeleted=true, a PUT restores it', async () => {
    const { api } = await start();
    const id = v7();
    await api('PUT', `/tools/bundles/${id}`, bundle());
    const del = await api('DELETE', `/tools/bundles/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.value).toMatchObject({ id, isEnabled: true });
    expect(Date.parse(del.body.value.softDeletedAt)).not.toBeNaN();
    expect(ids(await api('GET', '/tools/bundles'))).not.toContain(id);
    expect(ids(await api('GET', '/tools/bundles?includeDisabled=true'))).not.toContain(id);
    expect(ids(await api('GET', '/tools/bundles?includeDeleted=true'))).toContain(id);
    expect((await api('GET', `/tools/bundles/${id}`)).body.value.softDeletedAt).toBe(del.body.value.softDeletedAt);
    // Deleting again changes nothing; toggling a deleted bundle is refused.
    expect((await api('DELETE', `/tools/bundles/${id}`)).body.value.softDeletedAt).toBe(del.body.value.softDeletedAt);
    const patch = await api('PATCH', `/tools/bundles/${id}`, { isEnabled: false });
    expect([patch.status, patch.body.error.code, patch.body.error.details.rule]).toEqual([409, 'CONFLICT', 'bundle-deleted']);

    const restored = await api('PUT', `/tools/bundles/${id}`, bundle());
    expect(restored.body.value).not.toHaveProperty('softDeletedAt');
    expect(ids(await api('GET', '/tools/bundles'))).toContain(id);
  });

  it('GET filters by bundleIDs, as a comma list or repeated', async () => {
    const { api } = await start();
    const [a, b, c] = [v7(), v7(), v7()];
    for (const id of [a, b, c]) await api('PUT', `/tools/bundles/${id}`, bundle());
    expect(ids(await api('GET', `/tools/bundles?bundleIDs=${a},${c}`))).toEqual([a, c]);
    expect(ids(await api('GET', `/tools/bundles?bundleIDs=${b}&bundleIDs=${FILES}`)).sort()).toEqual([b, FILES].sort());
    expect(ids(await api('GET', `/tools/bundles?bundleIDs=${v7()}`))).toEqual([]);
    // An empty list of ids matches nothing (see docs/rest-api.md).
    expect(ids(await api('GET', '/tools/bundles?bundleIDs='))).toEqual([]);
  });

  it('GET pages through every bundle exactly once with pageSize and the opaque pageToken', async () => {
    const { api } = await start();
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = v7();
      mine.push(id);
      await api('PUT', `/tools/bundles/${id}`, bundle({ slug: `b${i}` }));
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let token: string | undefined;
    do {
      const r = await api('GET', `/tools/bundles?pageSize=3${token ? `&pageToken=${token}` : ''}`);
      expect(r.status).toBe(200);
      sizes.push(r.body.value.items.length);
      seen.push(...ids(r));
      token = r.body.value.nextPageToken;
    } while (token);
    const total = mine.length + BUILTIN_IDS.length;
    expect(sizes).toEqual([...Array(Math.floor(total / 3)).fill(3), ...(total % 3 ? [total % 3] : [])]);
    expect(seen).toEqual([...new Set(seen)]);
    expect(seen.sort()).toEqual([...mine, ...BUILTIN_IDS].sort());
  });

  it('GET refuses malformed paging and ids with 400', async () => {
    const { api } = await start();
    for (let i = 0; i < 3; i++) await api('PUT', `/tools/bundles/${v7()}`, bundle());
    const token = (await api('GET', '/tools/bundles?pageSize=1')).body.value.nextPageToken;
    const cases = [
      'pageToken=not!a!token',
      'pageToken=abc',
      `pageToken=${token}&includeDisabled=true`, // a token of another filter
      'pageSize=0',
      'pageSize=101',
      'pageSize=abc',
      'includeDisabled=maybe',
      'bundleIDs=not-a-uuid',
    ];
    for (const q of cases) {
      const r = await api('GET', `/tools/bundles?${q}`);
      expect([r.status, r.body.ok, r.body.error.code], q).toEqual([400, false, 'VALIDATION_FAILED']);
    }
    const tokenError = (await api('GET', '/tools/bundles?pageToken=abc')).body.error;
    expect(tokenError.details).toMatchObject({ field: 'pageToken' });
  });

  it('a non-UUIDv7 id is 400 and an unknown one 404 on every bundle route', async () => {
    const { api } = await start();
    for (const bad of ['not-a-uuid', v4(), v7().toUpperCase()]) {
      for (const [method, body] of [['GET'], ['PUT', bundle()], ['PATCH', { isEnabled: false }], ['DELETE']] as const) {
        const r = await api(method, `/tools/bundles/${bad}`, body);
        expect([r.status, r.body.error.code], `${method} ${bad}`).toEqual([400, 'VALIDATION_FAILED']);
        expect(r.body.error.message).toContain('bundleId must be a lowercase UUIDv7');
      }
    }
    const unknown = v7();
    for (const [method, body] of [['GET'], ['PATCH', { isEnabled: false }], ['DELETE']] as const) {
      const r = await api(method, `/tools/bundles/${unknown}`, body);
      expect(r.status, method).toBe(404);
      expect(r.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: `bundle ${unknown} does not exist`, details: { bundleId: unknown } } });
    }
  });
});

describe('REST /tools: built-in bundles', () => {
  it('lists the built-ins with their fixed ids and isBuiltIn: true', async () => {
    const { api } = await start();
    const r = await api('GET', '/tools/bundles');
    const builtins = r.body.value.items.filter((b: { isBuiltIn: boolean }) => b.isBuiltIn);
    expect(builtins.map((b: { id: string; slug: string }) => [b.id, b.slug])).toEqual(BUILTINS);
    expect(BUILTINS).toEqual(expect.arrayContaining([[FILES, 'files'], [TEXT, 'text']]));
  });

  it('PATCH isEnabled works and survives a restart (an overlay file; resources are not written)', async () => {
    const first = await start();
    const shipped = await fs.readFile(path.join(RESOURCES_DIR, 'bundles', 'files', 'bundle.json'), 'utf8');
    const off = await first.api('PATCH', `/tools/bundles/${FILES}`, { isEnabled: false });
    expect([off.status, off.body.value.isEnabled, off.body.value.isBuiltIn]).toEqual([200, false, true]);
    expect(JSON.parse(await fs.readFile(path.join(first.dir, 'overrides', `${FILES}.json`), 'utf8'))).toMatchObject({ isEnabled: false });
    await first.stop();

    const again = await start(first.dir);
    expect((await again.api('GET', `/tools/bundles/${FILES}`)).body.value).toMatchObject({ id: FILES, isEnabled: false, isBuiltIn: true });
    expect(ids(await again.api('GET', '/tools/bundles'))).toEqual(BUILTIN_IDS.filter((id) => id !== FILES));
    expect(await fs.readFile(path.join(RESOURCES_DIR, 'bundles', 'files', 'bundle.json'), 'utf8')).toBe(shipped);
    expect((await again.api('PATCH', `/tools/bundles/${FILES}`, { isEnabled: true })).body.value.isEnabled).toBe(true);
  });

  it('PUT and DELETE of a built-in bundle, and PUT or DELETE of a tool in it, are 403 FORBIDDEN and change nothing', async () => {
    const { api } = await start();
    const before = (await api('GET', `/tools/bundles/${FILES}`)).body.value;
    const tool = {
      displayName: 'Mine',
      description: '',
      tags: [],
      type: 'local',
      argSchema: { type: 'object' },
      outputSchema: {},
      local: { functionId: 'files.mine' },
      isEnabled: true,
    };
    const attempts: [string, string, unknown?][] = [
      ['PUT', `/tools/bundles/${FILES}`, bundle({ slug: 'files', displayName: 'Hacked' })],
      ['DELETE', `/tools/bundles/${FILES}`],
      ['PUT', `/tools/bundles/${FILES}/tools/mine/version/1`, tool],
      ['DELETE', `/tools/bundles/${FILES}/tools/readfile/version/1`],
    ];
    for (const [method, p, body] of attempts) {
      const r = await api(method, p, body);
      expect([r.status, r.body.error.code, r.body.error.details], `${method} ${p}`).toEqual([403, 'FORBIDDEN', { bundleId: FILES, rule: 'built-in' }]);
      expect(r.body.error.message).toContain('is built in: only isEnabled may change');
    }
    expect((await api('GET', `/tools/bundles/${FILES}`)).body.value).toEqual(before);
    expect((await api('GET', `/tools/bundles/${FILES}/tools/readfile/version/1`)).status).toBe(200);
    expect((await api('GET', `/tools/bundles/${FILES}/tools/mine/version/1`)).status).toBe(404);
  });
});

describe('REST /tools: the host gate', () => {
  it('needs the bearer token, refuses a foreign Origin or Host, and never reads a token from the URL', async () => {
    const { raw, token, host, api } = await start();
    const json = { 'Content-Type': 'application/json' };
    const id = v7();
    const body = JSON.stringify(bundle());
    const anon = await raw('PUT', `/tools/bundles/${id}`, json, body);
    expect([anon.status, anon.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await raw('GET', '/tools/bundles', {})).status).toBe(401);
    expect((await raw('GET', `/tools/bundles?token=${token}`, {})).status).toBe(401);
    const auth = { ...json, Authorization: `Bearer ${token}` };
    const foreign = await raw('PUT', `/tools/bundles/${id}`, { ...auth, Origin: 'http://evil.example' }, body);
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await raw('GET', '/tools/bundles', { ...auth, Host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await api('GET', `/tools/bundles/${id}`)).status).toBe(404);
    const own = await raw('PUT', `/tools/bundles/${id}`, { ...auth, Origin: `http://127.0.0.1:${host.port}` }, body);
    expect(own.status).toBe(200);
  });

  it('takes JSON bodies only: text/plain is 415, broken JSON 400', async () => {
    const { raw, token, api } = await start();
    const id = v7();
    const plain = await raw('PUT', `/tools/bundles/${id}`, { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' }, JSON.stringify(bundle()));
    expect([plain.status, plain.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const broken = await raw('PUT', `/tools/bundles/${id}`, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, '{"slug":');
    expect([broken.status, broken.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(broken.body.error.message).toMatch(/^body is not valid JSON/);
    expect((await api('GET', `/tools/bundles/${id}`)).status).toBe(404);
  });

  it('answers a wrong verb with 405 and an Allow header, and an unknown /tools path with 404', async () => {
    const { api } = await start();
    const list = await api('POST', '/tools/bundles', {});
    expect([list.status, list.headers.allow, list.body.ok]).toEqual([405, 'GET', false]);
    const one = await api('POST', `/tools/bundles/${v7()}`, {});
    expect([one.status, one.headers.allow]).toEqual([405, 'GET, PUT, PATCH, DELETE']);
    const invoke = await api('GET', `/tools/bundles/${v7()}/tools/a/version/1/invoke`);
    expect([invoke.status, invoke.headers.allow]).toEqual([405, 'POST']);
    const search = await api('DELETE', '/tools/tools/search');
    expect([search.status, search.headers.allow]).toEqual([405, 'GET']);
    for (const p of ['/tools/xyz', '/tools', '/tools/bundles/a/b']) {
      const r = await api('GET', p);
      expect([r.status, r.body.error.code], p).toEqual([404, 'NOT_FOUND']);
    }
  });
});

describe('REST /tools: events', () => {
  it('a write through REST emits store.changed', async () => {
    const { api, core } = await start();
    const seen: RegistryChange[] = [];
    core.events.on('store.changed', (c) => seen.push(c));
    const id = v7();
    await api('PUT', `/tools/bundles/${id}`, bundle());
    const tool = await api('PUT', `/tools/bundles/${id}/tools/echo/version/1`, {
      displayName: 'Echo',
      description: '',
      tags: [],
      type: 'http',
      argSchema: { type: 'object' },
      outputSchema: {},
      http: { method: 'GET', urlTemplate: 'https://example.com/' },
      isEnabled: true,
    });
    await api('PATCH', `/tools/bundles/${id}`, { isEnabled: false });
    await api('DELETE', `/tools/bundles/${id}`);
    await api('PATCH', `/tools/bundles/${FILES}`, { isEnabled: false });
    expect(seen).toEqual([
      { kind: 'bundle', op: 'put', id },
      { kind: 'tool', op: 'put', id: tool.body.value.id, bundleId: id },
      { kind: 'bundle', op: 'patch', id },
      { kind: 'bundle', op: 'delete', id },
      { kind: 'bundle', op: 'patch', id: FILES },
    ]);
  });
});
