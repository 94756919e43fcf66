/**
 * Moves files or folders and rewrites every import of them (and their own relative imports),
 * with TypeScript's own rename edits: `npx tsx scripts/move.ts <from> <to> [<from> <to> ...]`.
 * Paths are relative to the project root; the move is done with `git mv`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const pairs = process.argv.slice(2);
if (pairs.length === 0 || pairs.length % 2 !== 0) {
  console.error('usage: tsx scripts/move.ts <from> <to> [<from> <to> ...]');
  process.exit(2);
}

const configPath = path.join(root, 'tsconfig.json');
const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
/** The project's files and their versions, kept up to date across moves (one service for all). */
let fileNames = parsed.fileNames.map((f) => path.resolve(f));
const versions = new Map<string, number>();

function service(): ts.LanguageService {
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => fileNames,
    getScriptVersion: (f) => String(versions.get(f) ?? 0),
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host);
}

const ls = service();
for (let i = 0; i < pairs.length; i += 2) {
  const from = path.resolve(root, pairs[i]!);
  const to = path.resolve(root, pairs[i + 1]!);
  if (!fs.existsSync(from)) throw new Error(`no such file or folder: ${pairs[i]}`);
  if (fs.existsSync(to)) throw new Error(`already exists: ${pairs[i + 1]}`);
  const edits = ls.getEditsForFileRename(from, to, {}, { importModuleSpecifierEnding: 'minimal' });
  for (const fileEdit of edits) {
    const file = fileEdit.fileName;
    let text = fs.readFileSync(file, 'utf8');
    for (const c of [...fileEdit.textChanges].sort((a, b) => b.span.start - a.span.start)) {
      text = text.slice(0, c.span.start) + c.newText + text.slice(c.span.start + c.span.length);
    }
    fs.writeFileSync(file, text);
    versions.set(path.resolve(file), (versions.get(path.resolve(file)) ?? 0) + 1);
  }
  fs.mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('git', ['mv', from, to], { cwd: root });
  fileNames = fileNames.map((f) => (f === from ? to : f.startsWith(from + path.sep) ? to + f.slice(from.length) : f));
  console.log(`${pairs[i]} -> ${pairs[i + 1]} (${edits.length} files edited)`);
}
