// The local ESLint rules that check the architecture (loaded by eslint.config.js as `toolsmith`):
//
//   toolsmith/layers             a product file imports only the folders its folder's entry in
//                                the `layers` table (eslint.config.js) lists;
//   toolsmith/no-testing-import  a product file never imports from a `testing/` folder;
//   toolsmith/test-support-in-testing
//                                test support (fixtures, test servers, helpers) lives in a
//                                `testing/` folder.
//
// scripts/layers.ts prints the real folder graph against the same table, with the same units.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is scripts/eslint/layers.js). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * How the tree is cut into units (the table's keys): each folder and each file directly inside
 * one of these is a unit of its own, the deepest match first. A folder's subfolders belong to it
 * (electron/core/invoke/http is electron/core/invoke); a file directly inside is named with its
 * extension (electron/core/app.ts, electron/main.ts). A feature's `module.ts` (at any depth) is a
 * unit of its own too: it wires the feature onto the platform, like the composition root, so
 * what it imports (the platform, other modules) is not what the feature's code may import (the
 * same cut as scripts/folder-cycles.ts).
 */
export const CONTAINERS = ['electron/core', 'electron/host', 'electron', 'renderer/features', 'renderer'];

/** Top-level folders that are one unit each. */
export const ROOMS = ['shared'];

/** Folders whose files are neither product code nor checked for layering. */
const OUTSIDE = ['e2e', 'scripts', 'bench'];

const TEST_FILE = /\.(test|spec|bench)\.[cm]?[jt]sx?$/;
const MODULE_FILE = /^module\.[cm]?tsx?$/;
const SOURCE_EXT = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.json'];

function posix(rel) {
  return rel.split(path.sep).join('/');
}

/** A path relative to the repository root, with forward slashes; undefined outside it. */
export function repoPath(abs, root = ROOT) {
  const rel = posix(path.relative(root, abs));
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
}

/** A test, or test support: `*.test.ts` and the like, or anything in a `testing/` folder. */
export function isTestCode(rel) {
  return TEST_FILE.test(rel) || rel.split('/').slice(0, -1).includes('testing');
}

/** Product code: what ships, where neither tests nor the build's and bench's own code are. */
export function isProductCode(rel) {
  return !isTestCode(rel) && !OUTSIDE.includes(rel.split('/')[0]) && rel.split('/').length > 1;
}

/**
 * The unit of a path relative to the root (see CONTAINERS); undefined outside the rooms.
 * `isDir` says whether the path itself is a folder (an import of a folder is of its index).
 */
export function unitOf(rel, isDir = false) {
  const parts = rel.split('/');
  if (ROOMS.includes(parts[0])) return parts[0];
  const container = CONTAINERS.filter((c) => rel.startsWith(`${c}/`)).sort((a, b) => b.length - a.length)[0];
  if (!container) return undefined;
  const depth = container.split('/').length;
  if (!isDir && parts.length > depth + 1 && MODULE_FILE.test(parts[parts.length - 1])) return rel;
  const isFile = parts.length === depth + 1 && !isDir;
  const name = parts[depth];
  // A subfolder that is itself a container (electron/core) is never a unit: its children are.
  if (!isFile && CONTAINERS.includes(`${container}/${name}`)) return undefined;
  return `${container}/${name}`;
}

/**
 * What a relative import names, as a path relative to the root: the folder, or the file with its
 * extension when it can be found (`./events` is electron/core/events.ts); a path that does not
 * exist keeps a `.ts` extension, so a planted import still has a unit.
 */
export function resolveImport(fromAbs, spec, root = ROOT) {
  const abs = path.resolve(path.dirname(fromAbs), spec);
  const rel = repoPath(abs, root);
  if (rel === undefined) return undefined;
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) return { rel, isDir: true };
  if (fs.existsSync(abs)) return { rel, isDir: false };
  const bare = abs.replace(/\.[cm]?js$/, '');
  for (const ext of SOURCE_EXT) if (fs.existsSync(bare + ext)) return { rel: repoPath(bare + ext, root), isDir: false };
  return { rel: path.extname(rel) ? rel : `${rel}.ts`, isDir: false };
}

/** The unit a file imports through a relative specifier, if it is another unit. */
export function importedUnit(fromAbs, spec, root = ROOT) {
  if (!spec.startsWith('.')) return undefined;
  const target = resolveImport(fromAbs, spec, root);
  return target && unitOf(target.rel, target.isDir);
}

/** Calls `check(node, spec)` for each module specifier in a file: imports, re-exports, `import()`, type imports. */
function visitImports(check) {
  const literal = (node, source) => {
    if (source && source.type === 'Literal' && typeof source.value === 'string') check(node, source.value);
  };
  return {
    ImportDeclaration: (node) => literal(node, node.source),
    ExportNamedDeclaration: (node) => literal(node, node.source),
    ExportAllDeclaration: (node) => literal(node, node.source),
    ImportExpression: (node) => literal(node, node.source),
    TSImportType: (node) => literal(node, node.source ?? node.argument?.literal),
    TSExternalModuleReference: (node) => literal(node, node.expression),
  };
}

const TABLE = '`layers` in eslint.config.js';
const GRAPH = 'npx tsx scripts/layers.ts prints the folder graph';

const layers = {
  meta: {
    type: 'problem',
    docs: { description: "Each folder imports only the folders its entry in the `layers` table lists." },
    schema: [{ type: 'object', properties: { layers: { type: 'object' } }, required: ['layers'], additionalProperties: false }],
    messages: {
      forbidden: '{{from}} may not import {{to}} (\'{{spec}}\'): it is not in the list of {{from}} in {{table}} ({{graph}}).',
      unlisted: '{{from}} has no entry in {{table}}: add one ({{graph}} and suggests the entry).',
    },
  },
  create(context) {
    const table = context.options[0].layers;
    const file = context.filename;
    const rel = repoPath(file);
    if (rel === undefined || isTestCode(rel)) return {};
    const from = unitOf(rel);
    if (from === undefined) return {};
    const allowed = new Set(table[from] ?? []);
    return visitImports((node, spec) => {
      const to = importedUnit(file, spec);
      if (to === undefined || to === from) return;
      if (!(from in table)) context.report({ node, messageId: 'unlisted', data: { from, table: TABLE, graph: GRAPH } });
      else if (!allowed.has(to)) context.report({ node, messageId: 'forbidden', data: { from, to, spec, table: TABLE, graph: GRAPH } });
    });
  },
};

const noTestingImport = {
  meta: {
    type: 'problem',
    docs: { description: 'Product code never imports test support (a `testing/` folder).' },
    schema: [],
    messages: {
      testing: "Product code may not import test support ('{{spec}}' is in a testing/ folder): only tests and other test support may.",
    },
  },
  create(context) {
    const file = context.filename;
    const rel = repoPath(file);
    if (rel === undefined || !isProductCode(rel)) return {};
    return visitImports((node, spec) => {
      if (!spec.startsWith('.')) return;
      const target = resolveImport(file, spec);
      if (target && target.rel.split('/').includes('testing')) context.report({ node, messageId: 'testing', data: { spec } });
    });
  },
};

/** Names that say "test support": test-helpers.ts, test-fixtures/, fixtures.ts, test-server.ts, ... */
const SUPPORT_NAME = /^(?:.*[-_.])?(?:test[-_]?(?:helpers?|fixtures?|servers?|utils?|support|kit)|fixtures?|__fixtures__|__mocks__)$/i;

/** The first segment of a path that names test support outside a `testing/` folder, if any. */
export function misplacedSupport(rel) {
  const parts = rel.split('/');
  if (OUTSIDE.includes(parts[0]) && parts[0] !== 'scripts') return undefined; // e2e/fixtures is Playwright's own; bench has its harness
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === 'testing') return undefined;
    const name = i === parts.length - 1 ? parts[i].replace(/(\.(test|spec))?\.[^.]+$/, '') : parts[i];
    if (SUPPORT_NAME.test(name)) return parts.slice(0, i + 1).join('/');
  }
  return undefined;
}

const testSupportInTesting = {
  meta: {
    type: 'problem',
    docs: { description: 'Test support lives in `testing/` folders.' },
    schema: [],
    messages: {
      misplaced: "'{{name}}' is named as test support: move it into a testing/ folder (electron/core/testing, <feature>/testing, electron/host/testing, shared/testing).",
    },
  },
  create(context) {
    const rel = repoPath(context.filename);
    const name = rel && misplacedSupport(rel);
    if (!name) return {};
    return { Program: (node) => context.report({ node, loc: { line: 1, column: 0 }, messageId: 'misplaced', data: { name } }) };
  },
};

export default {
  meta: { name: 'toolsmith' },
  rules: { layers, 'no-testing-import': noTestingImport, 'test-support-in-testing': testSupportInTesting },
};
