import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDirectives } from '../../../shared/directives/parser';
import { AppError } from '../../../shared/errors';
import type { ToolView } from '../../../shared/model/tool';
import { EventBus } from '../events';
import type { Transport } from '../invoke/types';
import type { Registry } from '../registry/registry';
import { useTempDirs } from '../testing/temp-dir';
import { createRoutingServices } from './index';
import { createWebFunctions } from '../builtin-functions/web';

const tempDir = useTempDirs();

const noTransport: Transport = {
  send: () => Promise.reject(new AppError('UNAVAILABLE', 'offline')),
  stream: () => Promise.reject(new AppError('UNAVAILABLE', 'offline')),
};

/** The part of the registry the runner uses: one usable tool, one disabled. */
function fakeRegistry(): Registry {
  const tools = [
    { id: 't1', bundleId: 'b1', slug: 'readfile', version: '1.0.0', modifiedAt: '' },
    { id: 't2', bundleId: 'b1', slug: 'off', version: '1.0.0', modifiedAt: '' },
  ] as unknown as ToolView[];
  return {
    store: { allTools: () => tools, isUsable: (id: string) => id === 't1', bundleById: () => ({ slug: 'files' }) },
  } as unknown as Registry;
}

describe('createRoutingServices', () => {
  it('wires the file buffer store, the router and the runner together', async () => {
    const base = await fs.realpath(await tempDir());
    const ws = path.join(base, 'ws');
    await fs.mkdir(ws);
    await fs.writeFile(path.join(ws, 'a.md'), 'alpha');
    const events = new EventBus();
    const changed: unknown[] = [];
    events.on('buffers.changed', (p) => changed.push(p));
    const routing = createRoutingServices({
      dataDir: path.join(base, 'data'),
      workspaceDir: () => ws,
      events,
      registry: fakeRegistry(),
      transport: noTransport,
      allowedHosts: () => [],
      fetchUrl: createWebFunctions()['fetch-url'],
      now: () => new Date(2026, 0, 5),
    });

    const r = await routing.directives.run(parseDirectives('@tools readfile(output=variable:r)\n@input file:a.md (output=variable:foo)\n@input variable:foo (output=file:out/{today}.md)'), { ownerId: 'conv1' });
    expect(r.tools.map((t) => t.tool.id)).toEqual(['t1']);
    expect(r.outcomes.map((o) => o.manifest?.text)).toEqual([
      '[input routed] 1 file -> variable:foo (total 5 chars)\npaths: a.md',
      '[input routed] 1 buffer -> file:out/2026-01-05.md (total 5 chars)',
    ]);
    expect(await routing.buffers.readAll('conv1', 'foo')).toBe('alpha');
    expect(await fs.readFile(path.join(ws, 'out', '2026-01-05.md'), 'utf8')).toBe('alpha');
    expect(changed).toContainEqual(expect.objectContaining({ ownerId: 'conv1' }));

    await expect(routing.directives.run(parseDirectives('@tools off'), { ownerId: 'conv1' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const m = await routing.router.route({ ownerId: 'conv1', content: 'x', destination: { kind: 'variable', name: 'foo' }, writeMode: 'new', label: { kind: 'tool', name: 'readfile' }, source: 'tool:readfile' });
    expect(m!.text).toBe('[tool routed] readfile -> variable:foo-2 (total 1 chars)');
  });
});
