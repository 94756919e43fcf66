/**
 * One agent profile in a form: name, display name, description, system prompt, model, tools,
 * the agents it delegates to, ask-master and the step limit. Read-only for a built-in (with
 * Duplicate). The form checks that the name is free; the core checks the rest: each wrong
 * field shows its message beside it (until it is edited) and the first gets the focus. What
 * is typed stays (in useAgentsUi, told of every change) until saved or cancelled.
 */
import { useEffect, useEffectEvent, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useForm, type PathValue } from 'react-hook-form';
import { AGENT_MAX_STEPS_LIMIT, type AgentProfileView } from '../../../shared/model/agent-profile';
import type { ToolSelection } from '../../../shared/model/provider';
import { useOp, useOpMutation, usePagedOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { agentsStrings as s } from '../../i18n/agents-strings';
import { modelGroups, modelValue, parseModelValue } from '../chat/model-options';
import { latestVersions, startChoice, toggleBundle, toggleTool } from '../chat/tool-selection';
import { AGENT_FIELDS, delegateChoices, explainIssues, issuesByField, nameTaken, profileFromDraft, toggleDelegate, type AgentDraft, type AgentField } from './agent-form';

const f = s.form;

export interface AgentFormProps {
  /** The draft shown; for a read-only view, the built-in's. */
  draft: AgentDraft;
  /** null: a new profile; else the saved profile's name (it cannot change). */
  editing: string | null;
  readOnly?: boolean;
  views: readonly AgentProfileView[];
  onChange(draft: AgentDraft): void;
  onSaved(view: AgentProfileView): void;
  onCancel(): void;
  onDuplicate?(): void;
}

export function AgentForm({ draft: given, editing, readOnly = false, views, onChange, onSaved, onCancel, onDuplicate }: AgentFormProps) {
  const ids = useId();
  const save = useOpMutation('agents.put');
  const providers = useOp('providers.list', {});
  const { register, handleSubmit, watch, getValues, setValue, setError, clearErrors, formState } = useForm<AgentDraft>({
    defaultValues: given,
    // A built-in's view follows the profile as listed.
    ...(readOnly ? { values: given } : {}),
    // The name is checked on Save, then as it is typed; the core's refusals stay until their field is edited.
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    shouldFocusError: false,
  });
  const draft = watch();
  // What is typed is kept outside the form, so that leaving the screen loses nothing.
  useEffect(() => {
    if (readOnly) return;
    const sub = watch(() => onChange(getValues()));
    return () => sub.unsubscribe();
  }, [readOnly, watch, getValues, onChange]);
  const errors: Partial<Record<AgentField, string>> = Object.fromEntries(
    AGENT_FIELDS.flatMap((k) => {
      const message = (formState.errors[k] as { message?: string } | undefined)?.message;
      return message ? [[k, message]] : [];
    }),
  );
  const [formError, setFormError] = useState<{ code?: string; message: string; other: string[] } | null>(null);
  const [focusFirst, setFocusFirst] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>(readOnly ? '[data-testid="agent-form-close"]' : 'input:not([readonly]), textarea')?.focus();
  }, [readOnly]);
  // After a refusal: the first wrong field gets the focus (its message is read with it); a field
  // typed into after it loses its error without the focus moving.
  const focusFirstWrong = useEffectEvent(() => {
    const first = AGENT_FIELDS.find((k) => errors[k]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
    else formRef.current?.querySelector<HTMLElement>('[data-testid="agent-form-error"]')?.focus();
  });
  useEffect(() => {
    if (focusFirst !== 0) focusFirstWrong();
  }, [focusFirst]);

  /** A field that is not a text box (model, tools, agents delegated to): set, and its error gone. */
  const set = <K extends 'model' | 'tools' | 'delegatesTo'>(k: K, value: AgentDraft[K]) => {
    setValue(k, value as PathValue<AgentDraft, K>, { shouldDirty: true });
    clearErrors(k);
  };
  /** A text box or check box: typing into it takes its error away (the name's is checked again). */
  const text = (k: AgentField) =>
    register(k, {
      ...(k === 'name' ? { validate: (_: unknown, all: AgentDraft) => nameTaken(all, views, editing, f.nameTaken) ?? true } : {}),
      onChange: () => {
        if (k !== 'name') clearErrors(k);
      },
    });

  const submit = handleSubmit(
    (values) => {
      setFormError(null);
      save.mutate(
        { profile: profileFromDraft(values) },
        {
          onSuccess: (v) => onSaved(v),
          onError: (err) => {
            const mapped = explainIssues(issuesByField(err.info.details), values, (typed) => f.stepsNotANumber(typed, AGENT_MAX_STEPS_LIMIT));
            for (const [k, message] of Object.entries(mapped.fields)) setError(k as AgentField, { type: 'server', message });
            const named = Object.keys(mapped.fields).length > 0;
            // A refusal naming no field of the form (a conflict, a key the form does not have) is shown above the buttons.
            setFormError(named && mapped.other.length === 0 ? null : { code: err.info.code, message: named ? '' : err.message, other: mapped.other });
            setFocusFirst((n) => n + 1);
          },
        },
      );
    },
    () => {
      setFormError(null);
      setFocusFirst((n) => n + 1);
    },
  );

  const describedBy = (k: AgentField, help: boolean) => [help ? `${ids}-${k}-help` : '', errors[k] ? `${ids}-${k}-error` : ''].filter(Boolean).join(' ') || undefined;
  const field = (k: AgentField, help = false) => ({
    id: `${ids}-${k}`,
    'data-field': k,
    'aria-invalid': !!errors[k] || undefined,
    'aria-describedby': describedBy(k, help),
  });
  const err = (k: AgentField) =>
    errors[k] && (
      <FieldError id={`${ids}-${k}-error`} data-testid={`agent-form-${k}-error`}>
        {errors[k]}
      </FieldError>
    );
  const help = (k: AgentField, text: ReactNode) => (
    <p className="help" id={`${ids}-${k}-help`}>
      {text}
    </p>
  );

  const title = readOnly ? f.view(draft.name) : editing ? f.edit(editing) : f.add;
  const groups = modelGroups(providers.data ?? [], draft.model);
  const delegates = delegateChoices(draft, views);

  return (
    <form
      ref={formRef}
      className="agent-form"
      onSubmit={(e) => {
        if (readOnly) return e.preventDefault();
        void submit(e);
      }}
      noValidate
      aria-label={title}
      data-testid="agent-form"
      data-readonly={readOnly || undefined}
      onKeyDown={(e) => {
        // Escape leaves the form (as Cancel does), unless a list or menu inside it took the key.
        if (e.key !== 'Escape' || e.defaultPrevented) return;
        e.preventDefault();
        onCancel();
      }}
    >
      <h3>{title}</h3>
      {readOnly && <p className="help">{f.readOnlyHelp}</p>}
      <fieldset className="agent-form-fields" disabled={readOnly}>
        <legend className="visually-hidden">{title}</legend>
        <div className="agent-form-row">
          <div className="agent-form-field">
            <label htmlFor={`${ids}-name`}>{f.name}</label>
            <input
              {...field('name', true)}
              data-testid="agent-form-name"
              {...text('name')}
              readOnly={editing !== null}
              autoComplete="off"
              spellCheck={false}
              maxLength={60}
            />
            {help('name', editing !== null && !readOnly ? f.nameFixed : f.nameHelp)}
            {err('name')}
          </div>
          <div className="agent-form-field">
            <label htmlFor={`${ids}-displayName`}>{f.displayName}</label>
            <input {...field('displayName', true)} data-testid="agent-form-displayName" {...text('displayName')} autoComplete="off" />
            {help('displayName', f.displayNameHelp)}
            {err('displayName')}
          </div>
        </div>
        <label htmlFor={`${ids}-description`}>{f.description}</label>
        <textarea {...field('description', true)} data-testid="agent-form-description" rows={3} {...text('description')} />
        {help('description', f.descriptionHelp)}
        {err('description')}
        <label htmlFor={`${ids}-systemPrompt`}>{f.systemPrompt}</label>
        <textarea {...field('systemPrompt')} data-testid="agent-form-systemPrompt" className="agent-prompt" rows={6} spellCheck {...text('systemPrompt')} />
        {err('systemPrompt')}
        <label htmlFor={`${ids}-model`}>{f.model}</label>
        <select {...field('model', true)} data-testid="agent-form-model" value={modelValue(draft.model)} onChange={(e) => set('model', parseModelValue(e.target.value))}>
          <option value="">{s.delegatingModel}</option>
          {groups.map((g) => (
            <optgroup key={g.providerId} label={g.providerName}>
              {g.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.missing ? f.modelMissing(o.ref.model) : o.ref.model}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        {help('model', f.modelHelp)}
        {err('model')}
        <ToolsField ids={ids} selection={draft.tools} invalid={!!errors.tools} describedBy={describedBy('tools', true)} onChange={(tools) => set('tools', tools)} />
        {err('tools')}
        <fieldset className="agent-delegates" data-field="delegatesTo" tabIndex={-1} aria-describedby={describedBy('delegatesTo', true)} aria-invalid={!!errors.delegatesTo || undefined}>
          <legend>{f.delegatesTo}</legend>
          {help('delegatesTo', f.delegatesHelp)}
          {delegates.length === 0 && <p className="muted">{f.noOtherAgents}</p>}
          <ul className="agent-checks">
            {delegates.map((d) => (
              <li key={d.name}>
                <label className="inline-check">
                  <input
                    type="checkbox"
                    data-testid={`agent-form-delegate-${d.name}`}
                    checked={draft.delegatesTo.includes(d.name)}
                    onChange={(e) => set('delegatesTo', toggleDelegate(getValues(), d.name, e.target.checked).delegatesTo)}
                  />
                  {d.label} <code className="muted">{d.name}</code>
                  {d.missing && <span className="badge danger">{f.missingDelegate}</span>}
                  {!d.missing && !d.enabled && <span className="badge">{f.disabledDelegate}</span>}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        {err('delegatesTo')}
        <label className="inline-check agent-ask-master">
          <input {...field('canAskMaster')} type="checkbox" data-testid="agent-form-canAskMaster" {...text('canAskMaster')} />
          {f.canAskMaster}
        </label>
        {err('canAskMaster')}
        <label htmlFor={`${ids}-maxSteps`}>{f.maxSteps}</label>
        <input
          {...field('maxSteps', true)}
          data-testid="agent-form-maxSteps"
          className="agent-steps"
          inputMode="numeric"
          {...text('maxSteps')}
        />
        {help('maxSteps', f.maxStepsHelp(AGENT_MAX_STEPS_LIMIT))}
        {err('maxSteps')}
      </fieldset>
      {formError && (
        <FieldError as="div" role="alert" tabIndex={-1} data-testid="agent-form-error">
          {formError.message && (
            <p>
              {f.failed} {formError.code && <code className="error-code">{formError.code}</code>} {formError.message}
            </p>
          )}
          {formError.other.length > 0 && (
            <p>
              {f.otherIssues} {formError.other.join('; ')}
            </p>
          )}
        </FieldError>
      )}
      {Object.keys(errors).length > 0 && (
        <p className="visually-hidden" role="alert">
          {f.failed} {AGENT_FIELDS.filter((k) => errors[k]).map((k) => `${f[k]}: ${errors[k]}`).join('; ')}
        </p>
      )}
      <div className="form-actions">
        {readOnly ? (
          <>
            {onDuplicate && (
              <button type="button" className="primary" data-testid="agent-form-duplicate" onClick={onDuplicate}>
                {s.duplicate}
              </button>
            )}
            <button type="button" data-testid="agent-form-close" onClick={onCancel}>
              {f.close}
            </button>
          </>
        ) : (
          <>
            <button type="submit" className="primary" data-testid="agent-form-save" disabled={save.isPending}>
              {save.isPending ? f.saving : f.save}
            </button>
            <button type="button" data-testid="agent-form-cancel" onClick={onCancel}>
              {f.cancel}
            </button>
          </>
        )}
      </div>
    </form>
  );
}

/** Tools: none, or the ticked bundles and tools (a ticked bundle covers its tools). Ids no longer listed stay, to be unticked. */
function ToolsField({ ids, selection, invalid, describedBy, onChange }: { ids: string; selection: ToolSelection | null; invalid: boolean; describedBy?: string; onChange(next: ToolSelection | null): void }) {
  const bundles = usePagedOp('bundles.list', { pageSize: 100 });
  const tools = usePagedOp('tools.list', { pageSize: 100 });
  const allTools = useMemo(() => latestVersions(tools.data?.pages.flatMap((p) => p.items) ?? []), [tools.data]);
  const allBundles = useMemo(() => bundles.data?.pages.flatMap((p) => p.items) ?? [], [bundles.data]);
  const choice = selection ?? startChoice();
  const unknownBundles = choice.bundleIds.filter((b) => bundles.data && !allBundles.some((x) => x.id === b));
  const unknownTools = choice.toolIds.filter((t) => tools.data && !tools.hasNextPage && !allTools.some((x) => x.id === t));
  return (
    <fieldset className="agent-tools" data-field="tools" tabIndex={-1} aria-invalid={invalid || undefined} aria-describedby={describedBy}>
      <legend>{f.tools}</legend>
      <p className="help" id={`${ids}-tools-help`}>
        {f.toolsHelp}
      </p>
      <div className="agent-tools-mode">
        <label className="inline-check">
          <input type="radio" name={`${ids}-tools-mode`} data-testid="agent-form-tools-none" checked={selection === null} onChange={() => onChange(null)} />
          {f.toolsNone}
        </label>
        <label className="inline-check">
          <input type="radio" name={`${ids}-tools-mode`} data-testid="agent-form-tools-chosen" checked={selection !== null} onChange={() => onChange(selection ?? startChoice())} />
          {f.toolsChosen}
          {selection !== null && <span className="muted"> · {f.toolsSummary(choice.bundleIds.length, choice.toolIds.length)}</span>}
        </label>
      </div>
      {selection !== null && (
        <div className="agent-tools-list">
          {(tools.isPending || bundles.isPending) && <p className="muted">{f.toolsLoading}</p>}
          <ul className="agent-checks">
            {allBundles
              .filter((b) => allTools.some((t) => t.bundleId === b.id))
              .map((b) => {
                const bundleOn = choice.bundleIds.includes(b.id);
                const inBundle = allTools.filter((t) => t.bundleId === b.id);
                const ticked = inBundle.filter((t) => choice.toolIds.includes(t.id)).length;
                return (
                  <li key={b.id}>
                    <details open={ticked > 0 || undefined}>
                      <summary>
                        <label className="inline-check agent-bundle" onClick={(e) => e.stopPropagation()}>
                          <input type="checkbox" data-testid={`agent-form-bundle-${b.slug}`} checked={bundleOn} onChange={(e) => onChange(toggleBundle(choice, b.id, e.target.checked))} />
                          <strong>{b.displayName}</strong>
                          <span className="muted">({bundleOn ? inBundle.length : ticked}/{inBundle.length})</span>
                        </label>
                      </summary>
                      <ul>
                        {inBundle.map((t) => (
                          <li key={t.id}>
                            <label className="inline-check" title={t.description}>
                              <input
                                type="checkbox"
                                data-testid={`agent-form-tool-${t.slug}`}
                                disabled={bundleOn}
                                checked={bundleOn || choice.toolIds.includes(t.id)}
                                onChange={(e) => onChange(toggleTool(choice, t.id, e.target.checked))}
                              />
                              {t.displayName} <code className="muted">{t.slug}</code>
                            </label>
                          </li>
                        ))}
                      </ul>
                    </details>
                  </li>
                );
              })}
            {unknownBundles.map((b) => (
              <li key={b}>
                <label className="inline-check">
                  <input type="checkbox" checked onChange={() => onChange(toggleBundle(choice, b, false))} />
                  {f.unknownTool(b)}
                </label>
              </li>
            ))}
            {unknownTools.map((t) => (
              <li key={t}>
                <label className="inline-check">
                  <input type="checkbox" checked onChange={() => onChange(toggleTool(choice, t, false))} />
                  {f.unknownTool(t)}
                </label>
              </li>
            ))}
          </ul>
          {tools.hasNextPage && (
            <button type="button" className="link-button" onClick={() => void tools.fetchNextPage()}>
              {f.toolsLoadMore}
            </button>
          )}
        </div>
      )}
    </fieldset>
  );
}
