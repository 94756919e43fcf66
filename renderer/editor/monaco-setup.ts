/**
 * Monaco, offline. Loaded on demand (JsonEditor imports this module dynamically), so the
 * app starts without it and an editor that fails to load falls back to a text box.
 *
 * - Workers are bundled by Vite from `new Worker(new URL(..., import.meta.url))`: same
 *   origin, so the CSP's worker-src 'self' allows them; nothing comes from a CDN. The
 *   paths go through monaco-editor's package exports (`./*` maps to `./esm/vs/*`), i.e.
 *   esm/vs/editor/editor.worker.js and esm/vs/language/json/json.worker.js.
 * - `loader.config({ monaco })` hands @monaco-editor/react this instance, so its loader
 *   never injects a <script> from jsdelivr (which script-src 'self' would refuse).
 * - JSON diagnostics: the JSON worker validates against the inline schemas of
 *   json-schemas.ts (the 2020-12 meta-schema for argSchema/outputSchema); schema requests
 *   are off. We do not run ajv here: it compiles validators with `new Function`, which the
 *   CSP (no 'unsafe-eval') refuses; the store compiles with ajv on save, and its errors
 *   land on the field.
 */
import { Editor, loader } from '@monaco-editor/react';
import * as editorApi from 'monaco-editor/editor';
import 'monaco-editor/features/register.all';
import * as json from 'monaco-editor/languages/features/json/register';
import { EDITOR_SCHEMAS } from './json-schemas';

/**
 * The editor core, every editor feature (find, folding, hover, suggest, ...) and the JSON
 * language only, through monaco-editor's tree-shakeable entry points (0.56+). The
 * 'monaco-editor' entry would also register CSS, HTML and TypeScript, whose workers
 * (about 9 MB) Vite would then bundle for nothing.
 */
const monaco = { ...editorApi, json };

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    if (label === 'json') {
      return new Worker(new URL('monaco-editor/language/json/json.worker.js', import.meta.url), { type: 'module', name: 'monaco-json' });
    }
    return new Worker(new URL('monaco-editor/editor/editor.worker.js', import.meta.url), { type: 'module', name: 'monaco-editor' });
  },
};

loader.config({ monaco: monaco as unknown as Parameters<typeof loader.config>[0]['monaco'] });

/**
 * The dark theme: Monaco's, with comments and regular expressions light enough to read (its
 * #608b4e and #b46695 on #1e1e1e are 4.2:1, under WCAG's 4.5:1 for text; a script has both).
 */
export const DARK_THEME = 'toolsmith-dark';
editorApi.editor.defineTheme(DARK_THEME, {
  base: 'vs-dark',
  inherit: true,
  rules: [
    { token: 'comment', foreground: '7ca668' },
    { token: 'regexp', foreground: 'c586c0' },
  ],
  colors: {},
});

json.jsonDefaults.setDiagnosticsOptions({
  validate: true,
  allowComments: false,
  trailingCommas: 'error',
  enableSchemaRequest: false,
  // A $schema we do not carry (draft-07, a URL) cannot be fetched: say so, softly; the store decides.
  schemaRequest: 'warning',
  schemaValidation: 'error',
  schemas: EDITOR_SCHEMAS,
});

export { Editor, monaco };
export type Monaco = typeof monaco;
