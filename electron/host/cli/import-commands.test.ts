/**
 * `toolsmith import openapi`, run in this process on a temp data folder: a document's
 * private-network hosts are named and left out of Settings → Allowed hosts unless
 * --allow-private asks for them. `toolsmith import curl` keeps the command's values as the
 * arguments' defaults: the tool it makes is invoked with no --args against a server on
 * 127.0.0.1. (The command as a child process: ../cli.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../core/app';
import { startHttpServer } from '../../core/invoke/http/testing/servers';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { useCapturedOutput } from '../testing/captured-output';
import { runCliProcess } from './run-process';

const tempDir = useTempDirs();
const SLOW = 120_000;

const io = useCapturedOutput();

function run(argv: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    runCliProcess(argv, { exit: resolve }).catch(reject);
  });
}

/** The private hosts the document names, as the importer proposes them (URL has normalised the IPv4 spellings). */
const PRIVATE = ['169.254.169.254', '127.0.0.1:6379', '10.0.0.5:8080', 'localhost:3000', '[::1]:8080', '[fd00::5]', '0.0.0.0', '127.0.0.1:8081', '127.0.0.1:8082', '0xa9fea9fe:9000'];
const PUBLIC = ['api.example.com', '93.184.216.34'];

/** A document whose servers name public and private hosts, in decimal and hex too, and one through a variable's default. */
async function writeDocument(): Promise<string> {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Mixed servers', version: '1.0.0' },
    servers: [
      { url: 'https://api.example.com/v1' },
      { url: 'http://169.254.169.254/latest' },
      { url: 'http://127.0.0.1:6379' },
      { url: 'http://10.0.0.5:8080' },
      { url: 'http://localhost:3000' },
      { url: 'http://[::1]:8080' },
      { url: 'http://[fd00::5]' },
      { url: 'http://0.0.0.0' },
      { url: 'http://2130706433:8081' },
      { url: 'http://0x7f000001:8082' },
      { url: 'https://93.184.216.34' },
      { url: 'http://{box}:9000', variables: { box: { default: '0xa9fea9fe' } } },
    ],
    paths: { '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok' } } } } },
  };
  const file = path.join(await tempDir(), 'mixed.json');
  await fs.writeFile(file, JSON.stringify(doc));
  return file;
}

async function allowedHosts(dir: string): Promise<string[]> {
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  try {
    return core.settings.get().allowedHosts;
  } finally {
    await core.close();
  }
}

describe('toolsmith import openapi: the allowed hosts it adds', () => {
  it('adds the public hosts only, and names each private one with how to allow it', { timeout: SLOW }, async () => {
    const file = await writeDocument();
    const dir = await tempDir();
    const code = await run(['import', 'openapi', file, '--bundle', 'mixed', '--data-dir', dir, '--resources', RESOURCES_DIR]);
    expect(code, io.err).toBe(0);
    const hosts = await allowedHosts(dir);
    for (const h of PUBLIC) expect(hosts).toContain(h);
    for (const h of PRIVATE) expect(hosts).not.toContain(h);
    expect(io.out).toContain(`Added to Settings → Allowed hosts: ${PUBLIC.join(', ')}`);
    expect(io.out).toContain('Not added to Settings → Allowed hosts: the document names private-network hosts');
    for (const h of PRIVATE) expect(io.out).toMatch(new RegExp(`^  ${h.replace(/[.[\]]/g, '\\$&')}: .+$`, 'm'));
    expect(io.out).toMatch(/169\.254\.169\.254: a link-local address/);
    expect(io.out).toContain('import again with --allow-private, or add them in Settings → Allowed hosts');

    // As JSON: what was added and what was left out.
    const again = await tempDir();
    io.out = '';
    expect(await run(['import', 'openapi', file, '--bundle', 'mixed', '--json', '--data-dir', again, '--resources', RESOURCES_DIR])).toBe(0);
    const report = JSON.parse(io.out) as { hostsAdded: string[]; hostsNotAdded: { host: string; why: string }[] };
    expect(report.hostsAdded).toEqual(PUBLIC);
    expect(report.hostsNotAdded.map((h) => h.host)).toEqual(PRIVATE);
  });

  it('adds the private hosts too with --allow-private', { timeout: SLOW }, async () => {
    const file = await writeDocument();
    const dir = await tempDir();
    const code = await run(['import', 'openapi', file, '--bundle', 'mixed', '--allow-private', '--json', '--data-dir', dir, '--resources', RESOURCES_DIR]);
    expect(code, io.err).toBe(0);
    const report = JSON.parse(io.out) as { hostsAdded: string[]; hostsNotAdded: unknown[] };
    expect(report.hostsAdded).toEqual([...PUBLIC, ...PRIVATE]);
    expect(report.hostsNotAdded).toEqual([]);
    const hosts = await allowedHosts(dir);
    for (const h of [...PUBLIC, ...PRIVATE]) expect(hosts).toContain(h);
  });
});

const GITHUB = path.join(import.meta.dirname, '..', 'testing', 'github-subset.json');

/** Settings → Limits → Tools per bundle on the folder, set as the app sets it. */
async function setToolsPerBundle(dir: string, limit: number): Promise<void> {
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  try {
    const r = await core.call('settings.set', { maxToolsPerBundle: limit });
    if (!r.ok) throw new Error(r.error.message);
  } finally {
    await core.close();
  }
}

async function toolSlugsOf(dir: string, bundleSlug: string): Promise<string[]> {
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  try {
    const tools = core.registry.store.allTools();
    const bundleIds = new Set(tools.filter((t) => core.registry.store.bundleById(t.bundleId)?.slug === bundleSlug).map((t) => t.bundleId));
    return tools.filter((t) => bundleIds.has(t.bundleId)).map((t) => t.slug).sort();
  } finally {
    await core.close();
  }
}

describe('toolsmith import into a full bundle (Settings → Limits → Tools per bundle)', () => {
  it('openapi: stops at the first refusal, reports the rest as not imported with the store’s message (never as existing), exit 1', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    await setToolsPerBundle(dir, 3);
    const common = ['--bundle', 'gh', '--data-dir', dir, '--resources', RESOURCES_DIR];
    const full = "bundle 'gh' holds 3 tools, the most Settings → Limits → Tools per bundle allows (3)";

    expect(await run(['import', 'openapi', GITHUB, ...common])).toBe(1);
    expect(io.out).toContain("Created 3 of 8 tools in bundle 'gh' (version 1).");
    expect(io.out.match(/^ {2}\+ gh\//gm)).toHaveLength(3);
    expect(io.out).toMatch(new RegExp(`^  ! gh/issues-get-label@1: ${full.replace(/[()]/g, '\\$&')}`, 'm'));
    expect(io.out.match(/^ {2}- gh\/\S+ not imported$/gm)).toHaveLength(4);
    expect(io.out).toContain(`Not imported: 4 tools after the bundle was full: ${full}`);
    expect(io.out).not.toContain('already exists');
    expect(io.err).toContain(`toolsmith: 5 of 8 tools not imported: ${full}`);
    expect(await toolSlugsOf(dir, 'gh')).toHaveLength(3);

    // As JSON; the three that are there now exist, the others are still refused.
    io.out = '';
    expect(await run(['import', 'openapi', GITHUB, '--json', ...common])).toBe(1);
    const report = JSON.parse(io.out) as { created: string[]; existing: string[]; errors: { message: string }[]; notImported: { slug: string; message: string }[]; nothingNew: boolean };
    expect([report.created, report.existing.length, report.nothingNew]).toEqual([[], 3, false]);
    expect(report.errors).toEqual([{ slug: 'issues-get-label', message: expect.stringContaining(full) }]);
    expect(report.notImported).toHaveLength(4);
    for (const x of report.notImported) expect(x.message).toContain(full);
  });

  it('curl: the full bundle’s message, not "exists already", exit 1', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    await setToolsPerBundle(dir, 1);
    const common = ['--bundle', 'shop', '--data-dir', dir, '--resources', RESOURCES_DIR];
    expect(await run(['import', 'curl', 'curl https://api.example.com/items', '--slug', 'items', ...common]), io.err).toBe(0);
    io.err = '';
    expect(await run(['import', 'curl', 'curl https://api.example.com/orders', '--slug', 'orders', ...common])).toBe(1);
    expect(io.err).toContain("the tool could not be saved: bundle 'shop' holds 1 tool, the most Settings → Limits → Tools per bundle allows (1)");
    expect(io.out + io.err).not.toMatch(/exists already|already exists/);
  });
});

describe('toolsmith import again: nothing new is not a failure', () => {
  it('openapi and curl: when every tool exists already and nothing failed, exit 0 and say "Nothing new"', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];
    expect(await run(['import', 'openapi', GITHUB, '--bundle', 'gh', ...common]), io.err).toBe(0);
    io.out = '';
    expect(await run(['import', 'openapi', GITHUB, '--bundle', 'gh', ...common]), io.err).toBe(0);
    expect(io.out).toContain("Nothing new: all 8 tools exist already in bundle 'gh' (version 1) and each was left as it is");
    expect(io.out.match(/^ {2}= gh\/\S+ already exists; left as it is$/gm)).toHaveLength(8);
    io.out = '';
    expect(await run(['import', 'openapi', GITHUB, '--bundle', 'gh', '--json', ...common]), io.err).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ created: [], errors: [], notImported: [], nothingNew: true });

    const curl = "curl 'https://api.example.com/items?q=shoes'";
    expect(await run(['import', 'curl', curl, '--bundle', 'shop', ...common]), io.err).toBe(0);
    io.out = '';
    io.err = '';
    expect(await run(['import', 'curl', curl, '--bundle', 'shop', ...common]), io.err).toBe(0);
    expect(io.out).toContain("Nothing new: the tool exists already in bundle 'shop' (version 1) and was left as it is");
    io.out = '';
    expect(await run(['import', 'curl', curl, '--bundle', 'shop', '--json', ...common]), io.err).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ status: 'exists', nothingNew: true });
  });
});

describe('toolsmith import curl: the command runs as pasted', () => {
  it('keeps the values as typed defaults: the tool is invoked with no --args, and typed --args replace them', { timeout: SLOW }, async () => {
    const server = await startHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url }));
    });
    try {
      const dir = await tempDir();
      const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];
      const curl = `curl '${server.origin}/forecast?city=Oslo&days=2&metric=true'`;
      expect(await run(['import', 'curl', curl, '--bundle', 'weather', '--slug', 'forecast', ...common]), io.err).toBe(0);
      expect(io.out).toContain('  arguments: city (string, default "Oslo"), days (integer, default 2), metric (boolean, default true)');
      expect(server.requests).toEqual([]);

      io.out = '';
      expect(await run(['invoke', 'weather/forecast', ...common]), io.err).toBe(0);
      expect(JSON.parse(io.out)).toEqual({ url: '/forecast?city=Oslo&days=2&metric=true' });
      io.out = '';
      expect(await run(['invoke', 'weather/forecast', '--args', '{"days":3}', ...common]), io.err).toBe(0);
      expect(JSON.parse(io.out)).toEqual({ url: '/forecast?city=Oslo&days=3&metric=true' });
      expect(server.requests.map((r) => r.url)).toEqual(['/forecast?city=Oslo&days=2&metric=true', '/forecast?city=Oslo&days=3&metric=true']);

      // --json reports the arguments with their defaults too.
      io.out = '';
      expect(await run(['import', 'curl', curl, '--bundle', 'weather', '--slug', 'forecast', '--tool-version', '2', '--json', ...common]), io.err).toBe(0);
      expect((JSON.parse(io.out) as { arguments: unknown }).arguments).toEqual([
        { name: 'city', type: 'string', required: false, default: 'Oslo' },
        { name: 'days', type: 'integer', required: false, default: 2 },
        { name: 'metric', type: 'boolean', required: false, default: true },
      ]);
    } finally {
      await server.close();
    }
  });
});
