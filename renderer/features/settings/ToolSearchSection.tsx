/**
 * Settings → Tool search (docs/tool-search.md): when a model gets tool_search instead of every
 * tool's definition (the mode and its two thresholds), how many tools a search returns, and the
 * tools always given, the budget of definitions a turn's searches load, and semantic search
 * (a provider's embeddings, with a Test). Saved as one `toolSearch` change.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { LOADED_TOKENS_MAX, LOADED_TOKENS_MIN, PROVIDER_MAX_TOOLS, type EmbeddingsTest, type ToolSearchMode } from '../../../shared/model/tool-search';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { Field, NumberField } from '../../components/Field';
import { toolSearchStrings as s } from '../../i18n/tool-search-strings';
import { fromToolSearchDraft, toToolSearchDraft, toolSearchFieldOf, type ToolSearchDraft } from './tool-search-draft';

const MODES: readonly ToolSearchMode[] = ['auto', 'always', 'off'];

export function ToolSearchSection() {
  const settings = useOp('settings.get', {});
  const save = useOpMutation('settings.set');
  const saved = settings.data?.toolSearch;
  const [draft, setDraft] = useState<ToolSearchDraft | null>(null);
  const providers = useOp('providers.list', {});
  const test = useOpMutation('tools.testEmbeddings');
  const [verdict, setVerdict] = useState<EmbeddingsTest | null>(null);

  // The form starts from what is saved, once it is read.
  if (saved && draft === null) setDraft(toToolSearchDraft(saved));

  if (!saved || !draft) return null;
  const dirty = JSON.stringify(toToolSearchDraft(saved)) !== JSON.stringify(draft);
  const issues = (save.error?.info.details as { issues?: { path: string; message: string }[] } | undefined)?.issues ?? [];
  const errorOf = (field: keyof ToolSearchDraft) => issues.find((i) => toolSearchFieldOf(i.path) === field)?.message ?? (issues.length === 0 && save.error && field === 'mode' ? save.error.message : undefined);
  const set = (patch: Partial<ToolSearchDraft>) => setDraft({ ...draft, ...patch });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ toolSearch: fromToolSearchDraft(draft) }, { onSuccess: (next) => setDraft(toToolSearchDraft(next.toolSearch)) });
  };
  // Anthropic serves no embeddings.
  const embedders = (providers.data ?? []).filter((p) => p.kind === 'openai-compatible');
  const chosen = embedders.find((p) => p.id === draft.semanticProviderId);
  const runTest = () => {
    setVerdict(null);
    test.mutate(
      { providerId: draft.semanticProviderId, model: draft.semanticModel.trim() },
      { onSuccess: setVerdict, onError: (e) => setVerdict({ ok: false, message: `${e.info.code}: ${e.message}` }) },
    );
  };
  const numberField = (field: 'maxTools' | 'maxSchemaPercent' | 'results' | 'maxLoadedTokens', label: string, attrs: { min: number; max: number }, help?: string): ReactNode => (
    <NumberField
      className="tool-outputs-field"
      id={`ts-${field}`}
      label={label}
      hint={help}
      error={errorOf(field)}
      announce="alert"
      testId={`tool-search-${field}`}
      step={1}
      {...attrs}
      value={draft[field]}
      disabled={(field === 'maxTools' || field === 'maxSchemaPercent') && draft.mode !== 'auto'}
      onChange={(text) => set({ [field]: text })}
    />
  );

  return (
    <section className="settings-section tool-search" aria-labelledby="tool-search-title" data-testid="settings-tool-search">
      <h2 id="tool-search-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      <form className="settings-form" onSubmit={onSubmit} aria-label={s.title} noValidate>
        <fieldset>
          <legend>{s.mode}</legend>
          <select id="ts-mode" aria-label={s.mode} data-testid="tool-search-mode" value={draft.mode} onChange={(e) => set({ mode: e.target.value as ToolSearchMode })}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {s.modes[m]}
              </option>
            ))}
          </select>
          {errorOf('mode') && (
            <FieldError id="ts-mode-error" role="alert">
              {errorOf('mode')}
            </FieldError>
          )}
          <div className="tool-outputs-row">
            {numberField('maxTools', s.maxTools, { min: 1, max: PROVIDER_MAX_TOOLS })}
            {numberField('maxSchemaPercent', s.maxSchemaPercent, { min: 1, max: 100 }, s.maxSchemaPercentHelp)}
          </div>
          <p className="help">{s.forced(PROVIDER_MAX_TOOLS)}</p>
          {numberField('results', s.results, { min: 1, max: 20 })}
          {numberField('maxLoadedTokens', s.maxLoadedTokens, { min: LOADED_TOKENS_MIN, max: LOADED_TOKENS_MAX }, s.maxLoadedTokensHelp)}
        </fieldset>
        <fieldset data-testid="tool-search-semantic">
          <legend>{s.semantic}</legend>
          <p className="help">{s.semanticHelp}</p>
          <label className="checkbox">
            <input type="checkbox" data-testid="tool-search-semantic-enabled" checked={draft.semanticEnabled} onChange={(e) => set({ semanticEnabled: e.target.checked })} /> {s.semanticEnabled}
          </label>
          <div className="tool-outputs-row">
            <div className="tool-outputs-field">
              <Field id="ts-semantic-provider" label={s.semanticProvider} hint={s.semanticProviderHelp} error={errorOf('semanticProviderId')} announce="alert">
                {(control) => (
                  <select {...control} data-testid="tool-search-semantic-provider" value={draft.semanticProviderId} onChange={(e) => set({ semanticProviderId: e.target.value })}>
                    <option value="">{s.semanticProviderNone}</option>
                    {embedders.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.name} ({p.baseUrl})
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
            <div className="tool-outputs-field">
              <Field id="ts-semantic-model" label={s.semanticModel} hint={s.semanticModelHelp} error={errorOf('semanticModel')} announce="alert">
                {(control) => (
                  <>
                    <input {...control} data-testid="tool-search-semantic-model" list="ts-semantic-models" value={draft.semanticModel} onChange={(e) => set({ semanticModel: e.target.value })} />
                    <datalist id="ts-semantic-models">
                      {(chosen?.models ?? []).map((m) => (
                        <option key={m} value={m} />
                      ))}
                    </datalist>
                  </>
                )}
              </Field>
            </div>
          </div>
          <div className="form-actions">
            <button type="button" data-testid="tool-search-semantic-test" disabled={!draft.semanticProviderId || !draft.semanticModel.trim() || test.isPending} onClick={runTest}>
              {test.isPending ? s.testing : s.test}
            </button>
          </div>
          {verdict && (
            <div className={verdict.ok ? 'verdict ok' : 'verdict error'} role={verdict.ok ? 'status' : 'alert'} data-testid="tool-search-semantic-verdict" data-ok={verdict.ok}>
              <p>
                <span className="visually-hidden">{verdict.ok ? s.testOk : s.testFailed}: </span>
                {verdict.message}
              </p>
            </div>
          )}
        </fieldset>
        <fieldset>
          <legend>{s.pinned}</legend>
          <Field id="ts-pinned" label={s.pinned} labelHidden hint={s.pinnedHelp} error={errorOf('pinned')} announce="alert">
            {(control) => <textarea {...control} data-testid="tool-search-pinned" rows={3} value={draft.pinned} onChange={(e) => set({ pinned: e.target.value })} />}
          </Field>
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!dirty || save.isPending} data-testid="tool-search-save">
            {save.isPending ? s.saving : s.save}
          </button>
          {save.isSuccess && !dirty && (
            <span className="status-ok" role="status" data-testid="tool-search-saved">
              {s.saved}
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
