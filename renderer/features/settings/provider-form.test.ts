import { describe, expect, it } from 'vitest';
import { applyPreset, buildProviderInput, draftFromProvider, emptyProviderDraft, PROVIDER_PRESETS, providerServerError, urlPlaceholder } from './provider-form';

const preset = (id: string) => PROVIDER_PRESETS.find((p) => p.id === id)!;

describe('provider form', () => {
  it('fills in a preset, keeping a name the user typed', () => {
    let d = applyPreset(emptyProviderDraft(), preset('ollama'));
    expect(d).toMatchObject({ name: 'Ollama', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' });
    d = applyPreset(d, preset('anthropic'));
    expect(d).toMatchObject({ name: 'Anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com' });
    d = applyPreset({ ...d, name: 'My work account' }, preset('openai'));
    expect(d.name).toBe('My work account');
    expect(urlPlaceholder('anthropic')).toBe('https://api.anthropic.com');
  });

  it('sends a key only when typed, null to remove it, nothing to keep it', () => {
    const base = { ...emptyProviderDraft(), name: ' Local ', baseUrl: 'http://127.0.0.1:1234/v1 ' };
    expect(buildProviderInput(base).input).toEqual({ name: 'Local', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' });
    expect(buildProviderInput({ ...base, key: ' sk-1 ' }).input.apiKey).toBe('sk-1');
    expect(buildProviderInput({ ...base, removeKey: true }).input.apiKey).toBeNull();
    // A new key typed wins over "remove".
    expect(buildProviderInput({ ...base, removeKey: true, key: 'sk-2' }).input.apiKey).toBe('sk-2');
    expect(buildProviderInput(base).errors).toEqual({});
  });

  it('names the field at fault', () => {
    expect(buildProviderInput(emptyProviderDraft()).errors).toMatchObject({ name: 'a name is required', baseUrl: expect.any(String) });
    expect(buildProviderInput({ ...emptyProviderDraft(), name: 'x', baseUrl: 'ftp://host/v1' }).errors.baseUrl).toMatch(/http/);
    expect(providerServerError({ field: 'provider.baseUrl' })).toBe('baseUrl');
    expect(providerServerError({ issues: [{ path: 'provider.name' }] })).toBe('name');
    expect(providerServerError(undefined)).toBeNull();
  });

  it('never fills the key from a saved provider', () => {
    const d = draftFromProvider({ id: 'p', name: 'OpenAI', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', hasKey: true, models: [], createdAt: '', updatedAt: '' });
    expect(d.key).toBe('');
    expect(d.removeKey).toBe(false);
  });
});
