// `npm test`: lint, typecheck, the shell's security scan, build, unit and integration tests,
// end-to-end tests.
// Every suite runs even when an earlier one fails; the last line adds them all up.
// Lint, typecheck and the scan do not depend on each other: they run at once (one alone leaves a
// core idle), each one's output shown whole, in this order, once all have ended. The build comes
// after them: it may rewrite shared/contract-names.ts, which lint and typecheck read.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const RESULTS = '.test-results';
rmSync(`${RESULTS}/unit.json`, { force: true });
rmSync(`${RESULTS}/e2e.json`, { force: true });
mkdirSync(RESULTS, { recursive: true });

const rows = [];
const total = { passed: 0, failed: 0, skipped: 0 };

const ENV = { ...process.env, FORCE_COLOR: process.env.CI ? '0' : '1' };

function run(label, cmd, args) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: ENV });
  return { ok: r.status === 0, seconds: ((Date.now() - started) / 1000).toFixed(1) };
}

/** Runs a command with its output (stdout and stderr, as they came) kept for later. */
function runQuiet(cmd, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: ENV });
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const done = (ok, extra = '') => resolve({ ok, output: Buffer.concat(chunks).toString() + extra, seconds: ((Date.now() - started) / 1000).toFixed(1) });
    child.on('error', (e) => done(false, `${e.message}\n`));
    child.on('close', (code) => done(code === 0));
  });
}

/** Record of a step that is not a test runner: it counts as one check. */
function record(label, r) {
  rows.push(`${label}: ${r.ok ? 'passed' : 'FAILED'} (${r.seconds} s)`);
  total[r.ok ? 'passed' : 'failed'] += 1;
  return r.ok;
}

/** A step that is not a test runner. */
function step(label, cmd, args) {
  return record(label, run(label, cmd, args));
}

/** Steps run at the same time; their output and rows come in the order given. */
async function steps(list) {
  console.log(`\n=== ${list.map(([label]) => label).join(', ')}: at the same time`);
  const results = await Promise.all(list.map(([, cmd, args]) => runQuiet(cmd, args)));
  list.forEach(([label, cmd, args], k) => {
    console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
    process.stdout.write(results[k].output);
    record(label, results[k]);
  });
}

/** The titles of the tests Playwright's JSON report marks flaky (failed, then passed on a retry). */
function flakyTests(report) {
  const names = [];
  const walk = (suite, path) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) if (t.status === 'flaky') names.push(`[${t.projectName}] ${[...path, spec.title].join(' › ')}`);
    }
    for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
  };
  for (const s of report.suites ?? []) walk(s, [s.title]);
  return names;
}

function suite(label, cmd, args, reportFile, count) {
  const r = run(label, cmd, args);
  let c = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(reportFile)) c = count(JSON.parse(readFileSync(reportFile, 'utf8')));
  // A runner that failed without reporting a failed test (a crash, a config error) still fails.
  if (!r.ok && c.failed === 0) c.failed = 1;
  rows.push(`${label}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${r.seconds} s)`);
  // A test that failed and then passed on its retry counts as passed, and is named here.
  for (const name of c.flaky ?? []) rows.push(`  flaky (passed on a retry): ${name}`);
  for (const k of Object.keys(total)) total[k] += c[k];
}

await steps([
  ['lint', 'npx', ['eslint', '.']],
  ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
  // Electronegativity over the Electron shell; offline; findings that do not apply are annotated.
  ['electronegativity', 'node', ['scripts/electronegativity.mjs']],
]);
// Built before the unit tests: some of them start the built headless host.
const built = step('build', 'npm', ['run', '--silent', 'build']);
suite('unit', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${RESULTS}/unit.json`], `${RESULTS}/unit.json`, (j) => ({
  passed: j.numPassedTests,
  failed: j.numFailedTests + (j.numRuntimeErrorTestSuites ?? 0),
  skipped: j.numPendingTests + j.numTodoTests,
}));
if (built && step('chromium', 'node', ['scripts/ensure-chromium.mjs'])) {
  suite('e2e', 'npx', ['playwright', 'test'], `${RESULTS}/e2e.json`, (j) => ({
    passed: j.stats.expected + j.stats.flaky,
    failed: j.stats.unexpected,
    skipped: j.stats.skipped,
    flaky: flakyTests(j),
  }));
} else {
  rows.push('e2e: not run (build or Chromium missing)');
  total.failed += 1;
}

console.log('\n=== summary');
for (const row of rows) console.log(row);
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
