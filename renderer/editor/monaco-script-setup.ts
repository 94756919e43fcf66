/**
 * Monaco for script tools' JavaScript, offline, loaded on demand on top of monaco-setup.ts (the
 * JSON editors never load it). It adds the JavaScript language and TypeScript's checker over it
 * (`checkJs`: type errors as you type, from JSDoc), whose worker Vite bundles like the others
 * (same origin: the CSP's worker-src 'self' allows it; TypeScript's services use no eval).
 *
 * The script runs in a sandbox with no DOM, so the checker is given the ES library only, as
 * shared/model/script-ctx.test.ts checks the templates; `console`, the timers and `ctx` come from
 * the declarations an editor passes as extra libs (shared/model/script-ctx.ts). Extra libs are
 * shared by every JavaScript model: one script editor is open at a time.
 */
import 'monaco-editor/languages/definitions/javascript/register';
import * as typescript from 'monaco-editor/languages/features/typescript/register';
import { DARK_THEME, Editor, monaco as base } from './monaco-setup';

const jsonWorker = self.MonacoEnvironment?.getWorker;
self.MonacoEnvironment = {
  getWorker(workerId: string, label: string): Worker | Promise<Worker> {
    if (label === 'typescript' || label === 'javascript') {
      return new Worker(new URL('monaco-editor/language/typescript/ts.worker.js', import.meta.url), { type: 'module', name: 'monaco-ts' });
    }
    if (!jsonWorker) throw new Error(`no worker for ${label}`);
    return jsonWorker(workerId, label);
  },
};

typescript.javascriptDefaults.setCompilerOptions({
  allowJs: true,
  checkJs: true,
  allowNonTsExtensions: true,
  noEmit: true,
  target: typescript.ScriptTarget.ESNext,
  lib: ['es2022'],
  strict: false,
  noImplicitAny: false,
});
typescript.javascriptDefaults.setDiagnosticsOptions({ noSemanticValidation: false, noSyntaxValidation: false, noSuggestionDiagnostics: true });
typescript.javascriptDefaults.setEagerModelSync(true);

export interface ExtraLib {
  /** A file name of its own, e.g. file:///toolsmith-ctx.d.ts. */
  path: string;
  text: string;
}

/** Replaces the declarations every JavaScript model is checked with. */
export function setExtraLibs(libs: readonly ExtraLib[]): void {
  const now = typescript.javascriptDefaults.getExtraLibs();
  const same = libs.length === Object.keys(now).length && libs.every((l) => now[l.path]?.content === l.text);
  if (!same) typescript.javascriptDefaults.setExtraLibs(libs.map((l) => ({ filePath: l.path, content: l.text })));
}

const monaco = { ...base, typescript };
export { DARK_THEME, Editor, monaco };
