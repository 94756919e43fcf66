/**
 * The drop-in folder: a NAME.json (and NAME.js for a script) dropped there is registered in the
 * "Drop-in tools" bundle; the same files again change nothing; other content under the same
 * version, bad JSON, a tool that is not valid, a script without its .js are problems, reported
 * once, and never stop the others. A running app registers a dropped file by itself.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { openStore } from '../bundles/testing/fixtures';
import { useTempDirs } from '../testing/temp-dir';
import { DropIn, DROP_IN_JSON_MAX_BYTES, DROP_IN_SCRIPT_MAX_BYTES } from './drop-in';
import { useScriptKits } from './testing/script-kit';

const tempDir = useTempDirs();
const kit = useScriptKits({ watch: true, scriptTools: { dropInDebounceMs: 20 } });

async function setup() {
  const dataDir = path.join(await tempDir(), 'data');
  const problems = new ProblemLog(new EventBus(), () => new Date());
  const { store } = await openStore(dataDir, { problems });
  const dropIn = new DropIn({ dataDir, store, problems });
  await fs.mkdir(dropIn.dir, { recursive: true });
  const drop = (name: string, text: string) => fs.writeFile(path.join(dropIn.dir, name), text);
  return { store, problems, dropIn, drop, dataDir };
}

describe('the drop-in folder', () => {
  it('registers a script from a few lines of JSON and its .js, once, in the Drop-in tools bundle, untrusted', async () => {
    const { store, dropIn, drop, problems } = await setup();
    await drop('greet.json', JSON.stringify({ description: 'Says hello', argSchema: { type: 'object', properties: { name: { type: 'string' } } } }));
    await drop('greet.js', 'function run(a) { return "hello " + a.name }\n');
    await drop('ping.json', JSON.stringify({ slug: 'ping-http', version: '2', type: 'http', http: { method: 'GET', urlTemplate: 'https://example.com/ping' } }));
    expect(await dropIn.scan()).toEqual({ registered: ['greet@1', 'ping-http@2'], problems: [] });
    const bundle = store.listBundles({}).items.find((b) => b.slug === 'drop-in')!;
    expect(bundle).toMatchObject({ displayName: 'Drop-in tools', isEnabled: true });
    const greet = store.getTool(bundle.id, 'greet', '1');
    expect(greet).toMatchObject({ type: 'script', displayName: 'greet', description: 'Says hello', isEnabled: true });
    expect(await store.scriptForCall(greet)).toBe('function run(a) { return "hello " + a.name }\n');
    expect(store.isScriptTrusted(greet.script!.sha256)).toBe(false);
    // Again: nothing changes, nothing is reported.
    expect(await dropIn.scan()).toEqual({ registered: [], problems: [] });
    expect(store.toolsOf(bundle.id)).toHaveLength(2);
    expect(problems.list()).toEqual([]);
  });

  it('reports bad files once each, registers the good ones beside them, and asks for a new version for changed content', async () => {
    const { store, dropIn, drop, problems } = await setup();
    await drop('good.json', '{"description": "fine"}');
    await drop('good.js', 'function run() { return 1 }');
    await drop('broken.json', '{ not json');
    await drop('nobody.js', 'function run() {}');
    await drop('lonely.json', JSON.stringify({ type: 'script' }));
    await drop('bad-slug.json', JSON.stringify({ slug: 'has space', type: 'local', local: { functionId: 'text.count' } }));
    await drop('wrong.json', JSON.stringify({ type: 'http', http: { method: 'GET', urlTemplate: 'ftp://nope' } }));
    const first = await dropIn.scan();
    expect(first.registered).toEqual(['good@1']);
    expect(first.problems.map((p) => [path.basename(p.path), p.message])).toEqual([
      ['bad-slug.json', expect.stringMatching(/^drop-in: bad-slug\.json: slug may contain letters, digits and '-' only/)],
      ['broken.json', expect.stringMatching(/^drop-in: broken\.json is not readable JSON/)],
      ['lonely.json', 'drop-in: lonely.json is a script tool but lonely.js is not beside it'],
      ['wrong.json', expect.stringMatching(/^drop-in: wrong\.json is not a valid tool: http/)],
      ['nobody.js', expect.stringMatching(/^drop-in: nobody\.js has no nobody\.json beside it/)],
    ]);
    expect(problems.list()).toHaveLength(5);
    await dropIn.scan();
    expect(problems.list()).toHaveLength(5);
    // Changed under the same version: a problem; with a new version: registered beside the first.
    await drop('good.js', 'function run() { return 2 }');
    const changed = await dropIn.scan();
    expect(changed.problems.find((p) => p.path.endsWith('good.json'))?.message).toMatch(/'good' version '1' is registered already with other content; .* give this one a new "version"/);
    await drop('good.json', '{"description": "fine", "version": "2"}');
    expect((await dropIn.scan()).registered).toEqual(['good@2']);
    const bundle = store.listBundles({}).items.find((b) => b.slug === 'drop-in')!;
    expect(store.toolsOf(bundle.id).map((t) => t.version).sort()).toEqual(['1', '2']);
  });

  it.skipIf(process.platform === 'win32')('reports a named pipe, a socket, a folder and a link out of the folder as problems without opening them, and registers the files beside them', async () => {
    const { store, dropIn, drop, dataDir } = await setup();
    // A named pipe read as a file would wait for a writer forever.
    execFileSync('mkfifo', [path.join(dropIn.dir, 'aaa.json')]);
    const socket = net.createServer();
    await new Promise<void>((resolve) => socket.listen(path.join(dropIn.dir, 'sock.json'), resolve));
    await fs.mkdir(path.join(dropIn.dir, 'folder.json'));
    const outside = path.join(dataDir, 'outside.js');
    await fs.writeFile(outside, 'function run() { return "outside" }');
    await drop('peek.json', '{"description": "reads through a link"}');
    await fs.symlink(outside, path.join(dropIn.dir, 'peek.js'));
    await drop('good.json', '{"description": "fine"}');
    await drop('good.js', 'function run() { return 1 }');
    await drop('inner.json', '{"description": "a link inside the folder"}');
    await drop('inner-source.txt', 'function run() { return 2 }');
    await fs.symlink(path.join(dropIn.dir, 'inner-source.txt'), path.join(dropIn.dir, 'inner.js'));
    try {
      const r = await dropIn.scan();
      expect(r.registered).toEqual(['good@1', 'inner@1']);
      expect(r.problems.map((p) => [path.basename(p.path), p.message])).toEqual([
        ['aaa.json', 'drop-in: aaa.json is not a regular file (a named pipe); only files are read from the drop-in folder'],
        ['folder.json', 'drop-in: folder.json is not a regular file (a folder); only files are read from the drop-in folder'],
        ['peek.json', 'drop-in: peek.js is a symbolic link that leads out of the drop-in folder; put the file itself there'],
        ['sock.json', 'drop-in: sock.json is not a regular file (a socket); only files are read from the drop-in folder'],
      ]);
      await dropIn.idle();
      const bundle = store.listBundles({}).items.find((b) => b.slug === 'drop-in')!;
      expect(store.toolsOf(bundle.id).map((t) => t.slug).sort()).toEqual(['good', 'inner']);
    } finally {
      socket.close();
    }
  });

  it('reports a file over its cap without reading it', async () => {
    const { dropIn, drop } = await setup();
    await drop('huge.json', `{"description": "${'x'.repeat(DROP_IN_JSON_MAX_BYTES)}"}`);
    await drop('big.json', '{"description": "a big script"}');
    await drop('big.js', `function run() { return 1 }\n//${'x'.repeat(DROP_IN_SCRIPT_MAX_BYTES)}`);
    const r = await dropIn.scan();
    expect(r.registered).toEqual([]);
    expect(r.problems.map((p) => [path.basename(p.path), p.message])).toEqual([
      ['big.json', expect.stringMatching(/^drop-in: big\.js is \d+ bytes; a dropped script may hold at most 256 KiB$/)],
      ['huge.json', expect.stringMatching(/^drop-in: huge\.json is \d+ bytes; a dropped tool file may hold at most 1 MiB$/)],
    ]);
  });

  it('in a running app, a dropped pair is registered by itself, and its first run asks', async () => {
    const k = await kit();
    const info = await k.core.call('app.info', {});
    const dir = info.ok ? info.value.dropInDir! : '';
    expect(dir).toBe(path.join(k.dataDir, 'drop-in'));
    await fs.writeFile(path.join(dir, 'sum.js'), 'function run(a) { return a.x + a.y }');
    await fs.writeFile(path.join(dir, 'sum.json'), JSON.stringify({ description: 'Adds', argSchema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } }));
    const tool = await vi.waitFor(
      () => {
        const t = k.core.registry.store.allTools().find((x) => x.slug === 'sum');
        if (!t) throw new Error('not yet');
        return t;
      },
      { timeout: 20_000, interval: 50 },
    );
    const ref = { bundleId: tool.bundleId, slug: 'sum', version: '1' };
    const first = await k.core.call('tools.invoke', { ...ref, args: { x: 1, y: 2 }, source: 'user' });
    expect(first.ok || first.error.code).toBe('FORBIDDEN');
    await k.core.call('tools.trustScript', { ...ref, sha256: tool.script!.sha256 });
    const second = await k.core.call('tools.invoke', { ...ref, args: { x: 1, y: 2 }, source: 'user' });
    expect(second.ok && (second.value as { value: unknown }).value).toBe(3);
  });
});
