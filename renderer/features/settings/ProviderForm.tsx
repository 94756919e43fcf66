/** Adding or changing a provider: presets, name, kind, base URL, and a key that goes in and never comes back. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Provider, ProviderKind } from '../../../shared/model/provider';
import { useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { t } from '../../i18n/strings';
import { applyPreset, buildProviderInput, draftFromProvider, emptyProviderDraft, PROVIDER_PRESETS, providerServerError, urlPlaceholder, type ProviderDraft, type ProviderField } from './provider-form';

const m = t.settings.models;

export function ProviderForm({ provider, onSaved, onCancel }: { provider: Provider | null; onSaved(p: Provider): void; onCancel(): void }) {
  const ids = useId();
  const [draft, setDraft] = useState<ProviderDraft>(() => (provider ? draftFromProvider(provider) : emptyProviderDraft()));
  const [submitted, setSubmitted] = useState(false);
  const save = useOpMutation('providers.save');
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);

  const built = buildProviderInput(draft);
  const serverField = save.error ? providerServerError(save.error.info.details) : null;
  const errorOf = (f: ProviderField) => (serverField === f ? save.error?.message : submitted ? built.errors[f] : undefined);
  const formError = save.error && !serverField ? save.error : null;
  const set = (patch: Partial<ProviderDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    if (save.error) save.reset();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(built.errors).length > 0) {
      const first = (['name', 'baseUrl', 'apiKey'] as const).find((f) => built.errors[f]);
      if (first) document.getElementById(`${ids}-${first}`)?.focus();
      return;
    }
    save.mutate({ ...(provider ? { id: provider.id } : {}), provider: built.input }, { onSuccess: onSaved });
  };

  const field = (f: ProviderField, help = false) => ({
    id: `${ids}-${f}`,
    'aria-invalid': !!errorOf(f),
    'aria-describedby': [help ? `${ids}-${f}-help` : '', errorOf(f) ? `${ids}-${f}-error` : ''].filter(Boolean).join(' ') || undefined,
  });
  const err = (f: ProviderField) =>
    errorOf(f) && (
      <FieldError id={`${ids}-${f}-error`} data-testid={`provider-form-${f}-error`}>
        {errorOf(f)}
      </FieldError>
    );

  return (
    <form className="provider-form" onSubmit={onSubmit} noValidate aria-label={provider ? m.formEdit(provider.name) : m.formAdd} data-testid="provider-form">
      <h3>{provider ? m.formEdit(provider.name) : m.formAdd}</h3>
      <div className="provider-presets" role="group" aria-label={m.presets}>
        <span className="muted">{m.presets}</span>
        {PROVIDER_PRESETS.map((p) => (
          <button key={p.id} type="button" className="chip" data-testid={`provider-preset-${p.id}`} onClick={() => set(applyPreset(draft, p))}>
            {p.name}
          </button>
        ))}
      </div>
      <label htmlFor={`${ids}-name`}>{m.name}</label>
      <input ref={nameRef} {...field('name')} data-testid="provider-form-name" value={draft.name} autoComplete="off" onChange={(e) => set({ name: e.target.value })} />
      {err('name')}
      <label htmlFor={`${ids}-kind`}>{m.kind}</label>
      <select {...field('kind')} data-testid="provider-form-kind" value={draft.kind} onChange={(e) => set({ kind: e.target.value as ProviderKind })}>
        {(['openai-compatible', 'anthropic'] as const).map((k) => (
          <option key={k} value={k}>
            {m.kinds[k]}
          </option>
        ))}
      </select>
      <label htmlFor={`${ids}-baseUrl`}>{m.baseUrl}</label>
      <input
        {...field('baseUrl', true)}
        data-testid="provider-form-url"
        type="url"
        inputMode="url"
        spellCheck={false}
        autoComplete="off"
        list={`${ids}-urls`}
        placeholder={urlPlaceholder(draft.kind)}
        value={draft.baseUrl}
        onChange={(e) => set({ baseUrl: e.target.value })}
      />
      <datalist id={`${ids}-urls`}>
        {PROVIDER_PRESETS.filter((p) => p.kind === draft.kind).map((p) => (
          <option key={p.id} value={p.baseUrl}>
            {p.name}
          </option>
        ))}
      </datalist>
      <p className="help" id={`${ids}-baseUrl-help`}>
        {m.baseUrlHelp[draft.kind]}
      </p>
      {err('baseUrl')}
      <label htmlFor={`${ids}-apiKey`}>{m.key}</label>
      {provider?.hasKey && (
        <div className="provider-key-stored" data-testid="provider-key-stored">
          {draft.removeKey ? (
            <>
              <FieldError as="span">{m.keyWillGo}</FieldError>
              <button type="button" className="link-button" onClick={() => set({ removeKey: false })}>
                {m.keepKey}
              </button>
            </>
          ) : (
            <>
              <span className="status-ok">{m.keyIsStored}</span>
              <button type="button" className="link-button" data-testid="provider-remove-key" onClick={() => set({ removeKey: true, key: '' })}>
                {m.removeKey}
              </button>
            </>
          )}
        </div>
      )}
      <input
        {...field('apiKey', true)}
        data-testid="provider-form-key"
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        value={draft.key}
        onChange={(e) => set({ key: e.target.value, removeKey: false })}
      />
      <p className="help" id={`${ids}-apiKey-help`}>
        {provider?.hasKey ? m.keyNew : m.keyHelp}
      </p>
      {err('apiKey')}
      {formError && (
        <FieldError role="alert" data-testid="provider-form-error">
          <code className="error-code">{formError.info.code}</code> {formError.message}
        </FieldError>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" data-testid="provider-form-save" disabled={save.isPending}>
          {save.isPending ? m.saving : m.save}
        </button>
        <button type="button" data-testid="provider-form-cancel" onClick={onCancel}>
          {m.cancel}
        </button>
      </div>
    </form>
  );
}
