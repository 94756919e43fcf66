/**
 * The provider form's draft: what is typed, the presets that fill it in, and the input
 * 'providers.save' gets (the key only when typed, null when it is to be removed).
 */
import { ProviderInputSchema, type Provider, type ProviderInput, type ProviderKind } from '../../../shared/model/provider';

export interface ProviderPreset {
  id: string;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  needsKey: boolean;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'ollama', name: 'Ollama', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', needsKey: false },
  { id: 'lmstudio', name: 'LM Studio', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1', needsKey: false },
  { id: 'openai', name: 'OpenAI', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', needsKey: true },
  { id: 'openrouter', name: 'OpenRouter', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', needsKey: true },
  { id: 'anthropic', name: 'Anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', needsKey: true },
];

/** What the base URL field shows when empty. */
export function urlPlaceholder(kind: ProviderKind): string {
  return kind === 'anthropic' ? 'https://api.anthropic.com' : 'http://127.0.0.1:11434/v1';
}

export interface ProviderDraft {
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  /** A new key; empty keeps the stored one (or stores none). */
  key: string;
  /** Remove the stored key on save. */
  removeKey: boolean;
}

export function emptyProviderDraft(): ProviderDraft {
  return { name: '', kind: 'openai-compatible', baseUrl: '', key: '', removeKey: false };
}

export function draftFromProvider(p: Provider): ProviderDraft {
  return { name: p.name, kind: p.kind, baseUrl: p.baseUrl, key: '', removeKey: false };
}

/** A preset fills in the name (when empty or another preset's), the kind and the URL. */
export function applyPreset(d: ProviderDraft, preset: ProviderPreset): ProviderDraft {
  const namedByPreset = d.name.trim() === '' || PROVIDER_PRESETS.some((p) => p.name === d.name.trim());
  return { ...d, name: namedByPreset ? preset.name : d.name, kind: preset.kind, baseUrl: preset.baseUrl };
}

export type ProviderField = 'name' | 'kind' | 'baseUrl' | 'apiKey';

export interface BuiltProvider {
  input: ProviderInput;
  errors: Partial<Record<ProviderField, string>>;
}

export function buildProviderInput(d: ProviderDraft): BuiltProvider {
  const input: ProviderInput = { name: d.name.trim(), kind: d.kind, baseUrl: d.baseUrl.trim() };
  if (d.key.trim() !== '') input.apiKey = d.key.trim();
  else if (d.removeKey) input.apiKey = null;
  const errors: BuiltProvider['errors'] = {};
  const r = ProviderInputSchema.safeParse(input);
  if (!r.success) {
    for (const issue of r.error.issues) {
      const field = String(issue.path[0] ?? 'name') as ProviderField;
      errors[field] ??= issue.message;
    }
  }
  if (!errors.baseUrl && input.baseUrl !== '' && !/^https?:\/\//i.test(input.baseUrl)) errors.baseUrl = 'the URL must start with http:// or https://';
  return { input, errors };
}

/** The server's refusal, on the field it names (details.field or issues[].path), else for the form. */
export function providerServerError(details: unknown): ProviderField | null {
  const d = (details ?? {}) as { field?: unknown; issues?: { path?: unknown }[] };
  const where = typeof d.field === 'string' ? d.field : Array.isArray(d.issues) && typeof d.issues[0]?.path === 'string' ? d.issues[0].path : '';
  const m = /(name|kind|baseUrl|apiKey)/.exec(where);
  return m ? (m[1] as ProviderField) : null;
}
