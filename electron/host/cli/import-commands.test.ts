/**
 * `toolsmith import openapi`, run in this process on a temp data folder: a document's
 * private-network hosts are named and left out of Settings → Allowed hosts unless
 * --allow-private asks for them. `toolsmith import curl` keeps the command's values as the
 * arguments' defaults: the tool it makes is invoked with no --args against a server on
 * 127.0.0.1. (The command as a child process: ../cli.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCore } from '../../core/app';
import { startHttpServer } from '../../core/invoke/http/test-servers';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { runCliProcess } from './run-process';

const tempDir = useTempDirs();
const SLOW = 120_000;

let stdout = '';
let stderr = '';
// runCliProcess sends console.log to stderr for the rest of the process: put it back after each test.
const saved = { log: console.log, info: console.info, debug: console.debug };
beforeEach(() => {
  stdout = '';
  stderr = '';
  for (const [stream, add] of [
    [process.stdout, (t: string) => (stdout += t)],
    [process.stderr, (t: string) => (stderr += t)],
  ] as const) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      add(String(chunk));
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  Object.assign(console, saved);
});

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
    expect(code, stderr).toBe(0);
    const hosts = await allowedHosts(dir);
    for (const h of PUBLIC) expect(hosts).toContain(h);
    for (const h of PRIVATE) expect(hosts).not.toContain(h);
    expect(stdout).toContain(`Added to Settings → Allowed hosts: ${PUBLIC.join(', ')}`);
    expect(stdout).toContain('Not added to Settings → Allowed hosts: the document names private-network hosts');
    for (const h of PRIVATE) expect(stdout).toMatch(new RegExp(`^  ${h.replace(/[.[\]]/g, '\\$&')}: .+$`, 'm'));
    expect(stdout).toMatch(/169\.254\.169\.254: a link-local address/);
    expect(stdout).toContain('import again with --allow-private, or add them in Settings → Allowed hosts');

    // As JSON: what was added and what was left out.
    const again = await tempDir();
    stdout = '';
    expect(await run(['import', 'openapi', file, '--bundle', 'mixed', '--json', '--data-dir', again, '--resources', RESOURCES_DIR])).toBe(0);
    const report = JSON.parse(stdout) as { hostsAdded: string[]; hostsNotAdded: { host: string; why: string }[] };
    expect(report.hostsAdded).toEqual(PUBLIC);
    expect(report.hostsNotAdded.map((h) => h.host)).toEqual(PRIVATE);
  });

  it('adds the private hosts too with --allow-private', { timeout: SLOW }, async () => {
    const file = await writeDocument();
    const dir = await tempDir();
    const code = await run(['import', 'openapi', file, '--bundle', 'mixed', '--allow-private', '--json', '--data-dir', dir, '--resources', RESOURCES_DIR]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as { hostsAdded: string[]; hostsNotAdded: unknown[] };
    expect(report.hostsAdded).toEqual([...PUBLIC, ...PRIVATE]);
    expect(report.hostsNotAdded).toEqual([]);
    const hosts = await allowedHosts(dir);
    for (const h of [...PUBLIC, ...PRIVATE]) expect(hosts).toContain(h);
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
      expect(await run(['import', 'curl', curl, '--bundle', 'weather', '--slug', 'forecast', ...common]), stderr).toBe(0);
      expect(stdout).toContain('  arguments: city (string, default "Oslo"), days (integer, default 2), metric (boolean, default true)');
      expect(server.requests).toEqual([]);

      stdout = '';
      expect(await run(['invoke', 'weather/forecast', ...common]), stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ url: '/forecast?city=Oslo&days=2&metric=true' });
      stdout = '';
      expect(await run(['invoke', 'weather/forecast', '--args', '{"days":3}', ...common]), stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ url: '/forecast?city=Oslo&days=3&metric=true' });
      expect(server.requests.map((r) => r.url)).toEqual(['/forecast?city=Oslo&days=2&metric=true', '/forecast?city=Oslo&days=3&metric=true']);

      // --json reports the arguments with their defaults too.
      stdout = '';
      expect(await run(['import', 'curl', curl, '--bundle', 'weather', '--slug', 'forecast', '--tool-version', '2', '--json', ...common]), stderr).toBe(0);
      expect((JSON.parse(stdout) as { arguments: unknown }).arguments).toEqual([
        { name: 'city', type: 'string', required: false, default: 'Oslo' },
        { name: 'days', type: 'integer', required: false, default: 2 },
        { name: 'metric', type: 'boolean', required: false, default: true },
      ]);
    } finally {
      await server.close();
    }
  });
});
