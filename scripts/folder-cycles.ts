/**
 * Import cycles between the core's folders: each file of electron/core belongs to its first
 * folder (a file directly in electron/core is a node of its own, `./app`, `./router`, ...: the
 * composition root imports everything and nothing imports it), and folder A depends on B when
 * a file of A imports a file of B (type-only imports count: they tie the folders together as
 * much as any). Tests are left out. A cycle is a strongly connected set of two or more folders.
 */
import fs from 'node:fs';
import path from 'node:path';

export type FolderGraph = Map<string, Set<string>>;

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function isTest(file: string): boolean {
  return /\.(test|spec)\.tsx?$/.test(file) || file.split(path.sep).includes('testing');
}

function walk(dir: string, out: string[]): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function folderOf(coreDir: string, file: string): string | undefined {
  const rel = path.relative(coreDir, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(path.sep);
  // An import of a folder ('../routing') is an import of its index: the folder.
  const isDir = fs.existsSync(file) && fs.statSync(file).isDirectory();
  // A feature's module file (`<folder>/module.ts`) wires the feature onto the platform: it is
  // a node of its own, like the composition root, so a module using another is no folder cycle.
  if (parts.length > 1 && /^module(\.tsx?)?$/.test(parts[parts.length - 1]!)) return `${parts.slice(0, -1).join('/')}/module`;
  return parts.length > 1 || isDir ? parts[0]! : `./${parts[0]!.replace(/\.tsx?$/, '')}`;
}

/** The folder graph of a core directory (a file's imports, resolved relative to it). */
export function folderGraph(coreDir: string): FolderGraph {
  const g: FolderGraph = new Map();
  for (const file of walk(coreDir, [])) {
    if (isTest(path.relative(coreDir, file))) continue;
    const from = folderOf(coreDir, file)!;
    if (!g.has(from)) g.set(from, new Set());
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec || !spec.startsWith('.')) continue;
      const to = folderOf(coreDir, path.resolve(path.dirname(file), spec));
      if (to && to !== from) g.get(from)!.add(to);
    }
  }
  return g;
}

/** The cycles of a graph: each strongly connected component of two or more folders, sorted. */
export function cycles(g: FolderGraph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const nodes = new Set<string>([...g.keys(), ...[...g.values()].flatMap((s) => [...s])]);
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** For a reader: which files make folder `from` import folder `to`. */
export function edgeFiles(coreDir: string, from: string, to: string): string[] {
  const files: string[] = [];
  for (const file of walk(from.startsWith('./') ? coreDir : path.join(coreDir, from), [])) {
    if (isTest(path.relative(coreDir, file)) || folderOf(coreDir, file) !== from) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec?.startsWith('.') && folderOf(coreDir, path.resolve(path.dirname(file), spec)) === to) files.push(`${path.relative(coreDir, file)} -> ${spec}`);
    }
  }
  return files;
}
