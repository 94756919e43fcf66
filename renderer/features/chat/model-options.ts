/** The models a conversation (or new conversations) can talk to, as options of a select. */
import type { ModelRef, Provider } from '../../../shared/model/provider';

export interface ModelOption {
  value: string;
  ref: ModelRef;
  providerName: string;
  /** The provider or the model is no longer listed. */
  missing?: boolean;
}

export interface ModelGroup {
  providerId: string;
  providerName: string;
  options: ModelOption[];
}

const SEP = '\u0000';

export function modelValue(ref: ModelRef | null | undefined): string {
  return ref ? `${ref.providerId}${SEP}${ref.model}` : '';
}

export function parseModelValue(value: string): ModelRef | null {
  const at = value.indexOf(SEP);
  if (at <= 0 || at === value.length - 1) return null;
  return { providerId: value.slice(0, at), model: value.slice(at + 1) };
}

/** One group per provider with its listed models; a current choice no longer listed is kept in its own group. */
export function modelGroups(providers: readonly Provider[], current?: ModelRef | null): ModelGroup[] {
  const groups: ModelGroup[] = providers
    .filter((p) => p.models.length > 0)
    .map((p) => ({
      providerId: p.id,
      providerName: p.name,
      options: p.models.map((model) => ({ value: modelValue({ providerId: p.id, model }), ref: { providerId: p.id, model }, providerName: p.name })),
    }));
  if (current && !groups.some((g) => g.options.some((o) => o.value === modelValue(current)))) {
    const provider = providers.find((p) => p.id === current.providerId);
    groups.push({
      providerId: current.providerId,
      providerName: provider?.name ?? current.providerId,
      options: [{ value: modelValue(current), ref: current, providerName: provider?.name ?? current.providerId, missing: true }],
    });
  }
  return groups;
}

export function countModels(providers: readonly Provider[]): number {
  return providers.reduce((n, p) => n + p.models.length, 0);
}
