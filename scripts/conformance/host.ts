/**
 * The server under test: the built headless host (`dist-electron/serve.mjs`) on a fresh data
 * folder, with the fixture bundle (fixtures/bundle.json) put in over the REST API and served
 * over MCP (Settings → MCP server: on, that bundle only).
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { exited, start } from './processes';
import { ROOT } from './tools';

export const SERVE = path.join(ROOT, 'dist-electron', 'serve.mjs');
export const CLI = path.join(ROOT, 'dist-electron', 'toolsmith.mjs');

interface Fixture {
  bundleId: string;
  bundle: Record<string, unknown>;
  tools: { slug: string; body: Record<string, unknown> }[];
}

export async function readFixture(): Promise<Fixture> {
  return JSON.parse(await fs.readFile(path.join(import.meta.dirname, 'fixtures', 'bundle.json'), 'utf8')) as Fixture;
}

/** The newest modification time of the files under `dir` (ms), for "is the build older than the source". */
async function newest(dir: string): Promise<number> {
  let latest = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && /\.(ts|tsx|json)$/.test(e.name)) latest = Math.max(latest, (await fs.stat(path.join(e.parentPath, e.name))).mtimeMs);
  }
  return latest;
}

/** Null when the build is there; otherwise what to do. A build older than the source only warns. */
export async function checkBuild(): Promise<string | null> {
  if (!existsSync(SERVE) || !existsSync(CLI)) return 'the headless host is not built: run `npm run build` first.';
  const built = statSync(SERVE).mtimeMs;
  const source = Math.max(await newest(path.join(ROOT, 'electron')), await newest(path.join(ROOT, 'shared')));
  if (source > built) process.stderr.write('conformance: warning: electron/ or shared/ changed after the last build; run `npm run build` to measure the current code.\n');
  return null;
}

export interface Host {
  child: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  mcpToken: string;
}

/** Starts the host on `dataDir` (port chosen by the system), its output going to `logFile`. */
export async function startHost(dataDir: string, logFile: string): Promise<Host> {
  const child = start(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile);
  child.stderr!.pipe(log);
  let seen = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host did not start within 60 s; see ${logFile}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      log.write(d);
      seen += d.toString('utf8');
      const m = /running at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited(child).then((code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited (code ${code}) before it was ready; see ${logFile}`));
    });
  });
  const mcpToken = (await fs.readFile(path.join(dataDir, 'mcp-token'), 'utf8')).trim();
  return { child, url, port: Number(new URL(url).port), dataDir, mcpToken };
}

async function rpc(host: Host, apiToken: string, name: string, input: unknown): Promise<unknown> {
  const r = await fetch(`${host.url}rpc/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  const b = (await r.json()) as { ok: boolean; value?: unknown; error?: unknown };
  if (!b.ok) throw new Error(`${name}: ${JSON.stringify(b.error)}`);
  return b.value;
}

/** Puts the fixture bundle in and serves it over MCP; `assetsOrigin` is where its HTTP tools fetch from. Answers the slugs. */
export async function seedFixture(host: Host, assetsOrigin: string): Promise<string[]> {
  const apiToken = (await fs.readFile(path.join(host.dataDir, 'api-token'), 'utf8')).trim();
  const fixture = await readFixture();
  await rpc(host, apiToken, 'bundles.put', { bundleId: fixture.bundleId, body: fixture.bundle });
  for (const t of fixture.tools) {
    const body = JSON.parse(JSON.stringify(t.body).replaceAll('{{assets}}', assetsOrigin)) as Record<string, unknown>;
    await rpc(host, apiToken, 'tools.put', {
      bundleId: fixture.bundleId,
      slug: t.slug,
      version: '1',
      body: { displayName: t.slug, tags: [], isEnabled: true, outputSchema: {}, ...body },
    });
  }
  const settings = (await rpc(host, apiToken, 'settings.get', {})) as { mcpServer?: Record<string, unknown> };
  await rpc(host, apiToken, 'settings.set', {
    allowedHosts: [new URL(assetsOrigin).host],
    mcpServer: { ...settings.mcpServer, enabled: true, bundleIds: [fixture.bundleId] },
  });
  return fixture.tools.map((t) => t.slug);
}
