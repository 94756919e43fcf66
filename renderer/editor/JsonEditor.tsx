/**
 * A controlled JSON editor: Monaco when it loads, a plain <textarea> when it does not. With
 * `language="javascript"` it edits a script instead (monaco-script-setup.ts: the checker's
 * markers, over the declarations given as `extraLibs`).
 * The parent owns the text (`value`, `onChange`) and passes the field's own errors
 * (`errors`); Monaco's markers (syntax and schema) are listed under the editor and
 * reported through `onMarkers` so a form can refuse to save while they stand.
 *
 * Test and automation hook: each mounted Monaco editor is reachable as
 * `window.__toolsmithEditors[testId]` (the standalone editor instance).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { editor as MonacoEditorNs } from 'monaco-editor';
import { editorStrings } from '../i18n/editor-strings';
import { MODEL_FILE, type JsonSchemaKind } from './json-schemas';

type JsonSetup = typeof import('./monaco-setup');
type ScriptSetup = typeof import('./monaco-script-setup');
type Setup = JsonSetup | ScriptSetup;
export type EditorLanguage = 'json' | 'javascript';
export type { ExtraLib } from './monaco-script-setup';
type StandaloneEditor = MonacoEditorNs.IStandaloneCodeEditor;

declare global {
  interface Window {
    __toolsmithEditors?: Record<string, StandaloneEditor>;
  }
}

/** One dynamic import per language for the whole page; a failure is remembered (the fallback stays). */
let setupPromise: Promise<JsonSetup> | null = null;
let scriptSetupPromise: Promise<ScriptSetup> | null = null;
function loadMonaco(language: EditorLanguage): Promise<Setup> {
  if (language === 'javascript') return (scriptSetupPromise ??= import('./monaco-script-setup'));
  return (setupPromise ??= import('./monaco-setup'));
}

export interface EditorProblem {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
  /** The checker's code, where it gives one (TypeScript's diagnostics in a script). */
  code?: string;
}

export interface JsonEditorProps {
  value: string;
  onChange(value: string): void;
  /** The accessible name of the editor (also its visible label, when `id` is labelled elsewhere). */
  label: string;
  /** Id of the focusable element, so a <label htmlFor> can point at it in the fallback. */
  id?: string;
  testId?: string;
  /** CSS height of the editor, e.g. 180 or '40vh'. */
  height?: number | string;
  /**
   * Close brackets and quotes as they are typed (Monaco's default). Off for the small
   * template editors, where typing `{"a": "${x}"}` must give exactly that.
   */
  autoClose?: boolean;
  readOnly?: boolean;
  /** Which inline schema Monaco validates against (see json-schemas.ts). */
  schema?: JsonSchemaKind;
  /** The field's own errors (invalid JSON, a rule, the server's answer), shown first. */
  errors?: readonly string[];
  /** Called with Monaco's markers whenever they change. */
  onMarkers?(problems: EditorProblem[]): void;
  /** Id of the element holding help for the field, for aria-describedby. */
  describedBy?: string;
  /** What the text is: JSON (the default) or a script's JavaScript. */
  language?: EditorLanguage;
  /** For JavaScript: declarations the script is checked with (keep the array's identity while they do not change). */
  extraLibs?: readonly import('./monaco-script-setup').ExtraLib[];
}

const MAX_LISTED = 20;
let modelSeq = 0;

export function JsonEditor(props: JsonEditorProps) {
  const { value, onChange, label, id, testId, height = 180, readOnly = false, schema = 'none', errors = [], onMarkers, describedBy, autoClose = true, language = 'json', extraLibs } = props;
  const [setup, setSetup] = useState<Setup | null>(null);
  const [failed, setFailed] = useState(false);
  const [markers, setMarkers] = useState<EditorProblem[]>([]);
  const [seq] = useState(() => ++modelSeq);
  const errorsId = `${id ?? `json-editor-${seq}`}-problems`;

  useEffect(() => {
    let live = true;
    loadMonaco(language).then(
      (s) => live && setSetup(s),
      (e: unknown) => {
        console.warn('Monaco could not be loaded; using a plain text box:', e);
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, [language]);

  useEffect(() => {
    if (setup && extraLibs && 'setExtraLibs' in setup) setup.setExtraLibs(extraLibs);
  }, [setup, extraLibs]);

  const onMarkersRef = useRef(onMarkers);
  useEffect(() => {
    onMarkersRef.current = onMarkers;
  }, [onMarkers]);
  const reportMarkers = useCallback((list: EditorProblem[]) => {
    setMarkers(list);
    onMarkersRef.current?.(list);
  }, []);

  const shownMarkers = markers.slice(0, MAX_LISTED);
  const hasProblems = errors.length > 0 || markers.some((m) => m.severity === 'error');
  const describedByAll = [describedBy, errorsId].filter(Boolean).join(' ');

  return (
    <div className={hasProblems ? 'json-editor invalid' : 'json-editor'} data-testid={testId}>
      {failed ? (
        <>
          <textarea
            id={id}
            className="json-editor-fallback"
            aria-label={label}
            aria-invalid={hasProblems}
            aria-describedby={describedByAll}
            spellCheck={false}
            readOnly={readOnly}
            style={{ height }}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
          <p className="help">{editorStrings.json.fallback}</p>
        </>
      ) : setup ? (
        <MonacoJson
          setup={setup}
          value={value}
          onChange={onChange}
          label={label}
          testId={testId}
          height={height}
          readOnly={readOnly}
          autoClose={autoClose}
          language={language}
          path={`inmemory://toolsmith/editor-${seq}/${language === 'javascript' ? 'script.js' : MODEL_FILE[schema]}`}
          onMarkers={reportMarkers}
        />
      ) : (
        <div className="json-editor-loading" style={{ height }} role="status">
          {editorStrings.json.loading}
        </div>
      )}
      <ul className="json-editor-problems" id={errorsId} aria-label={editorStrings.json.problemsLabel(label)} data-testid={testId ? `${testId}-problems` : undefined}>
        {errors.map((e) => (
          <li key={`f:${e}`} className="field-error">
            {e}
          </li>
        ))}
        {shownMarkers.map((m, k) => (
          <li key={`m:${k}`} className={m.severity === 'error' ? 'field-error' : 'field-warning'}>
            {editorStrings.json.problem(m.line, m.column, m.message)}
          </li>
        ))}
        {markers.length > MAX_LISTED && <li className="muted">{editorStrings.json.more(markers.length - MAX_LISTED)}</li>}
      </ul>
    </div>
  );
}

interface MonacoJsonProps {
  setup: Setup;
  value: string;
  onChange(value: string): void;
  label: string;
  testId?: string;
  height: number | string;
  readOnly: boolean;
  autoClose: boolean;
  language: EditorLanguage;
  path: string;
  onMarkers(list: EditorProblem[]): void;
}

function MonacoJson({ setup, value, onChange, label, testId, height, readOnly, autoClose, language, path, onMarkers }: MonacoJsonProps) {
  const { Editor, monaco } = setup;
  const theme = useMonacoTheme(setup.DARK_THEME);
  const editorRef = useRef<StandaloneEditor | null>(null);
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  /*
   * Texts we reported through onChange that the parent has not rendered back yet. The
   * editor owns the text while a person types: if a render carried a value one keystroke
   * old (React renders after Monaco's event, and a slow render lets keys pile up), writing
   * it into the model would drop the newer keys and move the cursor. So a value we sent
   * ourselves is never written back; any other value (a reset, a copy) replaces the text.
   */
  const echoes = useRef<string[]>([]);
  /** True while we write a value from outside: the parent already has it. */
  const applying = useRef(false);
  const apply = useCallback((ed: StandaloneEditor, text: string) => {
    applying.current = true;
    try {
      syncFromOutside(ed, text);
    } finally {
      applying.current = false;
    }
  }, []);
  const handleChange = useCallback((v: string | undefined) => {
    if (applying.current) return;
    const text = v ?? '';
    echoes.current.push(text);
    if (echoes.current.length > 64) echoes.current.shift();
    onChangeRef.current(text);
  }, []);
  const latestValue = useRef(value);
  // A layout effect: it runs in the commit, before any further key is handled, so the value
  // it sees is the newest text reported (or a value from outside). A passive effect may run
  // many keys later, when the window is busy, after its text has left the bounded `echoes`.
  useLayoutEffect(() => {
    latestValue.current = value;
    const ed = editorRef.current;
    if (!ed) return;
    const k = echoes.current.lastIndexOf(value);
    if (k >= 0) {
      echoes.current.splice(0, k + 1);
      return;
    }
    apply(ed, value);
  }, [value, apply]);

  // Stable identities: @monaco-editor/react re-applies options and re-subscribes when these change.
  const options = useMemo<MonacoEditorNs.IStandaloneEditorConstructionOptions>(
    () => ({
      ariaLabel: label,
      readOnly,
      domReadOnly: readOnly,
      minimap: { enabled: false },
      automaticLayout: true,
      scrollBeyondLastLine: false,
      fontSize: 13,
      tabSize: 2,
      insertSpaces: true,
      lineNumbersMinChars: 3,
      folding: true,
      wordWrap: 'off',
      renderLineHighlight: 'line',
      fixedOverflowWidgets: true,
      formatOnPaste: false,
      // Large documents: keep the main thread free (tokenisation of very long lines stops early).
      maxTokenizationLineLength: 5000,
      stopRenderingLineAfter: 10000,
      accessibilitySupport: 'auto',
      ...(autoClose
        ? {}
        : { autoClosingBrackets: 'never', autoClosingQuotes: 'never', autoClosingOvertype: 'never', autoClosingDelete: 'never', autoSurround: 'never' }),
    }),
    [label, readOnly, autoClose],
  );
  const handleValidate = useCallback(
    (list: MonacoEditorNs.IMarker[]) =>
      onMarkers(
        list
          .filter((m) => m.severity >= monaco.MarkerSeverity.Warning)
          .map((m) => ({
            line: m.startLineNumber,
            column: m.startColumn,
            message: m.message,
            severity: m.severity === monaco.MarkerSeverity.Error ? 'error' : 'warning',
            ...(m.code !== undefined ? { code: typeof m.code === 'string' ? m.code : m.code.value } : {}),
          })),
      ),
    [monaco, onMarkers],
  );
  /** The model's version when the editor was made (a new model starts at 1): a later one at mount means keys came first. */
  const createdVersion = useRef(1);
  const handleBeforeMount = useCallback(() => {
    createdVersion.current = monaco.editor.getModel(monaco.Uri.parse(path))?.getVersionId() ?? 1;
  }, [monaco, path]);
  const handleMount = useCallback(
    (ed: StandaloneEditor) => {
      editorRef.current = ed;
      const model = ed.getModel();
      if (model && model.getVersionId() !== createdVersion.current) {
        // Keys typed between the editor's appearing and this call (the change subscription is
        // not in place yet): they are reported, not overwritten.
        handleChange(model.getValue());
      } else {
        // The value may have changed between the first render and the editor's creation.
        apply(ed, latestValue.current);
      }
      if (testId) (window.__toolsmithEditors ??= {})[testId] = ed;
    },
    [testId, apply, handleChange],
  );
  useEffect(
    () => () => {
      editorRef.current = null;
      if (testId && window.__toolsmithEditors) delete window.__toolsmithEditors[testId];
    },
    [testId],
  );
  // The model is disposed on unmount; its markers go with it.
  useEffect(() => () => onMarkers([]), [onMarkers]);

  return (
    <Editor
      height={height}
      language={language}
      path={path}
      defaultValue={value}
      theme={theme}
      options={options}
      onChange={handleChange}
      onValidate={handleValidate}
      beforeMount={handleBeforeMount}
      onMount={handleMount}
      loading={editorStrings.json.loading}
      className="json-editor-monaco"
    />
  );
}

/** Replaces the editor's text with a value from outside, as one undoable edit (read-only editors too). */
function syncFromOutside(ed: StandaloneEditor, value: string): void {
  const model = ed.getModel();
  if (!model || model.getValue() === value) return;
  model.pushStackElement();
  model.pushEditOperations([], [{ range: model.getFullModelRange(), text: value, forceMoveMarkers: true }], () => null);
  model.pushStackElement();
}

/** Follows the app's theme (html[data-theme]), which may change while the editor is open. */
function useMonacoTheme(dark: string): string {
  const read = () => document.documentElement.dataset.theme === 'dark';
  const [isDark, setDark] = useState(read);
  useEffect(() => {
    const obs = new MutationObserver(() => setDark(read()));
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => obs.disconnect();
  }, []);
  return isDark ? dark : 'vs';
}
