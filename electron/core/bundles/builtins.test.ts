import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { loadBuiltins } from './builtins';
import { nodeFs } from '../lib/durable-fs';
import { bundleBody, filesUnder, localToolBody, openStore, rejection, REPO_RESOURCES } from './testing/fixtures';

const tempDir = useTempDirs();

const FILES_BUNDLE = '01941f29-7c00-7445-bfe3-19d44c6cadc8';
const TEXT_BUNDLE = '01941f29-7c05-75d4-b8b8-8211af0864fb';


async function treeHash(dir: string): Promise<string> {
  const h = createHash('sha256');
  for (const f of await filesUnder(dir)) h.update(f).update(await fs.readFile(path.join(dir, f)));
  return h.digest('hex');
}

describe('the shipped built-in bundles', () => {
  it('are all valid: every config file loads, with no problem reported', async () => {
    const problems: unknown[] = [];
    const builtins = await loadBuiltins(nodeFs, REPO_RESOURCES, { report: (p) => problems.push(p) });
    expect(problems).toEqual([]);
    const shipped = (await filesUnder(path.join(REPO_RESOURCES, 'bundles'))).filter((f) => f.endsWith('.json'));
    const loaded = [...builtins.values()].reduce((n, b) => n + 1 + b.tools.length, 0);
    expect(loaded).toBe(shipped.length);
    expect(builtins.size).toBeGreaterThanOrEqual(2);
    for (const b of builtins.values()) {
      expect(b.tools.length).toBeGreaterThan(0);
      for (const t of b.tools) expect(t.type === 'local' ? t.local?.functionId : t.http?.urlTemplate).toBeTruthy();
    }
    expect([...builtins.get(FILES_BUNDLE)!.tools.map((t) => t.slug)].sort()).toEqual(['appendfile', 'grep', 'listdir', 'readfile', 'writefile']);
    expect([...builtins.get(TEXT_BUNDLE)!.tools.map((t) => t.slug)].sort()).toEqual(['count', 'diff', 'jsonpath', 'regex-extract']);
  });
});

describe('built-ins in the store', () => {
  async function storeWithBuiltins(opts: Parameters<typeof openStore>[1] = {}) {
    const dataDir = path.join(await tempDir(), 'data');
    return openStore(dataDir, { resourcesDir: REPO_RESOURCES, ...opts });
  }

  it('are served through the same API with isBuiltIn: true', async () => {
    const { store, problems } = await storeWithBuiltins();
    expect(problems.list()).toEqual([]);
    expect(store.listBundles().items.map((b) => [b.slug, b.isBuiltIn])).toEqual([
      ['files', true],
      ['text', true],
      ['time', true],
      ['math', true],
      ['web', true],
      ['buffers', true],
      ['documents', true],
      ['memory', true],
    ]);
    const read = store.getTool(FILES_BUNDLE, 'readfile', '1');
    expect(read).toMatchObject({ isBuiltIn: true, bundleId: FILES_BUNDLE, type: 'local', local: { functionId: 'files.read' } });
    expect(store.listTools({ bundleIds: [TEXT_BUNDLE] }).items).toHaveLength(4);
  });

  it('refuse every change except isEnabled', async () => {
    const { store } = await storeWithBuiltins();
    const forbidden = [
      () => store.putBundle(FILES_BUNDLE, bundleBody({ slug: 'files' })),
      () => store.deleteBundle(FILES_BUNDLE),
      () => store.putTool(FILES_BUNDLE, 'newtool', '1', localToolBody()),
      () => store.deleteTool(FILES_BUNDLE, 'readfile', '1'),
    ];
    for (const attempt of forbidden) {
      const e = await rejection(attempt);
      expect(e).toMatchObject({ code: 'FORBIDDEN', details: { rule: 'built-in', bundleId: FILES_BUNDLE } });
      expect(e.message).toMatch(/^bundle 'files' \(01941f29-.*\) is built in: only isEnabled may change/);
    }
    // PUT of an existing built-in version is refused before the conflict check: it is read-only either way.
    expect(await rejection(() => store.putTool(FILES_BUNDLE, 'readfile', '1', localToolBody()))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('keep isEnabled changes in an override file and never write the shipped files', async () => {
    const before = await treeHash(REPO_RESOURCES);
    const { store, dataDir } = await storeWithBuiltins();
    const off = await store.patchBundle(TEXT_BUNDLE, { isEnabled: false });
    expect(off).toMatchObject({ isEnabled: false, isBuiltIn: true, modifiedAt: '2025-01-01T00:00:00.000Z' });
    expect(await rejection(store.patchTool(TEXT_BUNDLE, 'count', '1', { isEnabled: false }))).toMatchObject({
      code: 'CONFLICT',
      details: { rule: 'bundle-disabled' },
    });
    await store.patchBundle(TEXT_BUNDLE, { isEnabled: true });
    const count = await store.patchTool(TEXT_BUNDLE, 'count', '1', { isEnabled: false });
    expect(count).toMatchObject({ isEnabled: false, isBuiltIn: true });
    const override = JSON.parse(await fs.readFile(path.join(dataDir, 'overrides', `${TEXT_BUNDLE}.json`), 'utf8'));
    expect(override).toEqual({ isEnabled: true, tools: { [count.id]: { isEnabled: false } } });
    await store.close();
    expect(await treeHash(REPO_RESOURCES)).toBe(before);

    const again = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    expect(again.store.getTool(TEXT_BUNDLE, 'count', '1').isEnabled).toBe(false);
    expect(again.store.listTools({ bundleIds: [TEXT_BUNDLE] }).items.map((t) => t.slug).sort()).toEqual(['diff', 'jsonpath', 'regex-extract']);
  });

  it('are shown disabled, with the reason, while their functions are not registered', async () => {
    const { store } = await storeWithBuiltins({ isLocalFunctionKnown: (id) => id === 'text.count' });
    expect(store.listTools().items.map((t) => t.slug)).toEqual(['count']);
    expect(store.getTool(FILES_BUNDLE, 'grep', '1')).toMatchObject({ isEnabled: false, unavailableReason: "local function 'files.grep' is not registered" });
  });

  it('an invalid built-in config is reported and skipped; the rest loads', async () => {
    const resources = path.join(await tempDir(), 'resources');
    await fs.cp(REPO_RESOURCES, resources, { recursive: true });
    const grep = path.join(resources, 'bundles', 'files', 'tools', 'grep.json');
    const config = JSON.parse(await fs.readFile(grep, 'utf8'));
    await fs.writeFile(grep, JSON.stringify({ ...config, slug: 'grep_files' }));
    await fs.writeFile(path.join(resources, 'bundles', 'text', 'bundle.json'), '{"id": ');
    const { store, problems } = await openStore(path.join(await tempDir(), 'data'), { resourcesDir: resources });
    expect(problems.list().map((p) => [p.kind, path.relative(resources, p.path)])).toEqual([
      ['invalid-config', 'bundles/files/tools/grep.json'],
      ['invalid-config', 'bundles/text/bundle.json'],
    ]);
    expect(problems.list()[0]!.message).toMatch(/slug may contain letters, digits and '-' only: got 'grep_files'/);
    const slugs = store.listTools().items.map((t) => t.slug);
    // The broken tool and the broken bundle's tools are missing; the other bundles load whole.
    expect(slugs).toEqual(expect.arrayContaining(['listdir', 'readfile', 'writefile', 'appendfile', 'calc', 'now', 'fetch-url']));
    expect(slugs).not.toContain('grep');
    expect(slugs).not.toContain('jsonpath');
  });
});
