// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Provider } from '../../../shared/model/provider';
import { callsOf, fakeApi, ok, renderWithApi, type OpHandlers } from '../../testing/render';
import { ProviderForm } from './ProviderForm';

const ollama: Provider = {
  id: 'p1',
  name: 'Ollama',
  kind: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:11434/v1',
  hasKey: true,
  models: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function setup(handlers: OpHandlers, provider: Provider | null = null) {
  const fake = fakeApi(handlers);
  const onSaved = vi.fn();
  renderWithApi(<ProviderForm provider={provider} onSaved={onSaved} onCancel={vi.fn()} />, fake.api);
  return { ...fake, onSaved };
}

describe('ProviderForm', () => {
  it('checks on Save, not before: the first wrong field shows its error and takes the focus; nothing is sent', async () => {
    const user = userEvent.setup();
    const { calls } = setup({});
    const name = screen.getByTestId('provider-form-name');
    expect(document.activeElement).toBe(name);
    await user.type(screen.getByTestId('provider-form-url'), 'my server');
    expect(screen.queryByTestId('provider-form-baseUrl-error')).toBeNull();
    await user.click(screen.getByTestId('provider-form-save'));
    await waitFor(() => expect(screen.getByTestId('provider-form-name-error').textContent).toBe('a name is required'));
    expect(screen.getByTestId('provider-form-baseUrl-error').textContent).toContain('a URL such as http://127.0.0.1:11434/v1');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(name);
    expect(callsOf(calls, 'providers.save')).toEqual([]);
    // After a try, errors follow the typing.
    await user.type(name, 'Local');
    await waitFor(() => expect(screen.queryByTestId('provider-form-name-error')).toBeNull());
    await user.clear(screen.getByTestId('provider-form-url'));
    await user.type(screen.getByTestId('provider-form-url'), 'ftp://example.com');
    await waitFor(() => expect(screen.getByTestId('provider-form-baseUrl-error').textContent).toBe('the URL must start with http:// or https://'));
  });

  it('a preset fills the form, and Save sends the trimmed input with the key typed', async () => {
    const user = userEvent.setup();
    const { calls, onSaved } = setup({ 'providers.save': (input) => ok({ ...ollama, id: 'p2', ...input.provider, hasKey: true }) });
    await user.click(screen.getByTestId('provider-preset-openai'));
    expect((screen.getByTestId('provider-form-name') as HTMLInputElement).value).toBe('OpenAI');
    expect((screen.getByTestId('provider-form-url') as HTMLInputElement).value).toBe('https://api.openai.com/v1');
    await user.type(screen.getByTestId('provider-form-key'), '  sk-test  ');
    await user.click(screen.getByTestId('provider-form-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    expect(callsOf(calls, 'providers.save')[0]).toEqual({ provider: { name: 'OpenAI', kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-test' } });
  });

  it('editing: a stored key can be removed (null), its id goes along', async () => {
    const user = userEvent.setup();
    const { calls, onSaved } = setup({ 'providers.save': () => ok({ ...ollama, hasKey: false }) }, ollama);
    await user.click(screen.getByTestId('provider-remove-key'));
    await user.selectOptions(screen.getByTestId('provider-form-kind'), 'anthropic');
    await user.click(screen.getByTestId('provider-form-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    expect(callsOf(calls, 'providers.save')[0]).toEqual({ id: 'p1', provider: { name: 'Ollama', kind: 'anthropic', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: null } });
  });

  it('the server’s refusal lands on the field it names, until that form is edited again', async () => {
    const user = userEvent.setup();
    setup({ 'providers.save': { ok: false, error: { code: 'VALIDATION_FAILED', message: 'that host is not allowed', details: { field: 'baseUrl' } } } }, ollama);
    await user.click(screen.getByTestId('provider-form-save'));
    await waitFor(() => expect(screen.getByTestId('provider-form-baseUrl-error').textContent).toBe('that host is not allowed'));
    expect(screen.queryByTestId('provider-form-error')).toBeNull();
    await user.type(screen.getByTestId('provider-form-name'), 'x');
    expect(screen.queryByTestId('provider-form-baseUrl-error')).toBeNull();
  });
});
