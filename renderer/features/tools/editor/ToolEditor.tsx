import { useDeferredValue, useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Controller, useForm, useWatch, type FieldErrors, type Resolver } from 'react-hook-form';
import type { OpInput } from '../../../../shared/contract';
import { HTTP_METHODS } from '../../../../shared/model/http-spec';
import type { ToolView } from '../../../../shared/model/tool';
import { useOp, useOpMutation } from '../../../api/hooks';
import { approvalWhy } from '../../../components/approval-why';
import { Field, FieldError, type FieldProps } from '../../../components/Field';
import { McpToolFacts } from '../../../components/McpHints';
import { approvalStrings } from '../../../i18n/approval-strings';
import { JsonEditor, type EditorProblem } from '../../../editor/JsonEditor';
import type { JsonSchemaKind } from '../../../editor/json-schemas';
import { editorStrings } from '../../../i18n/editor-strings';
import { BusyButton } from '../BusyButton';
import { SCRIPT_PROBLEMS_ID, ScriptPanel, ScriptProblemsNote } from '../script/ScriptPanel';
import { NO_SCRIPT_PROBLEMS, type ScriptProblems } from '../script/script-draft';
import {
  buildDraft,
  countErrors,
  draftFromTool,
  emptyDraft,
  relevantFields,
  RESPONSE_MODES,
  sameDraft,
  serverErrors,
  TOOL_TYPES,
  type BuiltDraft,
  type ToolDraft,
  type ToolField,
} from './tool-draft';

const s = editorStrings.tool;

/** `scriptSource`: a script tool's source (tools.scriptSource), which its view does not carry. */
export type ToolEditorMode = { kind: 'view'; tool: ToolView; scriptSource?: string } | { kind: 'new'; bundleId: string; from?: ToolView; scriptSource?: string };

/** What the tester may run: the draft as it stands (valid or not) or the saved tool. */
export interface ToolDraftSnapshot {
  bundleId: string;
  slug: string;
  version: string;
  body: Record<string, unknown>;
  valid: boolean;
}

export interface ToolEditorProps {
  mode: ToolEditorMode;
  /** Why this tool cannot be copied into a new version (built-in or inactive bundle), if so. */
  newVersionBlocked?: string;
  /** A message from the workbench to show on top (e.g. "Saved ..."). */
  notice?: string;
  onSaved(tool: ToolView): void;
  onNewVersion(tool: ToolView): void;
  onDiscard(): void;
  onDirtyChange(dirty: boolean): void;
  onDraftChange?(draft: ToolDraftSnapshot | null): void;
}

/** Where focus goes for each field (the first invalid one after a refused save). */
const inputId = (f: ToolField) => `tool-${f}`;

const JSON_EDITORS: Record<
  'query' | 'headers' | 'body' | 'auth' | 'limits' | 'httpAdvanced' | 'sequence' | 'argSchema' | 'outputSchema',
  { testId: string; schema: JsonSchemaKind; height: number; oneLine?: boolean }
> = {
  query: { testId: 'http-query-editor', schema: 'http-templates', height: 96, oneLine: true },
  headers: { testId: 'http-headers-editor', schema: 'http-templates', height: 96, oneLine: true },
  body: { testId: 'http-body-editor', schema: 'http-body', height: 120 },
  auth: { testId: 'http-auth-editor', schema: 'http-auth', height: 96, oneLine: true },
  limits: { testId: 'http-limits-editor', schema: 'http-limits', height: 132 },
  httpAdvanced: { testId: 'http-advanced-editor', schema: 'none', height: 96, oneLine: true },
  sequence: { testId: 'sequence-editor', schema: 'none', height: 220 },
  argSchema: { testId: 'argschema-editor', schema: 'arg-schema', height: 240 },
  outputSchema: { testId: 'outputschema-editor', schema: 'json-schema', height: 160 },
};
type JsonEditorField = keyof typeof JSON_EDITORS;

/** The last draft checked and what came of it: the form's check and the render often ask for the same draft in a row. */
let lastBuilt: { draft: ToolDraft; built: BuiltDraft } | undefined;
function buildOnce(draft: ToolDraft): BuiltDraft {
  if (lastBuilt && sameDraft(lastBuilt.draft, draft)) return lastBuilt.built;
  const built = buildDraft(draft);
  lastBuilt = { draft: { ...draft }, built };
  return built;
}

/**
 * The form's check: the shared rules over the whole draft (buildDraft), each field given its
 * own errors (joined), only the fields its type uses. An error of no one field (root) refuses
 * the save too; it is shown from the draft (formErrors) once a save was tried.
 */
const checkDraft: Resolver<ToolDraft> = (values) => {
  const { errors } = buildOnce(values);
  const scope = relevantFields(values.type);
  const found: Record<string, { type: string; message: string }> = {};
  for (const [key, list] of Object.entries(errors)) {
    if (!list?.length || (key !== 'form' && !scope.has(key as ToolField))) continue;
    found[key === 'form' ? 'root' : key] = { type: 'rules', message: list.join(' ') };
  }
  return Object.keys(found).length > 0 ? { values: {}, errors: found as FieldErrors<ToolDraft> } : { values, errors: {} };
};

/**
 * The tool form. A saved version is shown read-only (versions are immutable) with a
 * "New version" button; a draft is checked as you type with the shared rules, and the
 * server's refusal lands on the field it concerns.
 */
export function ToolEditor({ mode, newVersionBlocked, notice, onSaved, onNewVersion, onDiscard, onDirtyChange, onDraftChange }: ToolEditorProps) {
  const readOnly = mode.kind === 'view';
  const ids = useId();
  const initial = useMemo(
    () =>
      mode.kind === 'view'
        ? draftFromTool(mode.tool, { newVersion: false, scriptSource: mode.scriptSource })
        : mode.from
          ? draftFromTool(mode.from, { newVersion: true, scriptSource: mode.scriptSource })
          : emptyDraft(),
    [mode],
  );
  // A field's errors show once it has been edited (mode onChange) or a save was tried; the
  // server's refusal lands on its field (setError) until that field is edited again.
  const { control, register, handleSubmit, setError, clearErrors, getValues, setValue, formState } = useForm<ToolDraft>({
    defaultValues: initial,
    // A saved version shows the tool it is given.
    values: readOnly ? initial : undefined,
    resolver: checkDraft,
    mode: 'onChange',
    // focusField does it: a Monaco field has no element of its own to focus.
    shouldFocusError: false,
  });
  const edited = useWatch({ control }) as ToolDraft;
  const draft = readOnly ? initial : edited;
  /** Each JSON editor's first error marker (schema or syntax), by field; absent when it has none. */
  const [markerErrors, setMarkerErrors] = useState<Partial<Record<ToolField, EditorProblem>>>({});
  const [status, setStatus] = useState<string | null>(null);
  const [scriptProblems, setScriptProblems] = useState<ScriptProblems>(NO_SCRIPT_PROBLEMS);
  const save = useOpMutation('tools.put');
  // A saved tool may ask through what it runs (files.write, a step that asks), whatever its own box says.
  const viewed = mode.kind === 'view' ? mode.tool : undefined;
  const approval = useOp('tools.approval', { bundleId: viewed?.bundleId ?? '', slug: viewed?.slug ?? '', version: viewed?.version ?? '' }, { enabled: !!viewed });
  const inherited = approval.data && approval.data.reason.kind !== 'tool' ? approvalWhy(approval.data).reason : undefined;
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Checking a 10k-line schema takes a few milliseconds: let keystrokes win.
  const checked = useDeferredValue(draft);
  const built = useMemo(() => buildOnce(checked), [checked]);
  const relevant = useMemo(() => relevantFields(draft.type), [draft.type]);
  const dirty = !readOnly && formState.isDirty;
  const bundleId = mode.kind === 'view' ? mode.tool.bundleId : mode.bundleId;

  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => {
    onDraftChange?.({ bundleId, slug: checked.slug, version: checked.version, body: built.body, valid: countErrors(built.errors, relevantFields(checked.type)) === 0 });
  }, [onDraftChange, bundleId, checked, built]);
  useEffect(() => () => onDraftChange?.(null), [onDraftChange]);

  // Focus, once when opened: a draft starts at its first empty field, a saved tool at its heading.
  const openedAs = useRef(mode);
  useEffect(() => {
    const m = openedAs.current;
    if (m.kind === 'view') headingRef.current?.focus();
    else document.getElementById(inputId(m.from ? 'version' : 'slug'))?.focus();
  }, []);

  /** Any edit: the last save's status and its refusal of the whole form go. */
  const onEdit = () => {
    setStatus(null);
    if (formState.errors.root?.server) clearErrors('root.server');
  };
  // A conflict is about the pair <slug, version>: changing either checks both again, which clears it.
  const field = (f: ToolField) => register(f, { onChange: onEdit, ...(f === 'slug' ? { deps: 'version' } : f === 'version' ? { deps: 'slug' } : {}) });
  /** A field the script panel sets (its editor, its limits, a template's script and schema), as if typed. */
  const setField = <F extends ToolField>(f: F, value: ToolDraft[F]) => {
    setValue(f, value as never, { shouldDirty: true, shouldTouch: true, shouldValidate: true });
    onEdit();
  };

  const onMarkersOf = useMemo(() => {
    const make = (f: ToolField) => (list: EditorProblem[]) => {
      const first = list.find((m) => m.severity === 'error');
      setMarkerErrors((prev) => {
        const was = prev[f];
        if (was === first || (was && first && was.line === first.line && was.column === first.column && was.message === first.message)) return prev;
        const next = { ...prev };
        if (first) next[f] = first;
        else delete next[f];
        return next;
      });
    };
    return Object.fromEntries(Object.keys(JSON_EDITORS).map((f) => [f, make(f as ToolField)])) as Record<JsonEditorField, (l: EditorProblem[]) => void>;
  }, []);

  const errorsOf = (f: ToolField): string | undefined => (readOnly ? undefined : formState.errors[f]?.message);
  // The server's refusals of no one field, a line each.
  const serverForm = formState.errors.root?.server?.message;
  const formErrors = [...(formState.isSubmitted ? (built.errors.form ?? []) : []), ...(serverForm ? serverForm.split('\n') : [])];
  /** Why Save is off: each JSON field that does not parse or has an error marker, with its first problem. */
  const jsonBlockers: { field: ToolField; problem: string }[] = [];
  for (const f of Object.keys(JSON_EDITORS) as JsonEditorField[]) {
    if (!relevant.has(f)) continue;
    const marker = markerErrors[f];
    if (built.jsonErrors.has(f)) jsonBlockers.push({ field: f, problem: built.errors[f]?.[0] ?? (marker ? editorStrings.json.problem(marker.line, marker.column, marker.message) : '') });
    else if (marker) jsonBlockers.push({ field: f, problem: editorStrings.json.problem(marker.line, marker.column, marker.message) });
  }
  const jsonBlocked = jsonBlockers.length > 0;
  const scriptBlocked = !readOnly && draft.type === 'script' && scriptProblems.syntax.length > 0;

  /** The check refused the draft: say how many problems, and go to the first. */
  const refused = () => {
    const values = getValues();
    const now = buildOnce(values);
    const scope = relevantFields(values.type);
    setStatus(s.fixFirst(countErrors(now.errors, scope)));
    const first = (Object.keys(values) as ToolField[]).find((f) => scope.has(f) && now.errors[f]?.length);
    if (first) focusField(first);
  };
  const send = (values: ToolDraft) => {
    setStatus(null);
    save.mutate(
      { bundleId, slug: values.slug, version: values.version, body: buildOnce(values).body as OpInput<'tools.put'>['body'] },
      {
        onSuccess: (tool) => {
          onDirtyChange(false);
          onSaved(tool);
        },
        onError: (e) => {
          const errs = serverErrors(e.info);
          for (const [key, list] of Object.entries(errs)) {
            if (!list?.length) continue;
            if (key === 'form') setError('root.server', { type: 'server', message: list.join('\n') });
            else setError(key as ToolField, { type: 'server', message: list.join(' ') });
          }
          const first = (Object.keys(values) as ToolField[]).find((f) => errs[f]?.length);
          if (first) focusField(first);
        },
      },
    );
  };
  const submit = () => {
    if (readOnly || save.isPending) return;
    void handleSubmit(send, refused)();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      submit();
    }
  };

  const title =
    mode.kind === 'view' ? s.viewTitle(mode.tool.displayName, mode.tool.version) : mode.from ? s.newVersionTitle(mode.from.slug, mode.from.version) : s.newTitle;

  const text = (f: ToolField, testId: string, extra: { help?: string; multiline?: boolean; placeholder?: string; inputMode?: 'numeric' } = {}) => (
    <DraftField field={f} label={s.fields[f as keyof typeof s.fields]} help={extra.help} error={errorsOf(f)}>
      {(aria) =>
        extra.multiline ? (
          <textarea {...aria} {...field(f)} data-testid={testId} rows={3} readOnly={readOnly} />
        ) : (
          <input
            {...aria}
            {...field(f)}
            data-testid={testId}
            readOnly={readOnly}
            placeholder={extra.placeholder}
            inputMode={extra.inputMode}
            spellCheck={false}
            autoComplete="off"
          />
        )
      }
    </DraftField>
  );

  const json = (f: JsonEditorField, help?: string) => (
    <DraftField field={f} label={s.fields[f]} help={help} error={errorsOf(f)}>
      {(aria) => (
        <Controller
          name={f}
          control={control}
          render={({ field: value }) => (
            <JsonEditor
              id={aria.id}
              label={s.fields[f]}
              testId={JSON_EDITORS[f].testId}
              schema={JSON_EDITORS[f].schema}
              height={JSON_EDITORS[f].height}
              autoClose={!JSON_EDITORS[f].oneLine}
              readOnly={readOnly}
              value={value.value}
              describedBy={aria['aria-describedby']}
              onChange={(v) => {
                value.onChange(v);
                onEdit();
              }}
              onMarkers={onMarkersOf[f]}
            />
          )}
        />
      )}
    </DraftField>
  );

  return (
    <form className="tool-editor" aria-labelledby="tool-editor-title" noValidate onSubmit={onSubmit} onKeyDown={onKeyDown} data-testid="tool-editor">
      <header className="editor-header">
        <h2 id="tool-editor-title" ref={headingRef} tabIndex={-1}>
          {title}
        </h2>
        {dirty && <span className="badge unsaved">{editorStrings.unsaved.marker}</span>}
      </header>
      {notice && (
        <p className="status-ok" role="status" data-testid="tool-form-notice">
          {notice}
        </p>
      )}
      {mode.kind === 'view' && (
        <div className="editor-readonly-bar">
          <p className="help">{mode.tool.isBuiltIn ? s.builtInReadOnly : mode.tool.type === 'mcp' ? s.mcpReadOnly : s.savedReadOnly}</p>
          {!mode.tool.isBuiltIn && (
            <button type="button" className="primary" data-testid="new-version" disabled={!!newVersionBlocked} title={newVersionBlocked} onClick={() => onNewVersion(mode.tool)}>
              {s.newVersion}
            </button>
          )}
          {!mode.tool.isBuiltIn && newVersionBlocked && <p className="help">{newVersionBlocked}</p>}
        </div>
      )}

      <fieldset>
        <legend>{s.identity}</legend>
        <div className="field-row">
          {text('slug', 'tool-form-slug', { help: readOnly ? undefined : s.help.slug })}
          {text('version', 'tool-form-version', { help: readOnly ? undefined : s.help.version })}
        </div>
        {text('displayName', 'tool-form-name')}
        {text('description', 'tool-form-description', { multiline: true })}
        {text('tags', 'tool-form-tags', { placeholder: s.help.tags })}
        <DraftField field="type" label={s.fields.type} error={errorsOf('type')}>
          {(aria) => (
            <select {...aria} {...field('type')} data-testid="tool-form-type" disabled={readOnly}>
              {(draft.type === 'mcp' ? [...TOOL_TYPES, draft.type] : TOOL_TYPES).map((t) => (
                <option key={t} value={t}>
                  {s.types[t]}
                </option>
              ))}
            </select>
          )}
        </DraftField>
        <div className="field">
          <label className="inline-check" htmlFor={inputId('requiresApproval')}>
            <input
              id={inputId('requiresApproval')}
              type="checkbox"
              data-testid="tool-form-requires-approval"
              disabled={readOnly}
              aria-describedby={`${inputId('requiresApproval')}-help`}
              {...field('requiresApproval')}
            />
            {s.fields.requiresApproval}
          </label>
          <p id={`${inputId('requiresApproval')}-help`} className="help">
            {s.help.requiresApproval}
          </p>
          {inherited && (
            <p className="help" role="note" data-testid="tool-form-inherited-approval">
              <strong>{approvalStrings.inherited}</strong> {inherited}
            </p>
          )}
        </div>
      </fieldset>

      <fieldset>
        <legend>{s.backend}</legend>
        {draft.type === 'local' && text('functionId', 'tool-form-function', { help: s.help.functionId })}
        {draft.type === 'http' && (
          <>
            <div className="field-row">
              <DraftField field="method" label={s.fields.method} error={errorsOf('method')} narrow>
                {(aria) => (
                  <select {...aria} {...field('method')} data-testid="tool-form-method" disabled={readOnly}>
                    {HTTP_METHODS.map((m) => (
                      <option key={m}>{m}</option>
                    ))}
                  </select>
                )}
              </DraftField>
              {text('urlTemplate', 'tool-form-url', { help: readOnly ? undefined : s.help.urlTemplate })}
            </div>
            <div className="field-row">
              <DraftField field="responseMode" label={s.fields.responseMode} error={errorsOf('responseMode')}>
                {(aria) => (
                  <select id={aria.id} aria-describedby={aria['aria-describedby']} {...field('responseMode')} data-testid="tool-form-response-mode" disabled={readOnly}>
                    {RESPONSE_MODES.map((m) => (
                      <option key={m} value={m}>
                        {s.responseModes[m]}
                      </option>
                    ))}
                  </select>
                )}
              </DraftField>
              {text('timeoutMs', 'tool-form-timeout', { inputMode: 'numeric', placeholder: '30000' })}
            </div>
            {json('query')}
            {json('headers')}
            {json('body', readOnly ? undefined : s.help.body)}
            {json('auth', readOnly ? undefined : s.help.auth)}
            {json('limits', readOnly ? undefined : s.help.limits)}
            {json('httpAdvanced', readOnly ? undefined : s.help.httpAdvanced)}
          </>
        )}
        {draft.type === 'sequence' && json('sequence', readOnly ? undefined : s.help.sequence)}
        {draft.type === 'script' && <ScriptPanel draft={draft} readOnly={readOnly} tool={viewed} errorOf={errorsOf} onChange={setField} onProblems={setScriptProblems} />}
        {draft.type === 'mcp' && mode.kind === 'view' && mode.tool.mcp && (
          <p className="help" data-testid="tool-form-mcp">
            {s.mcpBackend(mode.tool.mcp.serverTool)} <McpToolFacts mcp={mode.tool.mcp} />
          </p>
        )}
      </fieldset>

      <fieldset>
        <legend>{s.schemas}</legend>
        {json('argSchema', readOnly ? undefined : s.help.argSchema)}
        {json('outputSchema')}
        {!readOnly && <p className="help">{editorStrings.json.tabHint}</p>}
      </fieldset>

      {formErrors.length > 0 && (
        <div className="form-error" role="alert" data-testid="tool-form-error">
          {formErrors.map((e) => (
            <p key={e}>{e}</p>
          ))}
        </div>
      )}
      {!readOnly && (
        <div className="form-actions editor-actions">
          <BusyButton submit className="primary" data-testid="tool-form-save" unavailable={save.isPending || jsonBlocked || scriptBlocked} aria-describedby={jsonBlocked ? `${ids}-save-blocked` : scriptBlocked ? SCRIPT_PROBLEMS_ID : undefined}>
            {save.isPending ? editorStrings.common.saving : s.save}
          </BusyButton>
          <button type="button" data-testid="tool-form-discard" onClick={onDiscard}>
            {s.discard}
          </button>
          <span className="help">{s.saveHint}</span>
          {jsonBlocked && (
            <FieldError as="div" className="save-blocked" id={`${ids}-save-blocked`} data-testid="tool-form-save-blocked">
              {s.saveBlocked}{' '}
              {jsonBlockers.map((b, i) => (
                <span key={b.field}>
                  {i > 0 && '; '}
                  <button type="button" className="link-button" onClick={() => focusField(b.field)}>
                    {s.fields[b.field]}
                  </button>
                  {b.problem && `: ${b.problem}`}
                </span>
              ))}
            </FieldError>
          )}
          {draft.type === 'script' && <ScriptProblemsNote problems={scriptProblems} />}
          {status && (
            <FieldError as="span" role="status" data-testid="tool-form-status">
              {status}
            </FieldError>
          )}
        </div>
      )}
    </form>
  );
}

function focusField(f: ToolField): void {
  const el = document.getElementById(inputId(f));
  if (el) {
    el.focus();
    return;
  }
  // A Monaco field has no element with the id: focus its editor (or its fallback).
  const editor = JSON_EDITORS[f as JsonEditorField];
  if (editor) window.__toolsmithEditors?.[editor.testId]?.focus();
}

/** A field of the tool form: the shared Field, its control's id taken from the field's name; a click on a Monaco field's label focuses its editor. */
function DraftField({ field, label, help, error, narrow, children }: { field: ToolField; label: string; help?: string; error?: string; narrow?: boolean; children: FieldProps['children'] }) {
  const id = inputId(field);
  return (
    <Field
      className={narrow ? 'field narrow' : 'field'}
      id={id}
      label={label}
      hint={help}
      error={error}
      errorTestId={`field-error-${field}`}
      onLabelClick={() => document.getElementById(id) === null && focusField(field)}
    >
      {children}
    </Field>
  );
}
