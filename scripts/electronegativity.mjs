// `node scripts/electronegativity.mjs`: Electronegativity (Doyensec's scanner of Electron
// security misconfigurations) over the shell: electron/main.ts, electron/preload.ts, the pure
// helpers in electron/host/, and package.json (the Electron version). Passes only with zero
// findings: a check that does not apply is listed with its reason in
// scripts/electronegativity.json, a finding on one line is annotated on that line with
// `/* eng-disable CHECK_ID -- reason */`. An annotation without a reason is itself a failure.
// Runs offline: the scanner's downloads (translations, Electron's release list) are refused.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The shell's files, relative to `root`. */
export function shellFiles(root = ROOT) {
  const host = fs
    .readdirSync(path.join(root, 'electron', 'host'), { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split('/').includes('testing'))
    .sort()
    .map((f) => `electron/host/${f}`);
  return ['electron/main.ts', 'electron/preload.ts', ...host, 'package.json'].filter((f) => fs.existsSync(path.join(root, f)));
}

/** `eng-disable` comments that give no reason (`-- why` after the check names). */
export function annotationsWithoutReason(file, text) {
  const bad = [];
  text.split('\n').forEach((line, n) => {
    const m = /eng-disable\s+([^*]*?)(\*\/|-->|$)/.exec(line);
    if (m && !/\s--\s*\S/.test(m[1])) bad.push(`${file}:${n + 1}: eng-disable without a reason (write /* eng-disable CHECK -- why it does not apply */)`);
  });
  return bad;
}

/** CSP_GLOBAL_CHECK → the scanner's class name, lower case (cspglobalcheck). */
function checkClass(id) {
  return id.toLowerCase().replace(/_/g, '');
}

function knownChecks() {
  const dir = path.join(path.dirname(require.resolve('@doyensec/electronegativity/package.json')), 'dist', 'finder', 'checks');
  return new Set(
    ['GlobalChecks', 'AtomicChecks'].flatMap((d) => fs.readdirSync(path.join(dir, d)).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3).toLowerCase())),
  );
}

/** The scanner with its downloads refused (it falls back to its own English texts). */
function offlineScanner() {
  const pkg = require.resolve('@doyensec/electronegativity/package.json');
  const gotPath = createRequire(pkg).resolve('got');
  const refuse = () => Promise.resolve({ statusCode: 503, body: '' });
  require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: Object.assign(refuse, { default: refuse }) };
  const m = require('@doyensec/electronegativity');
  return m.default ?? m;
}

/**
 * Scans `files` (relative to `root`) with the checks in `annotationsFile` excluded. Returns the
 * findings and the problems (annotations without reasons, files it could not parse).
 */
export async function scanShell({ root = ROOT, files = shellFiles(root), annotationsFile = path.join(ROOT, 'scripts', 'electronegativity.json') } = {}) {
  const { excluded = {} } = JSON.parse(fs.readFileSync(annotationsFile, 'utf8'));
  const problems = [];
  const known = knownChecks();
  for (const [id, reason] of Object.entries(excluded)) {
    if (!known.has(checkClass(id))) problems.push(`${path.basename(annotationsFile)}: no check named ${id}`);
    if (typeof reason !== 'string' || reason.trim().length < 10) problems.push(`${path.basename(annotationsFile)}: ${id} is excluded without a reason`);
  }
  // The scanner reads a folder: a copy of just the shell's files.
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-electronegativity-'));
  try {
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      problems.push(...annotationsWithoutReason(f, text));
      fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
      fs.writeFileSync(path.join(stage, f), text);
    }
    if (problems.length > 0) return { findings: [], problems };
    const run = offlineScanner();
    const result = await run({
      input: stage,
      isRelative: true,
      excludeFromScan: Object.keys(excluded).filter((id) => known.has(checkClass(id))).map(checkClass),
    });
    for (const e of result.errors ?? []) problems.push(`${path.relative(stage, e.file ?? '') || e.file}: not scanned: ${e.message}`);
    const findings = (result.issues ?? []).map((i) => ({
      id: i.id,
      file: i.file === 'N/A' ? '(global)' : path.isAbsolute(i.file) ? path.relative(stage, i.file) : i.file,
      line: i.location?.line ?? 0,
      description: String(i.description ?? ''),
    }));
    return { findings, problems, checks: result.globalChecks + result.atomicChecks };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = shellFiles();
  const { findings, problems, checks } = await scanShell({ files });
  for (const p of problems) console.log(`problem: ${p}`);
  for (const f of findings) console.log(`${f.id}  ${f.file}:${f.line}  ${f.description}`);
  const ok = findings.length === 0 && problems.length === 0;
  console.log(
    ok
      ? `electronegativity: ${files.length} files, ${checks} checks, no findings`
      : `electronegativity: ${findings.length} finding(s), ${problems.length} problem(s); fix them, or annotate why they do not apply (scripts/electronegativity.mjs says how)`,
  );
  process.exit(ok ? 0 : 1);
}
