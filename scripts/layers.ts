/**
 * The folder graph of the product code against the `layers` table of eslint.config.js.
 *
 *   npx tsx scripts/layers.ts           prints the imports the table does not allow (with the
 *                                       files that make them), folders with no entry, entries
 *                                       and allowances nothing uses, then the table as the code
 *                                       is today (exit 1 when an import is not allowed)
 *   npx tsx scripts/layers.ts --write   writes that table into eslint.config.js (between the
 *                                       `layers:begin` and `layers:end` lines)
 *
 * The units are those of the lint rule (scripts/eslint/layers.js): each folder of electron/core,
 * electron/host, renderer and renderer/features, each file directly in one of them (and
 * electron/main.ts, electron/preload.ts), and shared/. Tests and `testing/` folders are left
 * out: they may import anything. Type-only and dynamic imports count. The suggested table keeps
 * the comments of the present one (a `// to remove:` stays on its line while the import is
 * there) and marks each import the present table does not allow with `// new:`, to be looked at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ROOT, importedUnit, isTestCode, unitOf, type LayersTable } from './eslint/layers.js';

const SCANNED = ['electron', 'shared', 'renderer'];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const BEGIN = '// layers:begin';
const END = '// layers:end';

export interface LayerGraph {
  /** Every unit that has product code. */
  units: Set<string>;
  /** from → to → the imports that make the edge ("file -> specifier"). */
  edges: Map<string, Map<string, string[]>>;
}

function walk(dir: string, out: string[]): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (SOURCE.test(e.name)) out.push(p);
  }
  return out;
}

/** The imports between units of the product code under `root`. */
export function layerGraph(root: string = ROOT): LayerGraph {
  const graph: LayerGraph = { units: new Set(), edges: new Map() };
  for (const file of SCANNED.flatMap((d) => walk(path.join(root, d), []))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const from = unitOf(rel);
    if (from === undefined || isTestCode(rel)) continue;
    graph.units.add(from);
    for (const { fileName: spec } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      const to = importedUnit(file, spec, root);
      if (to === undefined || to === from) continue;
      if (!graph.edges.has(from)) graph.edges.set(from, new Map());
      const to_ = graph.edges.get(from)!;
      if (!to_.has(to)) to_.set(to, []);
      to_.get(to)!.push(`${rel} -> ${spec}`);
    }
  }
  return graph;
}

export interface Comparison {
  /** Imports of a listed unit that its entry does not allow. */
  violations: { from: string; to: string; where: string[] }[];
  /** Units with product code and no entry. */
  unlisted: string[];
  /** Entries for units that have no product code (a folder moved or removed). */
  staleEntries: string[];
  /** Allowances no import uses. */
  unusedAllowances: { from: string; to: string }[];
}

export function compare(graph: LayerGraph, table: LayersTable): Comparison {
  const out: Comparison = { violations: [], unlisted: [], staleEntries: [], unusedAllowances: [] };
  for (const unit of [...graph.units].sort()) {
    if (!(unit in table)) {
      out.unlisted.push(unit);
      continue;
    }
    for (const [to, where] of [...(graph.edges.get(unit) ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
      if (!table[unit]!.includes(to)) out.violations.push({ from: unit, to, where });
    }
  }
  for (const [from, allowed] of Object.entries(table)) {
    if (!graph.units.has(from)) out.staleEntries.push(from);
    else for (const to of allowed) if (!graph.edges.get(from)?.has(to)) out.unusedAllowances.push({ from, to });
  }
  return out;
}

interface TableComments {
  /** Comment lines above an entry. */
  above: Map<string, string[]>;
  /** The trailing comment of an allowance: "from\tto" → "// ...". */
  trailing: Map<string, string>;
}

/** The block between the markers of a config's text, or undefined. */
function block(configText: string): { start: number; end: number } | undefined {
  const start = configText.indexOf(BEGIN);
  const end = configText.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return { start: configText.indexOf('\n', start) + 1, end: configText.lastIndexOf('\n', end) + 1 };
}

/** The comments of the present table (between the markers), to be carried into the new one. */
export function tableComments(configText: string): TableComments {
  const comments: TableComments = { above: new Map(), trailing: new Map() };
  const b = block(configText);
  if (!b) return comments;
  let pending: string[] = [];
  let key: string | undefined;
  for (const line of configText.slice(b.start, b.end).split('\n')) {
    const t = line.trim();
    const entry = /^'([^']+)':\s*\[/.exec(t);
    const item = /^'([^']+)',?\s*(\/\/.*)?$/.exec(t);
    if (t.startsWith('//')) pending.push(t);
    else if (entry) {
      key = entry[1]!;
      if (pending.length) comments.above.set(key, pending);
      pending = [];
    } else if (item && key) {
      if (item[2]) comments.trailing.set(`${key}\t${item[1]}`, item[2]);
    } else if (t === '') pending = [];
  }
  return comments;
}

const GROUPS = ['electron/core/', 'electron/host/', 'electron/', 'renderer/', 'shared'];

/** The table as the code is today, in the config's layout, with the present table's comments. */
export function renderTable(graph: LayerGraph, table: LayersTable, comments: TableComments): string {
  const group = (u: string) => GROUPS.findIndex((g) => u.startsWith(g));
  const units = [...graph.units].sort((a, b) => group(a) - group(b) || a.localeCompare(b));
  const lines: string[] = [];
  let last = -1;
  for (const unit of units) {
    if (last !== -1 && group(unit) !== last) lines.push('');
    last = group(unit);
    for (const c of comments.above.get(unit) ?? []) lines.push(`  ${c}`);
    const to = [...(graph.edges.get(unit)?.keys() ?? [])].sort();
    const notes = to.map((t) => {
      const kept = comments.trailing.get(`${unit}\t${t}`);
      const isNew = !(table[unit] ?? []).includes(t);
      return kept ?? (isNew ? `// new: ${graph.edges.get(unit)!.get(t)![0]}` : undefined);
    });
    // A short list without comments on one line; otherwise one allowance a line, with its comment.
    const oneLine = `  '${unit}': [${to.map((t) => `'${t}'`).join(', ')}],`;
    if (notes.every((n) => n === undefined) && oneLine.length <= 110) {
      lines.push(oneLine);
      continue;
    }
    lines.push(`  '${unit}': [`);
    to.forEach((t, i) => lines.push(`    '${t}',${notes[i] ? ` ${notes[i]}` : ''}`));
    lines.push('  ],');
  }
  return `${lines.join('\n')}\n`;
}

/** The config's text with the block between the markers replaced. */
export function withTable(configText: string, tableText: string): string {
  const b = block(configText);
  if (!b) throw new Error(`eslint.config.js has no '${BEGIN}' and '${END}' lines around the layers table`);
  return configText.slice(0, b.start) + tableText + configText.slice(b.end);
}

async function main(): Promise<number> {
  const configPath = path.join(ROOT, 'eslint.config.js');
  const { layers } = (await import(pathToFileURL(configPath).href)) as { layers: LayersTable };
  const graph = layerGraph();
  const result = compare(graph, layers);
  const say = (s = '') => process.stdout.write(`${s}\n`);
  if (result.violations.length) {
    say('Imports the table does not allow:');
    for (const v of result.violations) {
      say(`  ${v.from} -> ${v.to}`);
      for (const w of v.where) say(`      ${w}`);
    }
    say();
  }
  if (result.unlisted.length) say(`Folders with no entry: ${result.unlisted.join(', ')}\n`);
  if (result.staleEntries.length) say(`Entries with no product code behind them: ${result.staleEntries.join(', ')}\n`);
  if (result.unusedAllowances.length) {
    say('Allowed but not imported (the suggested table drops them):');
    for (const u of result.unusedAllowances) say(`  ${u.from} -> ${u.to}`);
    say();
  }
  const configText = fs.readFileSync(configPath, 'utf8');
  const table = renderTable(graph, layers, tableComments(configText));
  if (process.argv.includes('--write')) {
    const tmp = `${configPath}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, withTable(configText, table));
    fs.renameSync(tmp, configPath);
    say('Wrote the table into eslint.config.js: look at each `// new:` line (keep it, mark it `// to remove:`, or change the code).');
  } else {
    say(`The table as the code is today (between '${BEGIN}' and '${END}' in eslint.config.js; --write writes it):`);
    process.stdout.write(table);
  }
  const clean = result.violations.length === 0 && result.unlisted.length === 0;
  if (clean) say('\nEvery import is allowed by the table.');
  return clean ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  void main().then((code) => {
    process.exitCode = code;
  });
}
