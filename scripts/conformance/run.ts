/**
 * `npm run conformance -- server|client [options]`: the official MCP conformance suite
 * (@modelcontextprotocol/conformance) against Toolsmith's MCP server and client; a table per
 * scenario, totals, and what changed against baseline.json. See docs/mcp-conformance.md.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBridge } from './bridge';
import { CLI, checkBuild, seedFixture, startHost } from './host';
import { afterCleanup, cleanup, exited, installSignalHandlers, onCleanup, start } from './processes';
import { nameMap, startAssets, startProxy } from './proxy';
import {
  compare,
  formatBaseline,
  formatComparison,
  formatTable,
  formatTotals,
  readResults,
  toBaselineRun,
  totals,
  type Baseline,
  type RunKind,
  type ScenarioResult,
} from './results';
import { CACHE, ensureTools, ROOT, SUITE_NEXT, SUITE_STABLE, type Tools } from './tools';

const USAGE = `usage: npm run conformance -- <server|client> [options]

  server                 the suite's server scenarios against /mcp on the headless host
  client                 the suite's client scenarios against Toolsmith's MCP client (driver.ts)

  --spec 2025-11-25      scenarios of that revision (default), suite ${SUITE_NEXT}
  --requirements 2026-07-28
                         exactly the scenarios that revision requires, suite ${SUITE_NEXT}
  --stable               the suite's stable release ${SUITE_STABLE}, all its scenarios (2025 only)
  --stdio                server: \`toolsmith mcp\` over stdio, through an HTTP bridge
  --scenario <name>      one scenario only
  --timeout <ms>         per scenario (suite default: 30000)
  --update-baseline      store this run's figures in scripts/conformance/baseline.json
  --verbose              the suite's own output as it runs

Exit code: 0 when no scenario that passes in the baseline fails now, 1 when one does, 2 when
the run could not be made.`;

const BASELINE = path.join(import.meta.dirname, 'baseline.json');

interface Options {
  kind: RunKind;
  stdio: boolean;
  /** The revision (`--spec`, `--requirements`) or `stable`. */
  target: string;
  requirements: boolean;
  scenario?: string;
  timeout?: string;
  updateBaseline: boolean;
  verbose: boolean;
}

function parse(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      spec: { type: 'string' },
      requirements: { type: 'string' },
      stable: { type: 'boolean', default: false },
      stdio: { type: 'boolean', default: false },
      scenario: { type: 'string' },
      timeout: { type: 'string' },
      'update-baseline': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const kind = positionals[0];
  if (values.help || (kind !== 'server' && kind !== 'client') || positionals.length > 1) throw new UsageError(USAGE);
  if ([values.spec, values.requirements, values.stable || undefined].filter((v) => v !== undefined).length > 1) {
    throw new UsageError('give one of --spec, --requirements and --stable');
  }
  if (values.stdio && kind !== 'server') throw new UsageError('--stdio is for server runs');
  const target = values.stable ? 'stable' : (values.requirements ?? values.spec ?? '2025-11-25');
  if (values['update-baseline'] && values.scenario) throw new UsageError('--update-baseline stores a whole run: leave out --scenario');
  return {
    kind,
    stdio: values.stdio,
    target,
    requirements: values.requirements !== undefined,
    scenario: values.scenario,
    timeout: values.timeout,
    updateBaseline: values['update-baseline'],
    verbose: values.verbose,
  };
}

class UsageError extends Error {}

/** The key of a run in baseline.json: `server-http@2025-11-25`, `server-stdio@2026-07-28`, `client@stable`. */
function runKey(o: Options): string {
  const who = o.kind === 'client' ? 'client' : o.stdio ? 'server-stdio' : 'server-http';
  return `${who}@${o.target}`;
}

/** The suite's arguments that pick the scenarios. */
function selection(o: Options): string[] {
  if (o.scenario) return ['--scenario', o.scenario, ...(o.target === 'stable' ? [] : ['--spec-version', o.target, '--force'])];
  if (o.target === 'stable') return ['--suite', 'all'];
  if (o.requirements) return ['--requirements', o.target];
  // A server run's default suite is the active scenarios; a client run must name one.
  return o.kind === 'client' ? ['--suite', 'all', '--spec-version', o.target] : ['--spec-version', o.target];
}

/** Runs the suite to the end; its output goes to `logFile` (and the terminal with --verbose). */
async function runSuite(tools: Tools, args: string[], logFile: string, verbose: boolean): Promise<string> {
  const log = createWriteStream(logFile);
  const child = start(tools.node22, [tools.suite, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const take = (d: Buffer) => {
    const s = d.toString('utf8');
    text += s;
    log.write(d);
    if (verbose) process.stderr.write(s);
    else for (const m of s.matchAll(/^(?:=== Running scenario: (\S+) ===|Starting scenario: (\S+))$/gm)) process.stderr.write(`  ${m[1] ?? m[2]}\n`);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  await exited(child);
  await new Promise<void>((done) => log.end(() => done()));
  return text;
}

async function git(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('close', () => resolve(out.trim()));
    child.on('error', () => resolve(''));
  });
}

async function serverRun(o: Options, tools: Tools, runDir: string): Promise<string> {
  const problem = await checkBuild();
  if (problem) throw new UsageError(problem);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-conformance-'));
  afterCleanup(() => fs.rm(dataDir, { recursive: true, force: true }));
  process.stderr.write(`conformance: starting the headless host on ${dataDir}\n`);
  const assets = await startAssets();
  onCleanup(assets.close);
  const host = await startHost(dataDir, path.join(runDir, 'host.log'));
  const slugs = await seedFixture(host, `http://127.0.0.1:${assets.port}`);
  let upstreamPort = host.port;
  if (o.stdio) {
    const bridgeLog = createWriteStream(path.join(runDir, 'stdio.log'));
    onCleanup(() => new Promise<void>((done) => bridgeLog.end(() => done())));
    const bridge = await startBridge({ command: [process.execPath, CLI, 'mcp', '--data-dir', dataDir], log: (line) => bridgeLog.write(`${line}\n`) });
    onCleanup(bridge.close);
    upstreamPort = bridge.port;
  }
  const proxy = await startProxy({ upstreamPort, token: o.stdio ? undefined : host.mcpToken, names: nameMap(slugs) });
  onCleanup(proxy.close);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;
  process.stderr.write(`conformance: suite ${tools.suiteVersion} against ${o.stdio ? '`toolsmith mcp` (stdio, bridged)' : '/mcp'} at ${url}\n`);
  const args = ['server', '--url', url, ...selection(o), '-o', path.join(runDir, 'results')];
  return runSuite(tools, [...args, ...(o.timeout ? ['--timeout', o.timeout] : [])], path.join(runDir, 'suite.log'), o.verbose);
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

async function clientRun(o: Options, tools: Tools, runDir: string): Promise<string> {
  // The suite splits the command on spaces and runs it through a shell, adding the server's URL.
  const tsx = import.meta.resolve('tsx');
  const driver = path.join(import.meta.dirname, 'driver.ts');
  const command = [process.execPath, '--import', tsx, driver].map(shellQuote).join(' ');
  if ([process.execPath, driver].some((p) => p.includes(' '))) throw new UsageError('the suite cannot start a command whose path holds a space; run from a checkout without one');
  process.stderr.write(`conformance: suite ${tools.suiteVersion} client scenarios against Toolsmith's MCP client\n`);
  const args = ['client', '--command', command, ...selection(o), '-o', path.join(runDir, 'results')];
  return runSuite(tools, [...args, ...(o.timeout ? ['--timeout', o.timeout] : [])], path.join(runDir, 'suite.log'), o.verbose);
}

async function readBaseline(): Promise<Baseline> {
  try {
    return JSON.parse(await fs.readFile(BASELINE, 'utf8')) as Baseline;
  } catch {
    return { runs: {} };
  }
}

function report(o: Options, key: string, results: ScenarioResult[], baseline: Baseline, runDir: string): boolean {
  const t = totals(results);
  console.log(`\n${key} (suite ${o.target === 'stable' ? SUITE_STABLE : SUITE_NEXT})\n`);
  console.log(formatTable(results));
  console.log(`\n${formatTotals(t)}`);
  const base = baseline.runs[key];
  let regressed = false;
  if (base) {
    const c = compare(base, results, !o.scenario);
    regressed = c.newlyFailing.length > 0;
    console.log(`\n${formatComparison(c, `${base.date}, ${base.commit}`)}`);
    if (base.note) console.log(`Note: ${base.note}`);
  } else {
    console.log(`\nNo baseline for ${key} in scripts/conformance/baseline.json.`);
  }
  console.log(`\nRaw results: ${path.relative(ROOT, runDir)}/`);
  return regressed;
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    return 2;
  }
  installSignalHandlers();
  const key = runKey(o);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const runDir = path.join(CACHE, 'runs', `${key.replace('@', '-')}-${stamp}`);
  await fs.mkdir(runDir, { recursive: true });
  try {
    const tools = await ensureTools(o.target === 'stable' ? SUITE_STABLE : SUITE_NEXT);
    const log = o.kind === 'server' ? await serverRun(o, tools, runDir) : await clientRun(o, tools, runDir);
    await cleanup();
    const results = await readResults(path.join(runDir, 'results'), o.kind, log);
    if (results.length === 0) {
      console.error(`conformance: the suite wrote no results; its output is in ${path.relative(ROOT, runDir)}/suite.log`);
      return 2;
    }
    await fs.writeFile(path.join(runDir, 'summary.json'), JSON.stringify({ key, totals: totals(results), scenarios: results }, null, 2) + '\n');
    const baseline = await readBaseline();
    const regressed = report(o, key, results, baseline, runDir);
    if (o.updateBaseline) {
      const commit = (await git(['rev-parse', '--short', 'HEAD'])) || 'unknown';
      const dirty = (await git(['status', '--porcelain', '--', 'electron', 'shared'])) ? '+changes' : '';
      const previous = baseline.runs[key];
      baseline.runs[key] = toBaselineRun(results, {
        suite: o.target === 'stable' ? SUITE_STABLE : SUITE_NEXT,
        commit: commit + dirty,
        date: new Date().toISOString().slice(0, 10),
        ...(previous?.note ? { note: previous.note } : {}),
      });
      await fs.writeFile(BASELINE, formatBaseline(baseline));
      console.log(`Baseline for ${key} updated.`);
    }
    return regressed ? 1 : 0;
  } catch (e) {
    console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  } finally {
    await cleanup();
  }
}

process.exit(await main());
