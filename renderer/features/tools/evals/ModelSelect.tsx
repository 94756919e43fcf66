/**
 * A model of the configured providers as a select, grouped by provider (optgroup labels are
 * the providers' names): the run's models, its judge, a judge check's model. `empty`: the
 * label of the "no model" choice, when there is one.
 */
import type { SelectHTMLAttributes } from 'react';
import type { Provider } from '../../../../shared/model/provider';
import { modelValue, parseModel } from './eval-case-form';

export interface ModelSelectProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> {
  providers: readonly Provider[];
  value: string;
  onChange: (value: string) => void;
  empty?: string;
  /** Values not offered (already chosen). */
  exclude?: readonly string[];
  'data-testid'?: string;
}

export function ModelSelect({ providers, value, onChange, empty, exclude = [], ...rest }: ModelSelectProps) {
  // A chosen model no provider offers any more (its provider deleted, the model removed) stays
  // shown as what it is, so it is neither hidden behind another choice nor saved back unseen.
  const known = providers.some((p) => p.models.some((m) => modelValue({ providerId: p.id, model: m }) === value));
  const gone = value && !known ? parseModel(value) : null;
  return (
    <select {...rest} value={value} onChange={(e) => onChange(e.target.value)}>
      {empty !== undefined && <option value="">{empty}</option>}
      {gone && <option value={value}>{notSetUp(providers, gone.providerId, gone.model)}</option>}
      {providers
        .filter((p) => p.models.length > 0)
        .map((p) => (
          <optgroup key={p.id} label={p.name}>
            {p.models.map((m) => {
              const v = modelValue({ providerId: p.id, model: m });
              if (exclude.includes(v) && v !== value) return null;
              return (
                <option key={m} value={v}>
                  {m}
                </option>
              );
            })}
          </optgroup>
        ))}
    </select>
  );
}

/** A model's label: the provider's name and the model. */
export function modelLabel(providers: readonly Provider[], providerId: string, model: string): string {
  return `${providers.find((p) => p.id === providerId)?.name ?? providerId}/${model}`;
}

/** A model's label from its key in a run (providerId/model). */
export function labelOfKey(providers: readonly Provider[], key: string): string {
  const at = key.indexOf('/');
  return at > 0 ? modelLabel(providers, key.slice(0, at), key.slice(at + 1)) : key;
}

/** A model no provider offers: its label, saying so. */
function notSetUp(providers: readonly Provider[], providerId: string, model: string): string {
  return `${modelLabel(providers, providerId, model)} (not set up)`;
}
