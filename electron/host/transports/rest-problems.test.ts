/**
 * The REST API and the data folder's problems: GET /tools/problems, what every host reports
 * after a restart, PATCH bodies that try to name another target, and `bundleIDs=`.
 * Real cores on temp folders, real files, real HTTP on 127.0.0.1.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { localToolBody } from '../../core/bundles/testing/fixtures';
import { toolFileName } from '../../core/bundles/layout';
import { useRestHost, type Reply } from '../testing/rest-host';

const start = useRestHost();
const bundle = { slug: 'demo', displayName: 'Demo', isEnabled: true, description: 'For tests.' };
const toolPath = (b: string, slug: string, version: string) => `/tools/bundles/${b}/tools/${slug}/version/${version}`;
const problemsOf = (r: Reply, dataDir: string) =>
  (r.body.value as { kind: string; path: string; movedTo?: string }[]).map((p) => [p.kind, path.relative(dataDir, p.path), p.movedTo !== undefined]).sort();

describe('GET /tools/problems', () => {
  it('lists what the host found wrong; after a restart, and on a second host, the same problems are listed', async () => {
    const first = await start();
    const a = v7();
    const b = v7();
    await first.api('PUT', `/tools/bundles/${a}`, bundle);
    await first.api('PUT', `/tools/bundles/${b}`, bundle);
    await first.api('PUT', toolPath(a, 'echo', '1'), localToolBody());
    await first.api('PUT', toolPath(a, 'broken', '1'), localToolBody());
    await first.api('PUT', toolPath(b, 'kept', '1'), localToolBody());
    expect((await first.api('GET', '/tools/problems')).body).toEqual({ ok: true, value: [] });
    await first.stop();

    const tools = path.join(first.dir, 'bundles', a, 'tools');
    await fs.mkdir(path.join(tools, 'x.json')); // a folder named like a tool file
    await fs.writeFile(path.join(tools, toolFileName('broken', '1')), '{"id": ');
    await fs.utimes(path.join(tools, toolFileName('broken', '1')), new Date(0), new Date(0)); // not being saved: set aside at once
    await fs.writeFile(path.join(first.dir, 'bundles', b, 'bundle.json'), 'not json');

    const expected = [
      ['corrupt-file', path.join('bundles', a, 'tools', toolFileName('broken', '1')), true],
      ['corrupt-file', path.join('bundles', b, 'bundle.json'), false],
      ['io-error', path.join('bundles', a, 'tools', 'x.json'), false],
    ].sort();
    const second = await start(first.dir);
    const listed = await second.api('GET', '/tools/problems');
    expect(listed.status).toBe(200);
    expect(problemsOf(listed, first.dir)).toEqual(expected);
    // The host starts and serves the rest: echo, and the damaged bundle's tool under its placeholder.
    const all = await second.api('GET', '/tools/tools?includeDisabled=true&pageSize=100');
    expect(all.body.value.items.map((t: { slug: string }) => t.slug).filter((s: string) => ['echo', 'kept', 'broken'].includes(s)).sort()).toEqual(['echo', 'kept']);
    // A third host on the same folder (the file already moved by the second) reports the same.
    const third = await start(first.dir);
    expect(problemsOf(await third.api('GET', '/tools/problems'), first.dir)).toEqual(expected);
    await second.stop();
    await third.stop();
    // And so does a restart.
    const again = await start(first.dir);
    expect(problemsOf(await again.api('GET', '/tools/problems'), first.dir)).toEqual(expected);
  });
});

describe('REST bodies and filters', () => {
  it('a PATCH body with any field other than isEnabled is 400, path keys included, and changes nothing', async () => {
    const { api } = await start(undefined, (c) => c.functions.register('test.echo', async (_ctx, args) => String(args.text)));
    const a = v7();
    const other = v7();
    await api('PUT', `/tools/bundles/${a}`, bundle);
    await api('PUT', `/tools/bundles/${other}`, bundle);
    await api('PUT', toolPath(a, 'echo', '1'), localToolBody());
    for (const extra of [{ bundleId: other }, { bundleID: other }, { id: other }]) {
      const r = await api('PATCH', `/tools/bundles/${a}`, { isEnabled: false, ...extra });
      expect([r.status, r.body.error.code], JSON.stringify(extra)).toEqual([400, 'VALIDATION_FAILED']);
      expect(r.body.error.details.issues).toEqual([{ path: `body.${Object.keys(extra)[0]}`, message: 'unknown field' }]);
    }
    for (const extra of [{ bundleId: other }, { slug: 'other' }, { version: '2' }, { toolSlug: 'x' }]) {
      const r = await api('PATCH', toolPath(a, 'echo', '1'), { isEnabled: false, ...extra });
      expect([r.status, r.body.error.code], JSON.stringify(extra)).toEqual([400, 'VALIDATION_FAILED']);
      expect(r.body.error.message).toContain(`'${Object.keys(extra)[0]}'`);
    }
    expect((await api('GET', `/tools/bundles/${a}`)).body.value.isEnabled).toBe(true);
    expect((await api('GET', toolPath(a, 'echo', '1'))).body.value.isEnabled).toBe(true);
    expect((await api('PATCH', toolPath(a, 'echo', '1'), { isEnabled: false })).status).toBe(200);
  });

  it('bundleIDs= (empty) matches nothing, for bundles and for tools', async () => {
    const { api } = await start();
    const a = v7();
    await api('PUT', `/tools/bundles/${a}`, bundle);
    await api('PUT', toolPath(a, 'echo', '1'), localToolBody());
    expect((await api('GET', '/tools/bundles?bundleIDs=&includeDisabled=true')).body.value.items).toEqual([]);
    expect((await api('GET', '/tools/tools?bundleIDs=&includeDisabled=true')).body.value.items).toEqual([]);
    // Absent: no filter.
    expect((await api('GET', '/tools/tools')).body.value.items.length).toBeGreaterThan(0);
  });
});
