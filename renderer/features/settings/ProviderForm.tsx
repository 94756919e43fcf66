/**
 * Adding or changing a provider: presets, name, kind, base URL, and a key that goes in and
 * never comes back. The fields are checked when Save is pressed, then again as they are typed;
 * the server's refusal lands on the field it names (else under the form) until the next edit.
 */
import { useEffect, useId } from 'react';
import { useForm, type FieldErrors, type Resolver } from 'react-hook-form';
import type { Provider } from '../../../shared/model/provider';
import { useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { t } from '../../i18n/strings';
import { applyPreset, buildProviderInput, draftFromProvider, emptyProviderDraft, PROVIDER_PRESETS, providerServerError, urlPlaceholder, type ProviderDraft, type ProviderField } from './provider-form';

const m = t.settings.models;

/** The draft's field each checked field is typed in (the key is typed in `key`). */
const DRAFT_FIELD: Record<ProviderField, keyof ProviderDraft> = { name: 'name', kind: 'kind', baseUrl: 'baseUrl', apiKey: 'key' };
/** The order the focus looks for the first wrong field in. */
const ORDER: readonly ProviderField[] = ['name', 'kind', 'baseUrl', 'apiKey'];

/** The form's check: the same rules 'providers.save' applies (provider-form.ts). */
const checkDraft: Resolver<ProviderDraft> = (values) => {
  const { errors } = buildProviderInput(values);
  const found: FieldErrors<ProviderDraft> = {};
  for (const f of ORDER) if (errors[f]) found[DRAFT_FIELD[f]] = { type: 'rules', message: errors[f] };
  return Object.keys(found).length > 0 ? { values: {}, errors: found } : { values, errors: {} };
};

export interface ProviderFormProps {
  provider: Provider | null;
  onSaved(p: Provider): void;
  onCancel(): void;
}

export function ProviderForm({ provider, onSaved, onCancel }: ProviderFormProps) {
  const ids = useId();
  const { register, handleSubmit, watch, getValues, setValue, formState } = useForm<ProviderDraft>({
    defaultValues: provider ? draftFromProvider(provider) : emptyProviderDraft(),
    resolver: checkDraft,
    // Checked on Save, then as typed.
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    shouldFocusError: false,
  });
  const save = useOpMutation('providers.save');
  useEffect(() => document.getElementById(`${ids}-name`)?.focus(), [ids]);

  const kind = watch('kind');
  const removeKey = watch('removeKey');
  const serverField = save.error ? providerServerError(save.error.info.details) : null;
  const errorOf = (f: ProviderField) => (serverField === f ? save.error?.message : formState.errors[DRAFT_FIELD[f]]?.message);
  const formError = save.error && !serverField ? save.error : null;
  /** Any edit takes the server's refusal away. */
  const edited = () => {
    if (save.error) save.reset();
  };
  const set = (patch: Partial<ProviderDraft>) => {
    for (const [k, v] of Object.entries(patch) as [keyof ProviderDraft, ProviderDraft[keyof ProviderDraft]][]) setValue(k, v, { shouldDirty: true, shouldValidate: formState.isSubmitted });
    edited();
  };

  const onSubmit = handleSubmit(
    (draft) => save.mutate({ ...(provider ? { id: provider.id } : {}), provider: buildProviderInput(draft).input }, { onSuccess: onSaved }),
    (errors) => {
      const first = ORDER.find((f) => errors[DRAFT_FIELD[f]]);
      if (first) document.getElementById(`${ids}-${first}`)?.focus();
    },
  );

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
    <form className="provider-form" onSubmit={(e) => void onSubmit(e)} noValidate aria-label={provider ? m.formEdit(provider.name) : m.formAdd} data-testid="provider-form">
      <h3>{provider ? m.formEdit(provider.name) : m.formAdd}</h3>
      <div className="provider-presets" role="group" aria-label={m.presets}>
        <span className="muted">{m.presets}</span>
        {PROVIDER_PRESETS.map((p) => (
          <button key={p.id} type="button" className="chip" data-testid={`provider-preset-${p.id}`} onClick={() => set(applyPreset(getValues(), p))}>
            {p.name}
          </button>
        ))}
      </div>
      <label htmlFor={`${ids}-name`}>{m.name}</label>
      <input {...field('name')} {...register('name', { onChange: edited })} data-testid="provider-form-name" autoComplete="off" />
      {err('name')}
      <label htmlFor={`${ids}-kind`}>{m.kind}</label>
      <select {...field('kind')} {...register('kind', { onChange: edited })} data-testid="provider-form-kind">
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
        placeholder={urlPlaceholder(kind)}
        {...register('baseUrl', { onChange: edited })}
      />
      <datalist id={`${ids}-urls`}>
        {PROVIDER_PRESETS.filter((p) => p.kind === kind).map((p) => (
          <option key={p.id} value={p.baseUrl}>
            {p.name}
          </option>
        ))}
      </datalist>
      <p className="help" id={`${ids}-baseUrl-help`}>
        {m.baseUrlHelp[kind]}
      </p>
      {err('baseUrl')}
      <label htmlFor={`${ids}-apiKey`}>{m.key}</label>
      {provider?.hasKey && (
        <div className="provider-key-stored" data-testid="provider-key-stored">
          {removeKey ? (
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
        {...register('key', {
          onChange: () => {
            if (getValues('removeKey')) setValue('removeKey', false, { shouldDirty: true });
            edited();
          },
        })}
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
