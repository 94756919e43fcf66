/**
 * A script tool's part of the tool editor: templates to start from (a new draft), the source in
 * Monaco checked as typed (`checkJs` over the `ctx` declarations and `Args` typed from the
 * argument schema), and the tool's own limits with Settings' defaults as placeholders. The
 * editor's markers go up through `onProblems`: a syntax error stops the save
 * (ScriptProblemsNote says so beside Save), the others are counted.
 *
 *   {draft.type === 'script' && <ScriptPanel draft={draft} readOnly={readOnly} tool={viewed} errorOf={errorsOf} onChange={setField} onProblems={setScriptProblems} />}
 */
import { useCallback, useId, useMemo, useState } from 'react';
import { argsDeclaration, SCRIPT_CTX_DECLARATION, SCRIPT_TEMPLATES } from '../../../../shared/model/script-ctx';
import type { ToolView } from '../../../../shared/model/tool';
import { useOp } from '../../../api/hooks';
import { Field, FieldError } from '../../../components/Field';
import { JsonEditor, type EditorProblem, type ExtraLib } from '../../../editor/JsonEditor';
import { editorStrings } from '../../../i18n/editor-strings';
import { scriptStrings } from '../../../i18n/script-strings';
import type { ToolDraft, ToolField } from '../editor/tool-draft';
import { applyTemplate, argSchemaForTypes, limitPlaceholder, outputSizeHint, SCRIPT_LIMIT_FIELDS, splitProblems, type ScriptProblems } from './script-draft';
import './script.css';

const s = scriptStrings.panel;

/** The script editor's test id: `window.__toolsmithEditors[SCRIPT_EDITOR]` is its Monaco instance. */
export const SCRIPT_EDITOR = 'script-editor';
const SOURCE_ID = 'tool-scriptSource';
/** The note beside Save (ScriptProblemsNote): what Save's description points at while it is off. */
export const SCRIPT_PROBLEMS_ID = 'tool-script-problems';
const CTX_LIB: ExtraLib = { path: 'file:///toolsmith/ctx.d.ts', text: SCRIPT_CTX_DECLARATION };

export interface ScriptPanelProps {
  draft: ToolDraft;
  readOnly: boolean;
  /** The saved version shown (read-only): its script file's problem, if any, is shown. */
  tool?: ToolView;
  /** A field's error (the form's check once it is edited or a save was tried, or the server's refusal). */
  errorOf(field: ToolField): string | undefined;
  /** Sets a field as if typed. */
  onChange<F extends ToolField>(field: F, value: ToolDraft[F]): void;
  /** The editor's markers, split into those that stop a save and the others. */
  onProblems(problems: ScriptProblems): void;
}

export function ScriptPanel({ draft, readOnly, tool, errorOf, onChange, onProblems }: ScriptPanelProps) {
  const ids = useId();
  const settings = useOp('settings.get', {});
  const defaults = settings.data?.scriptTools;
  const saved = useOp('tools.scriptSource', { bundleId: tool?.bundleId ?? '', slug: tool?.slug ?? '', version: tool?.version ?? '' }, { enabled: !!tool && tool.type === 'script' });
  const fileProblem = saved.data?.problem;

  // `Args` follows the argument schema; while its text is not JSON, the last one that was.
  const [typed, setTyped] = useState(() => ({ text: draft.argSchema, schema: argSchemaForTypes(draft.argSchema, {}) }));
  if (typed.text !== draft.argSchema) setTyped({ text: draft.argSchema, schema: argSchemaForTypes(draft.argSchema, typed.schema) });
  const argsText = useMemo(() => argsDeclaration(typed.schema), [typed.schema]);
  const libs = useMemo<ExtraLib[]>(() => [CTX_LIB, { path: 'file:///toolsmith/args.d.ts', text: argsText }], [argsText]);

  const report = useCallback((list: EditorProblem[]) => onProblems(splitProblems(list)), [onProblems]);

  return (
    <div className="script-panel" data-testid="script-panel">
      {!readOnly && <TemplatePicker argSchemaText={draft.argSchema} sourceEmpty={draft.scriptSource.trim() === ''} onChange={onChange} />}
      {fileProblem && (
        <FieldError role="alert" data-testid="script-file-problem">
          {s.fileProblem} {fileProblem}
        </FieldError>
      )}
      <Field
        className="field"
        id={SOURCE_ID}
        label={s.source}
        hint={readOnly ? s.readOnlyHelp : s.sourceHelp}
        error={readOnly ? undefined : errorOf('scriptSource')}
        errorTestId="field-error-scriptSource"
        // Monaco has no element with this id: a click on the label focuses the editor.
        onLabelClick={() => document.getElementById(SOURCE_ID) === null && focusScriptEditor()}
      >
        {(aria) => (
          <JsonEditor
            language="javascript"
            id={aria.id}
            label={s.source}
            testId={SCRIPT_EDITOR}
            height={readOnly ? 280 : 340}
            readOnly={readOnly}
            value={draft.scriptSource}
            extraLibs={libs}
            describedBy={aria['aria-describedby']}
            onChange={(v) => onChange('scriptSource', v)}
            onMarkers={report}
          />
        )}
      </Field>
      <fieldset className="script-limits" aria-describedby={`${ids}-limits-help`}>
        <legend>{s.limits}</legend>
        <div className="field-row">
          {SCRIPT_LIMIT_FIELDS.map((l) => (
            <Field
              key={l.field}
              className="field"
              id={`tool-${l.field}`}
              label={s[l.key]}
              hint={l.key === 'maxOutputBytes' ? outputSizeHint(draft[l.field], defaults) || undefined : undefined}
              error={readOnly ? undefined : errorOf(l.field)}
              errorTestId={`field-error-${l.field}`}
            >
              {(aria) => (
                <input
                  {...aria}
                  data-testid={`script-limit-${l.key}`}
                  inputMode="numeric"
                  spellCheck={false}
                  autoComplete="off"
                  readOnly={readOnly}
                  value={draft[l.field]}
                  placeholder={limitPlaceholder(l.key, defaults)}
                  onChange={(e) => onChange(l.field, e.target.value)}
                />
              )}
            </Field>
          ))}
        </div>
        <p id={`${ids}-limits-help`} className="help">
          {s.limitsHelp}
        </p>
      </fieldset>
    </div>
  );
}

/** The templates of shared/model/script-ctx.ts; open while the script is empty. */
function TemplatePicker({ argSchemaText, sourceEmpty, onChange }: { argSchemaText: string; sourceEmpty: boolean; onChange: ScriptPanelProps['onChange'] }) {
  const ids = useId();
  const [status, setStatus] = useState<string | null>(null);
  const use = (t: (typeof SCRIPT_TEMPLATES)[number]) => {
    const applied = applyTemplate(argSchemaText, t);
    onChange('scriptSource', applied.scriptSource);
    if (applied.argSchema !== undefined) onChange('argSchema', applied.argSchema);
    setStatus(applied.keptSchema ? s.appliedKeptSchema(t.title) : s.applied(t.title));
  };
  return (
    <div className="script-templates-wrap">
      <details className="script-templates" open={sourceEmpty || undefined} data-testid="script-templates">
        <summary>{s.templates}</summary>
        <p className="help">{sourceEmpty ? s.templatesHelp : s.templatesReplace}</p>
        <ul className="script-template-list">
          {SCRIPT_TEMPLATES.map((t) => (
            <li key={t.id}>
              <button type="button" className="script-template" data-testid={`script-template-${t.id}`} aria-describedby={`${ids}-${t.id}`} onClick={() => use(t)}>
                {s.useTemplate(t.title)}
              </button>
              <span id={`${ids}-${t.id}`} className="help">
                {t.description}
              </span>
            </li>
          ))}
        </ul>
      </details>
      {/* Outside the list, which folds once the script is not empty. */}
      <p className="status-ok" role="status" data-testid="script-template-status">
        {status ?? ''}
      </p>
    </div>
  );
}

/** Beside Save: why it is off (the script does not parse), or how many other problems the checker found. */
export function ScriptProblemsNote({ problems }: { problems: ScriptProblems }) {
  const blocking = problems.syntax.length > 0;
  const list = blocking ? problems.syntax : problems.other;
  const first = list[0];
  if (!first) return null;
  const text = (
    <>
      {blocking ? scriptStrings.problems.syntax(list.length) : scriptStrings.problems.other(list.length)}{' '}
      <button type="button" className="link-button" onClick={() => focusScriptEditor(first.line, first.column)}>
        {scriptStrings.problems.show}
      </button>
      {': '}
      {editorStrings.json.problem(first.line, first.column, first.message)}
    </>
  );
  return blocking ? (
    <FieldError as="div" id={SCRIPT_PROBLEMS_ID} className="script-problems" data-testid="script-problems">
      {text}
    </FieldError>
  ) : (
    <div id={SCRIPT_PROBLEMS_ID} className="field-warning script-problems" data-testid="script-problems">
      {text}
    </div>
  );
}

/** Focus on the script (at a line and column when given); the plain text box when Monaco did not load. */
export function focusScriptEditor(line?: number, column?: number): void {
  const ed = window.__toolsmithEditors?.[SCRIPT_EDITOR];
  if (!ed) {
    document.getElementById(SOURCE_ID)?.focus();
    return;
  }
  if (line !== undefined) {
    ed.setPosition({ lineNumber: line, column: column ?? 1 });
    ed.revealLineInCenter(line);
  }
  ed.focus();
}
