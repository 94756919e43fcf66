/**
 * The `toolsmith` command: the real entry, bundled as `npm run build` bundles it, run as a child
 * process over a temp data folder (data set up, and results checked, through a core in this
 * process while no command runs). One test runs bin/toolsmith.mjs, the installed launcher.
 * Nothing here uses the network: the HTTP tool talks to a server on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without types
import { electronBundles } from '../../../scripts/electron-bundles.mjs';
// @ts-expect-error -- a plain .mjs build script without types
import { workerBundles } from '../../../scripts/worker-bundles.mjs';
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolView } from '../../../shared/model/tool';
import { createCore, type Core } from '../../core/app';
import type { SuiteResult } from '../../core/testcases/run-suite';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { forecastCase, weatherBundle } from '../../core/testing/eval-kit';
import { startScriptedModelServer } from '../../core/testing/scripted-model-server';
import type { EvalRun } from '../../../shared/model/evals';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
// Inside the repo, so the bundle's bare imports resolve from its node_modules as the app's do.
const OUT = path.join(ROOT, 'node_modules', '.cache', `toolsmith-cli-${process.pid}`);
const ENTRY = path.join(OUT, 'toolsmith.mjs');
const FIXTURE = path.join(import.meta.dirname, '..', 'testing', 'github-subset.json');
const TEXT_BUNDLE = '01941f29-7c05-75d4-b8b8-8211af0864fb';
// Each run starts a process and opens the core: on a busy machine that takes tens of seconds.
const SLOW = 420_000;

type Bundles = (dir: string) => Record<string, Parameters<typeof build>[0]>;

/** The few DOM parts the JUnit check reads. */
interface XmlElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}
/**
 * A strict XML parser (xmldom, already installed with the packaging tools). Loaded without its
 * types: they pull the DOM's globals into this Node project.
 */
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as {
  DOMParser: new (options: { errorHandler: Record<'warning' | 'error' | 'fatalError', (message: string) => void> }) => {
    parseFromString(text: string, type: string): { documentElement: XmlElement | null };
  };
};

beforeAll(async () => {
  await build((electronBundles as Bundles)(OUT).toolsmith!);
  await Promise.all(Object.values((workerBundles as Bundles)(OUT)).map((o) => build(o)));
}, 120_000);
afterAll(async () => {
  await fs.rm(OUT, { recursive: true, force: true });
});

const tempDir = useTempDirs();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One run of a command file with `args`, `input` on its stdin (and `env` added to this process's). */
function runFile(file: string, args: readonly string[], input?: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: ROOT, env: { ...process.env, TOOLSMITH_DATA_DIR: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** `toolsmith ARGS --data-dir DIR` (and the repo's resources). */
const cli = (dir: string, args: readonly string[], input?: string) => runFile(ENTRY, [...args, '--data-dir', dir, '--resources', RESOURCES_DIR], input);

/** Parses stdout as JSON, or fails showing what the command printed. */
function json<T>(r: Run): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout.slice(0, 800)}\nstderr:\n${r.stderr.slice(0, 800)}`);
  }
}

/** A core on the folder for setting up or checking, closed after `fn`. */
async function withCore<T>(dir: string, fn: (core: Core) => Promise<T>): Promise<T> {
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

async function must<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const countArgs = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };

describe('toolsmith (the command)', () => {
  it('lists, shows and searches tools, as JSON and as text', async () => {
    const dir = await tempDir();
    const list = await cli(dir, ['tools', 'list', '--json']);
    expect(list.code).toBe(0);
    const tools = json<ToolView[]>(list);
    const count = tools.find((t) => t.bundleId === TEXT_BUNDLE && t.slug === 'count');
    expect(count?.version).toBe('1');
    expect(tools.length).toBeGreaterThan(10);

    const text = await cli(dir, ['tools', 'list', '--bundle', 'text']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^TOOL\s+TYPE\s+STATE\s+DESCRIPTION$/m);
    expect(text.stdout).toMatch(/^text\/count@1\s+local\s+on\s+Counts/m);
    expect(text.stdout).not.toContain('files/readfile');

    const show = await cli(dir, ['tools', 'show', 'text/count', '--json']);
    expect(show.code).toBe(0);
    expect(json<ToolView>(show)).toMatchObject({ id: count!.id, slug: 'count', version: '1', type: 'local', local: { functionId: 'text.count' } });

    const search = await cli(dir, ['tools', 'search', 'count words', '--json', '--limit', '5']);
    expect(search.code).toBe(0);
    const hits = json<{ tier: string; tool: ToolView }[]>(search);
    expect(hits.length).toBeLessThanOrEqual(5);
    expect(hits.map((h) => h.tool.slug)).toContain('count');
  }, SLOW);

  it('switches a bundle off and on: the list and a call see it', async () => {
    const dir = await tempDir();
    const off = await cli(dir, ['bundles', 'disable', 'text', '--json']);
    expect(off.code).toBe(0);
    expect(json<Bundle>(off)).toMatchObject({ id: TEXT_BUNDLE, isEnabled: false });

    const bundles = json<Bundle[]>(await cli(dir, ['bundles', 'list', '--json']));
    expect(bundles.find((b) => b.id === TEXT_BUNDLE)?.isEnabled).toBe(false);

    const call = await cli(dir, ['invoke', 'text/count', '--args', '{"text":"a b"}']);
    expect(call.code).toBe(1);
    expect(call.stdout).toBe('');
    expect(call.stderr).toContain("bundle 'text' is switched off");

    const on = await cli(dir, ['bundles', 'enable', 'text']);
    expect(on.code).toBe(0);
    expect(on.stdout).toContain("Bundle 'text' switched on.");
    await withCore(dir, async (core) => expect(core.registry.store.bundleById(TEXT_BUNDLE)?.isEnabled).toBe(true));
  }, SLOW);

  it('exports a bundle to a ZIP and imports it back as a new bundle with the same tools', async () => {
    const dir = await tempDir();
    const bundleId = uuidv7();
    await withCore(dir, async (core) => {
      await core.registry.store.putBundle(bundleId, { slug: 'mine', displayName: 'Mine', description: 'Exported in a test', isEnabled: true });
      for (const [slug, version] of [
        ['words', '1'],
        ['words', '2'],
        ['lines', '1'],
      ] as const) {
        await core.registry.store.putTool(bundleId, slug, version, {
          displayName: `${slug} ${version}`,
          description: `Counts ${slug}`,
          tags: ['counting'],
          type: 'local',
          argSchema: countArgs,
          outputSchema: {},
          local: { functionId: 'text.count' },
          isEnabled: true,
        });
      }
    });
    const zip = path.join(await tempDir(), 'out', 'mine.zip');
    await fs.mkdir(path.dirname(zip));
    const exported = await cli(dir, ['bundles', 'export', 'mine', '--out', zip]);
    expect(exported.code).toBe(0);
    expect((await fs.readFile(zip)).subarray(0, 2).toString()).toBe('PK');

    const imported = await cli(dir, ['bundles', 'import', zip, '--json']);
    expect(imported.code).toBe(0);
    const report = json<{ bundleId: string; bundleSlug: string; imported: string[]; nothingImported: boolean }>(imported);
    expect(report.nothingImported).toBe(false);
    expect(report.bundleId).not.toBe(bundleId);
    expect(report.imported.sort()).toEqual(['lines@1', 'words@1', 'words@2']);

    // Imported again beside both: numbered, and the plain report says so.
    const again = await cli(dir, ['bundles', 'import', zip]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Imported 3 tools into bundle 'mine-3' /);
    expect(again.stdout).toContain("renamed: 'mine' (");
    expect(again.stdout).toContain("→ 'mine-3' (");

    const listed = await cli(dir, ['tools', 'list', '--bundle', report.bundleId, '--json']);
    const strip = (t: ToolView) => ({ slug: t.slug, version: t.version, displayName: t.displayName, description: t.description, tags: t.tags, local: t.local, argSchema: t.argSchema });
    await withCore(dir, async (core) => {
      const original = core.registry.store.toolsOf(bundleId).map(strip);
      expect(json<ToolView[]>(listed).map(strip).sort((a, b) => `${a.slug}${a.version}`.localeCompare(`${b.slug}${b.version}`))).toEqual(
        original.sort((a, b) => `${a.slug}${a.version}`.localeCompare(`${b.slug}${b.version}`)),
      );
    });
  }, SLOW);

  it('imports an OpenAPI document: one HTTP tool per operation, in a new bundle, its host allowed', async () => {
    const dir = await tempDir();
    const dry = await cli(dir, ['import', 'openapi', FIXTURE, '--bundle', 'gh', '--only', 'GET /rate_limit', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(json<{ created: string[]; dryRun: boolean }>(dry)).toMatchObject({ dryRun: true, created: [expect.any(String)] });
    await withCore(dir, async (core) => {
      expect(core.registry.store.listBundles({ includeDisabled: true }).items.map((b) => b.slug)).not.toContain('gh');
      expect(core.settings.get().allowedHosts).not.toContain('api.github.com');
    });

    const r = await cli(dir, ['import', 'openapi', FIXTURE, '--bundle', 'gh', '--json']);
    expect(r.code).toBe(0);
    const report = json<{ bundleId: string; bundleCreated: boolean; created: string[]; errors: unknown[]; hostsAdded: string[] }>(r);
    expect(report).toMatchObject({ bundleCreated: true, errors: [], hostsAdded: ['api.github.com'] });
    expect(report.created).toHaveLength(8);
    await withCore(dir, async (core) => {
      const tools = core.registry.store.toolsOf(report.bundleId);
      expect(tools.map((t) => t.slug).sort()).toEqual([...report.created].sort());
      expect(tools.every((t) => t.type === 'http' && t.http!.urlTemplate.startsWith('https://api.github.com/'))).toBe(true);
      expect(core.settings.get().allowedHosts).toContain('api.github.com');
    });
  }, SLOW);

  it('imports a curl command as an HTTP tool (its token saved as a secret) and calls it on a local server', async () => {
    const seen: { url: string; auth: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', auth: String(req.headers.authorization ?? '') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ got: req.url }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    try {
      const dir = await tempDir();
      const curl = `curl -H 'Authorization: Bearer s3cret-token' 'http://127.0.0.1:${port}/items?q=shoes'`;
      const imported = await cli(dir, ['import', 'curl', curl, '--bundle', 'mine', '--slug', 'items', '--json']);
      expect(imported.code).toBe(0);
      const report = json<{ status: string; bundleCreated: boolean; secretsSaved: string[]; hostsAdded: string[] }>(imported);
      expect(report).toMatchObject({ status: 'created', bundleCreated: true, hostsAdded: [`127.0.0.1:${port}`] });
      expect(report.secretsSaved).toHaveLength(1);
      // Nothing is sent while importing.
      expect(seen).toEqual([]);
      await withCore(dir, async (core) => {
        expect((await must(core.call('secrets.list', {}))).map((x) => x.name)).toEqual(report.secretsSaved);
      });

      const call = await cli(dir, ['invoke', 'mine/items', '--args', '{"q":"boots"}']);
      expect(call.stderr).toBe('');
      expect(call.code).toBe(0);
      expect(json<unknown>(call)).toEqual({ got: '/items?q=boots' });
      expect(seen).toEqual([{ url: '/items?q=boots', auth: 'Bearer s3cret-token' }]);

      // A second version of the same tool: --tool-version (never the program's --version).
      const v2 = await cli(dir, ['import', 'curl', curl, '--bundle', 'mine', '--slug', 'items', '--tool-version', '2', '--no-secrets', '--json']);
      expect(v2.code).toBe(0);
      const shown = await cli(dir, ['tools', 'show', 'mine/items@2', '--json']);
      expect([shown.code, json<{ version: string }>(shown).version]).toEqual([0, '2']);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  }, SLOW);

  it('invokes a tool with --args as JSON, @file and - (stdin); a call that fails exits 1 with the error on stderr', async () => {
    const dir = await tempDir();
    const inline = await cli(dir, ['invoke', 'text/count', '--args', '{"text":"one two three"}']);
    expect(inline.code).toBe(0);
    expect(json<{ words: number }>(inline).words).toBe(3);

    const file = path.join(await tempDir(), 'args.json');
    await fs.writeFile(file, JSON.stringify({ text: 'four words in here' }));
    const fromFile = await cli(dir, ['invoke', 'text/count@1', '--args', `@${file}`]);
    expect(fromFile.code).toBe(0);
    expect(json<{ words: number }>(fromFile).words).toBe(4);

    const fromStdin = await cli(dir, ['invoke', 'text/count', '--args', '-', '--meta'], JSON.stringify({ text: 'a\nb' }));
    expect(fromStdin.code).toBe(0);
    expect(json<{ ok: boolean; value: { lines: number }; invocationId: string }>(fromStdin)).toMatchObject({ ok: true, value: { lines: 2 }, invocationId: expect.any(String) });

    const failed = await cli(dir, ['invoke', 'text/count', '--args', '{"txt":"typo"}']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^toolsmith: text\/count@1 failed: VALIDATION_FAILED: /);
  }, SLOW);

  it('invokes a script tool in its sandbox (the bundled worker); one not written here is refused until --trust', async () => {
    const dir = await tempDir();
    const bundleId = uuidv7();
    await withCore(dir, async (core) => {
      await must(core.call('bundles.put', { bundleId, body: { slug: 'mine', displayName: 'Mine', description: '', isEnabled: true } }));
      const body = (source: string) => ({ displayName: 'S', description: '', tags: [], type: 'script' as const, argSchema: { type: 'object' }, outputSchema: {}, script: { source }, isEnabled: true });
      // Saved as the editor saves: trusted. Put straight into the store, as an import does: not.
      await must(core.call('tools.put', { bundleId, slug: 'shout', version: '1', body: body('function run(a, ctx) { ctx.log("shouting"); return String(a.text).toUpperCase() }') }));
      await core.registry.store.putTool(bundleId, 'foreign', '1', body('function run() { return "ran" }'));
    });
    const ok = await cli(dir, ['invoke', 'mine/shout', '--args', '{"text":"hey"}', '--meta']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json<{ value: string; logs: { text: string }[] }>(ok)).toMatchObject({ value: 'HEY', logs: [{ text: 'shouting' }] });
    const refused = await cli(dir, ['invoke', 'mine/foreign']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/FORBIDDEN: 'foreign' version '1' is a script tool that was not written in this app.*toolsmith invoke --trust/);
    const trusted = await cli(dir, ['invoke', 'mine/foreign', '--trust']);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(json<string>(trusted)).toBe('ran');
    expect(trusted.stderr).toMatch(/trusted the script of 'mine\/foreign' \(SHA-256 [0-9a-f]{64}\)/);
    expect((await cli(dir, ['invoke', 'mine/foreign'])).code).toBe(0);
  }, SLOW);

  it('--trust refuses a script whose .js does not hold what the tool records, and trusts nothing', async () => {
    const dir = await tempDir();
    const bundleId = uuidv7();
    const EVIL = 'function run() { return "evil ran" }\n';
    let recorded = '';
    await withCore(dir, async (core) => {
      await must(core.call('bundles.put', { bundleId, body: { slug: 'mine', displayName: 'Mine', description: '', isEnabled: true } }));
      const view = await core.registry.store.putTool(bundleId, 'pkg', '1', { displayName: 'S', description: '', tags: [], type: 'script', argSchema: { type: 'object' }, outputSchema: {}, script: { source: EVIL }, isEnabled: true });
      recorded = view.script!.sha256;
    });
    // A copied data folder: the .json records EVIL, the .js the user reads before --trust holds something else.
    const toolsDir = path.join(dir, 'bundles', bundleId, 'tools');
    const js = (await fs.readdir(toolsDir)).find((n) => n.endsWith('.js'))!;
    await fs.writeFile(path.join(toolsDir, js), 'function run() { return "benign" }\n');
    const refused = await cli(dir, ['invoke', 'mine/pkg', '--trust']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/could not trust 'mine\/pkg': its script file .*\.js was changed after this version was saved/);
    const trustFile = await fs.readFile(path.join(dir, 'script-trust.json'), 'utf8').catch(() => '');
    expect(trustFile).not.toContain(recorded);
    // Put back to what the .json records: it still asks (nothing was trusted).
    await fs.writeFile(path.join(toolsDir, js), EVIL);
    const still = await cli(dir, ['invoke', 'mine/pkg']);
    expect(still.code).toBe(1);
    expect(still.stderr).toMatch(/FORBIDDEN: 'pkg' version '1' is a script tool that was not written in this app/);
  }, SLOW);

  it('runs saved test cases as a suite: a failing case exits 1, the JUnit report is valid and says which', async () => {
    const dir = await tempDir();
    let failingId = '';
    await withCore(dir, async (core) => {
      await must(core.call('testcases.save', { bundleId: TEXT_BUNDLE, slug: 'count', testCase: { name: 'counts two words', args: { text: 'hello world' }, assertions: [{ kind: 'jsonPathEquals', path: '$.words', value: 2 }] } }));
      const failing = await must(
        core.call('testcases.save', { bundleId: TEXT_BUNDLE, slug: 'count', testCase: { name: 'expects <five> & fails', args: { text: 'hello world' }, assertions: [{ kind: 'jsonPathEquals', path: '$.words', value: 5 }] } }),
      );
      failingId = failing.id;
      // Cases of a slug with no saved version are skipped, not failed.
      await must(core.call('testcases.save', { bundleId: TEXT_BUNDLE, slug: 'not-saved-yet', testCase: { name: 'a draft case', args: {}, assertions: [] } }));
    });
    const report = path.join(await tempDir(), 'reports', 'junit.xml');
    const r = await cli(dir, ['test', 'text', '--reporter', 'junit', '--out', report]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^PASS {2}text\/count@1 › counts two words \(\d+ ms\)$/m);
    expect(r.stdout).toMatch(/^FAIL {2}text\/count@1 › expects <five> & fails \(\d+ ms\)$/m);
    expect(r.stdout).toContain('jsonPathEquals: expected $.words to equal 5, got 2');
    expect(r.stdout).toMatch(/^SKIP {2}text\/not-saved-yet › a draft case$/m);
    expect(r.stdout).toMatch(/^3 cases in 2 tools: 1 passed, 1 failed, 1 skipped \(\d+\.\d\d s\)$/m);
    // Progress goes to stderr.
    expect(r.stderr).toMatch(/^text\/count@1: 2 cases$/m);
    expect(r.stderr).toMatch(/^ {2}FAIL {2}expects <five> & fails \(\d+ ms\)$/m);

    const errors: string[] = [];
    const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) } }).parseFromString(await fs.readFile(report, 'utf8'), 'text/xml');
    expect(errors).toEqual([]);
    const root = doc.documentElement!;
    expect(root.tagName).toBe('testsuites');
    expect([root.getAttribute('tests'), root.getAttribute('failures'), root.getAttribute('skipped'), root.getAttribute('errors')]).toEqual(['3', '1', '1', '0']);
    const suites = Array.from(root.getElementsByTagName('testsuite'));
    expect(suites.map((s) => [s.getAttribute('name'), s.getAttribute('tests'), s.getAttribute('failures'), s.getAttribute('skipped')])).toEqual([
      ['text/count@1', '2', '1', '0'],
      ['text/not-saved-yet', '1', '0', '1'],
    ]);
    const cases = Array.from(root.getElementsByTagName('testcase'));
    expect(cases.map((c) => c.getAttribute('name'))).toEqual(['counts two words', 'expects <five> & fails', 'a draft case']);
    expect(cases.every((c) => /^\d+\.\d{3}$/.test(c.getAttribute('time') ?? ''))).toBe(true);
    expect(cases[0]!.getElementsByTagName('failure')).toHaveLength(0);
    const failure = cases[1]!.getElementsByTagName('failure')[0]!;
    expect(failure.getAttribute('message')).toBe('expected $.words to equal 5, got 2');
    expect(failure.textContent).toContain('FAIL jsonPathEquals');
    expect(cases[2]!.getElementsByTagName('skipped')[0]?.getAttribute('message')).toContain("no saved version of 'not-saved-yet'");

    // Without the failing case, every bundle switched on: exit 0, the JSON report on stdout.
    await withCore(dir, (core) => must(core.call('testcases.delete', { bundleId: TEXT_BUNDLE, slug: 'count', id: failingId })));
    const passing = await cli(dir, ['test', '--json']);
    expect(passing.code).toBe(0);
    expect(json<SuiteResult>(passing)).toMatchObject({ passed: 1, failed: 0, skipped: 1 });
  }, SLOW);

  it('asks a model the eval cases of a bundle: a failing case exits 1, the JUnit report is valid and says which; the runs are saved', async () => {
    const dir = await tempDir();
    const server = await startScriptedModelServer();
    try {
      let failingId = '';
      await withCore(dir, async (core) => {
        await must(core.call('providers.save', { provider: { name: 'Scripted', kind: 'openai-compatible', baseUrl: server.url } }));
        const bundleId = await weatherBundle(core);
        await must(core.call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'contains', text: 'Paris' }] }) }));
        const failing = await must(core.call('evals.save', { bundleId, evalCase: forecastCase({ name: 'expects <no> tool & fails', expect: { kind: 'none' } }) }));
        failingId = failing.id;
      });
      const right = { kind: 'tools' as const, calls: [{ name: 'forecast', arguments: { city: 'Paris' } }] };
      const answer = { kind: 'text' as const, text: 'Sunny in Paris.' };
      server.script([right, answer, right, answer]);
      const report = path.join(await tempDir(), 'reports', 'evals.xml');
      const r = await cli(dir, ['eval', 'weather', '--model', 'Scripted/scripted-model', '--price', 'Scripted/scripted-model=1,2', '--reporter', 'junit', '--out', report]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^PASS {2}weather › forecast for Paris \[Scripted\/scripted-model\] \(1\/1 passed, \d+(\.\d)? m?s, 20\+10 tokens, cost 0\.00004\)$/m);
      expect(r.stdout).toMatch(/^FAIL {2}weather › expects <no> tool & fails \[Scripted\/scripted-model\]/m);
      expect(r.stdout).toContain('        chose instead: weather/forecast (1×)');
      expect(r.stdout).toContain('        tool: expected no tool call; the model called weather/forecast');
      expect(r.stdout).toMatch(/^2 results \(2 cases × 1 model, 1× each\): 1 passed, 1 failed \(0 flaky\), 0 errors, 0 not run; 40\+20 tokens, cost 0\.00008 \(\d+\.\d\d s\)$/m);
      expect(r.stderr).toMatch(/^2 eval cases × 1 model × 1: 2 attempts$/m);
      expect(r.stderr).toMatch(/^ {2}FAIL {2}expects <no> tool & fails \[Scripted\/scripted-model\] #1/m);

      const errors: string[] = [];
      const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) } }).parseFromString(await fs.readFile(report, 'utf8'), 'text/xml');
      expect(errors).toEqual([]);
      const root = doc.documentElement!;
      expect(root.tagName).toBe('testsuites');
      // As the Jenkins JUnit schema has it: counts on <testsuites>, skipped and the timestamp on each <testsuite>.
      expect([root.getAttribute('tests'), root.getAttribute('failures'), root.getAttribute('errors')]).toEqual(['2', '1', '0']);
      expect(await fs.readFile(report, 'utf8')).toMatch(/^<testsuites name="toolsmith eval" tests="2" failures="1" errors="0" time="\d+\.\d{3}">$/m);
      const suites = Array.from(root.getElementsByTagName('testsuite'));
      expect(suites.map((x) => [x.getAttribute('name'), x.getAttribute('tests'), x.getAttribute('failures'), x.getAttribute('skipped')])).toEqual([['Scripted/scripted-model', '2', '1', '0']]);
      expect(suites[0]!.getAttribute('timestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const cases = Array.from(root.getElementsByTagName('testcase'));
      expect(cases.map((c) => [c.getAttribute('name'), c.getAttribute('classname')])).toEqual([
        ['forecast for Paris', 'weather'],
        ['expects <no> tool & fails', 'weather'],
      ]);
      expect(cases.every((c) => /^\d+\.\d{3}$/.test(c.getAttribute('time') ?? ''))).toBe(true);
      expect(cases[0]!.getElementsByTagName('failure')).toHaveLength(0);
      const failure = cases[1]!.getElementsByTagName('failure')[0]!;
      expect(failure.getAttribute('message')).toBe('expected no tool call; the model called weather/forecast (0 of 1 attempts passed)');
      expect(failure.textContent).toContain('attempt 1: FAIL');

      // Without the failing case: exit 0, the JSON report on stdout; both runs are saved.
      await withCore(dir, async (core) => {
        const bundleId = core.registry.store.listBundles({ includeDisabled: true, pageSize: 100 }).items.find((b) => b.slug === 'weather')!.id;
        await must(core.call('evals.delete', { bundleId, id: failingId }));
      });
      server.script([right, answer]);
      const passing = await cli(dir, ['eval', 'weather', '--model', 'Scripted/scripted-model', '--json']);
      expect(passing.code, passing.stderr).toBe(0);
      expect(json<EvalRun>(passing).totals).toMatchObject({ results: 1, passed: 1 });
      await withCore(dir, async (core) => expect(await must(core.call('evals.listRuns', {}))).toHaveLength(2));

      // Bad usage: exit 2 before anything runs; a provider that is not saved: exit 1, naming those that are.
      const noModel = await cli(dir, ['eval', 'weather']);
      expect([noModel.code, noModel.stderr]).toEqual([2, expect.stringContaining('give the model to ask: --model PROVIDER/MODEL')]);
      const badRepeat = await cli(dir, ['eval', '--model', 'Scripted/m', '--repeat', '0']);
      expect([badRepeat.code, badRepeat.stderr]).toEqual([2, expect.stringContaining('--repeat must be a whole number from 1 to 20')]);
      const unknown = await cli(dir, ['eval', '--model', 'Nope/m']);
      expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("no saved provider fits 'Nope/m': write PROVIDER/MODEL with a provider of Settings → Models ('Scripted')")]);
    } finally {
      await server.close();
    }
  }, SLOW);

  it('refuses bad usage with exit 2 and a message; --help exits 0', async () => {
    const dir = await tempDir();
    const badJson = await cli(dir, ['invoke', 'text/count', '--args', '{"text":']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('the arguments in --args are not JSON');

    const missing = await runFile(ENTRY, ['tools', 'show']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'tool'");

    const unknown = await runFile(ENTRY, ['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");

    const badRef = await cli(dir, ['tools', 'show', 'count']);
    expect(badRef.code).toBe(2);
    expect(badRef.stderr).toContain("'count' is not a tool: write BUNDLE/SLUG");

    const help = await runFile(ENTRY, ['test', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--reporter <name>');
    expect(help.stdout).toContain('--out <file>');
  }, SLOW);

  it('prints completion scripts the shell accepts, naming every command', async () => {
    const bash = await runFile(ENTRY, ['completion', 'bash']);
    expect(bash.code).toBe(0);
    for (const word of ["'tools list'", "'bundles export'", "'import openapi'", 'invoke', '--reporter', 'complete -o default -F _toolsmith toolsmith']) expect(bash.stdout).toContain(word);
    const file = path.join(await tempDir(), 'toolsmith.bash');
    await fs.writeFile(file, bash.stdout);
    const syntax = await new Promise<number | null>((ok) => spawn('bash', ['-n', file]).on('close', ok));
    expect(syntax).toBe(0);
    // The script completes: after `toolsmith bundles`, the bundle commands.
    const completed = await new Promise<string>((ok) => {
      let text = '';
      const sh = spawn('bash', ['-c', `source ${file}; COMP_WORDS=(toolsmith bundles ex); COMP_CWORD=2; _toolsmith; echo "\${COMPREPLY[@]}"`]);
      sh.stdout.on('data', (c: Buffer) => (text += c.toString()));
      sh.on('close', () => ok(text.trim()));
    });
    expect(completed).toBe('export');

    const zsh = await runFile(ENTRY, ['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toContain('compdef _toolsmith toolsmith');
    const badShell = await runFile(ENTRY, ['completion', 'fish']);
    expect(badShell.code).toBe(2);
  }, SLOW);

  it('serve starts the headless host on the data folder and stops on SIGTERM', async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, [ENTRY, 'serve', '--port', '0', '--data-dir', dir, '--resources', RESOURCES_DIR], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const closed = new Promise<number | null>((ok) => child.on('close', ok));
    try {
      const url = await new Promise<string>((ok, fail) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const m = /Toolsmith is running at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
          if (m) ok(m[1]!);
        });
        void closed.then((code) => fail(new Error(`serve ended with ${code}: ${stderr}`)));
      });
      const token = (await fs.readFile(path.join(dir, 'api-token'), 'utf8')).trim();
      const res = await fetch(`${url}rpc/app.info`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(await res.json()).toMatchObject({ ok: true, value: { host: 'headless', dataDir: dir } });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
  }, SLOW);

  it('refuses a misspelt option or an extra argument before opening any data folder: exit 2, naming it', async () => {
    // HOME of its own: a command that ignored the option would open the app's folder there.
    const home = await tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share') };
    const misspelt = path.join(home, 'mine');
    for (const [args, message] of [
      [['tools', 'list', '--data-dri', misspelt], "toolsmith: unknown option '--data-dri'"],
      [['serve', '--port', '0', '--data-dri', misspelt], "toolsmith: unknown option '--data-dri'"],
      [['bundles', 'list', misspelt], "toolsmith: too many arguments for 'list'"],
    ] as const) {
      const r = await runFile(ENTRY, args, undefined, env);
      expect([r.code, r.stdout], args.join(' ')).toEqual([2, '']);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(await fs.readdir(home), args.join(' ')).toEqual([]);
    }
    const help = await runFile(ENTRY, ['serve', '--help'], undefined, env);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('Usage: toolsmith serve [options]');
  }, SLOW);

  it('runs through bin/toolsmith.mjs, the command npm installs', async () => {
    const r = await runFile(path.join(ROOT, 'bin', 'toolsmith.mjs'), ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, SLOW);
});
