// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OpInput } from '../../../../shared/contract';
import type { Result } from '../../../../shared/errors';
import type { ToolView } from '../../../../shared/model/tool';
import { callsOf, fakeApi, ok, renderWithApi, sampleTool } from '../../../testing/render';
import { ToolEditor, type ToolEditorMode } from './ToolEditor';

// Monaco does not load here: each JSON field is the editor's own plain-text fallback.
vi.mock('../../../editor/monaco-setup', () => {
  throw new Error('Monaco is not loaded in component tests.');
});

const tool = sampleTool();

function setup(put: (input: OpInput<'tools.put'>) => Result<ToolView>, mode: ToolEditorMode = { kind: 'new', bundleId: tool.bundleId, from: tool }) {
  const fake = fakeApi({ 'tools.put': put, 'tools.approval': ok(null) });
  const onSaved = vi.fn();
  const onDirtyChange = vi.fn();
  const onNewVersion = vi.fn();
  renderWithApi(<ToolEditor mode={mode} onSaved={onSaved} onNewVersion={onNewVersion} onDiscard={vi.fn()} onDirtyChange={onDirtyChange} />, fake.api);
  return { ...fake, onSaved, onDirtyChange, onNewVersion };
}

const errorOf = (field: string) => screen.queryByTestId(`field-error-${field}`);

async function argSchemaBox(): Promise<HTMLTextAreaElement> {
  // The fallback replaces the loading placeholder once the import has failed.
  return (await screen.findByRole('textbox', { name: /^Argument schema/ })) as HTMLTextAreaElement;
}

beforeEach(() => {
  const warn = console.warn.bind(console);
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).startsWith('Monaco could not be loaded')) warn(...args);
  });
  return () => vi.restoreAllMocks();
});

describe('ToolEditor', () => {
  it('saves a new version with the edited description through tools.put', async () => {
    const user = userEvent.setup();
    const { calls, onSaved } = setup((input) => ok({ ...tool, version: input.version, description: String(input.body.description) }));
    await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    const description = screen.getByTestId('tool-form-description');
    await user.clear(description);
    await user.type(description, 'Today’s weather, by city.');
    await user.click(screen.getByTestId('tool-form-save'));

    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const puts = callsOf(calls, 'tools.put');
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({ bundleId: tool.bundleId, slug: 'weather', version: '2', body: { description: 'Today’s weather, by city.', displayName: 'Weather', type: 'local' } });
    expect(puts[0]!.body.argSchema).toEqual(tool.argSchema);
    expect(onSaved.mock.calls[0]![0]).toMatchObject({ version: '2', description: 'Today’s weather, by city.' });
  });

  it('shows the server’s refusal on the field it is about, and clears it when that field is edited', async () => {
    const user = userEvent.setup();
    const { onSaved } = setup(() => ({
      ok: false,
      error: { code: 'VALIDATION_FAILED', message: 'The tool is not valid.', details: { issues: [{ path: 'body.description', message: 'Say what the tool does in a sentence.' }] } },
    }));
    await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    await user.click(screen.getByTestId('tool-form-save'));

    const error = await screen.findByTestId('field-error-description');
    expect(error.textContent).toBe('Say what the tool does in a sentence.');
    const description = screen.getByTestId('tool-form-description');
    expect(description.getAttribute('aria-invalid')).toBe('true');
    expect(description.getAttribute('aria-describedby')).toContain(error.id);
    // The first refused field takes the focus.
    expect(document.activeElement).toBe(description);
    expect(onSaved).not.toHaveBeenCalled();

    await user.type(description, ' More.');
    expect(screen.queryByTestId('field-error-description')).toBeNull();
  });

  it('keeps Save off while a JSON field does not parse, says which and why, and sends nothing', async () => {
    const user = userEvent.setup();
    const { calls } = setup((input) => ok({ ...tool, version: input.version }));
    const box = await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    await user.clear(box);
    // user-event reads { and [ as key descriptors: doubled, they are typed as themselves.
    await user.type(box, '{{"type": "object",');

    const save = screen.getByTestId('tool-form-save');
    expect(save.getAttribute('aria-disabled')).toBe('true');
    const why = screen.getByTestId('tool-form-save-blocked');
    expect(why.textContent).toMatch(/^Save is off until this JSON is fixed: Argument schema \(JSON Schema 2020-12\): \S/);
    expect(save.getAttribute('aria-describedby')).toBe(why.id);

    await user.click(save);
    await user.keyboard('{Control>}s{/Control}');
    expect(callsOf(calls, 'tools.put')).toEqual([]);

    // Fixed, Save is on again and saves.
    await user.type(box, ' "properties": {{}}');
    expect(screen.queryByTestId('tool-form-save-blocked')).toBeNull();
    expect(save.getAttribute('aria-disabled')).toBeNull();
    await user.click(save);
    await waitFor(() => expect(callsOf(calls, 'tools.put')).toHaveLength(1));
    expect(callsOf(calls, 'tools.put')[0]!.body.argSchema).toEqual({ type: 'object', properties: {} });
  });

  it('shows a field’s own error once it is edited, not before, and ties it to the field', async () => {
    const user = userEvent.setup();
    setup(() => ok(tool), { kind: 'new', bundleId: tool.bundleId });
    await argSchemaBox();
    const slug = screen.getByTestId('tool-form-slug');
    // An empty new tool says nothing until something is typed.
    expect(errorOf('slug')).toBeNull();
    expect(slug.getAttribute('aria-invalid')).toBe('false');
    expect(document.activeElement).toBe(slug);

    await user.type(slug, 'read_file');
    const error = errorOf('slug')!;
    expect(error.textContent).toContain("slug may contain letters, digits and '-' only");
    expect(slug.getAttribute('aria-invalid')).toBe('true');
    expect(slug.getAttribute('aria-describedby')!.split(' ')).toEqual(['tool-slug-help', error.id]);
    // Other fields, not edited, stay quiet.
    expect(errorOf('displayName')).toBeNull();

    await user.clear(slug);
    await user.type(slug, 'read-file');
    expect(errorOf('slug')).toBeNull();
    expect(slug.getAttribute('aria-describedby')).toBe('tool-slug-help');
  });

  it('refuses a save with problems: every error shows, the status counts them, the first takes the focus, nothing is sent', async () => {
    const user = userEvent.setup();
    const { calls } = setup(() => ok(tool));
    await argSchemaBox();
    // The new version is left empty, and the function id is cleared.
    await user.clear(screen.getByTestId('tool-form-function'));
    await user.keyboard('{Control>}s{/Control}');

    expect(await screen.findByTestId('tool-form-status')).toHaveProperty('textContent', 'Fix the 2 problems marked above before saving.');
    expect(errorOf('version')).not.toBeNull();
    expect(errorOf('functionId')).not.toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('tool-form-version'));
    expect(callsOf(calls, 'tools.put')).toEqual([]);

    // An edit clears the status; fixing each field clears its error.
    await user.type(screen.getByTestId('tool-form-version'), '2');
    expect(screen.queryByTestId('tool-form-status')).toBeNull();
    expect(errorOf('version')).toBeNull();
    expect(errorOf('functionId')).not.toBeNull();
  });

  it('puts a conflict on the version, and clears it when the slug changes too', async () => {
    const user = userEvent.setup();
    setup(() => ({ ok: false, error: { code: 'CONFLICT', message: 'weather@2 exists.', details: { rule: 'exists' } } }));
    await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    await user.click(screen.getByTestId('tool-form-save'));

    expect((await screen.findByTestId('field-error-version')).textContent).toBe('this <slug, version> exists: make a new version');
    expect(document.activeElement).toBe(screen.getByTestId('tool-form-version'));
    await user.type(screen.getByTestId('tool-form-slug'), '-today');
    expect(errorOf('version')).toBeNull();
  });

  it('shows a refusal of no one field above the actions until the next edit', async () => {
    const user = userEvent.setup();
    setup(() => ({ ok: false, error: { code: 'UNAVAILABLE', message: 'The data folder is read-only.' } }));
    await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    await user.click(screen.getByTestId('tool-form-save'));

    const alert = await screen.findByTestId('tool-form-error');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(alert.textContent).toBe('The data folder is read-only.');
    await user.type(screen.getByTestId('tool-form-name'), '!');
    expect(screen.queryByTestId('tool-form-error')).toBeNull();
  });

  it('reports the draft dirty once edited, and clean again when the edit is undone', async () => {
    const user = userEvent.setup();
    const { onDirtyChange } = setup(() => ok(tool), { kind: 'new', bundleId: tool.bundleId, from: tool });
    await argSchemaBox();
    expect(onDirtyChange).toHaveBeenLastCalledWith(false);
    expect(screen.queryByText('unsaved changes')).toBeNull();
    const name = screen.getByTestId('tool-form-name');
    await user.type(name, 'x');
    expect(onDirtyChange).toHaveBeenLastCalledWith(true);
    expect(screen.getByText('unsaved changes')).toBeTruthy();
    await user.type(name, '{Backspace}');
    expect(onDirtyChange).toHaveBeenLastCalledWith(false);
  });

  it('shows a saved version read-only, focused on its heading, with New version and no Save', async () => {
    const user = userEvent.setup();
    const { onNewVersion } = setup(() => ok(tool), { kind: 'view', tool });
    await argSchemaBox();
    const heading = screen.getByRole('heading', { name: 'Weather · version 1' });
    expect(document.activeElement).toBe(heading);
    const slug = screen.getByTestId('tool-form-slug') as HTMLInputElement;
    expect(slug.value).toBe('weather');
    expect(slug.readOnly).toBe(true);
    expect((screen.getByTestId('tool-form-type') as HTMLSelectElement).value).toBe('local');
    expect((screen.getByTestId('tool-form-function') as HTMLInputElement).value).toBe('demo.weather');
    expect(screen.queryByTestId('tool-form-save')).toBeNull();
    await user.click(screen.getByTestId('new-version'));
    expect(onNewVersion).toHaveBeenCalledWith(tool);
  });

  it('keeps the text of the fields another type uses, and sends only this type’s', async () => {
    const user = userEvent.setup();
    const { calls } = setup((input) => ok({ ...tool, version: input.version }));
    await argSchemaBox();
    await user.type(screen.getByTestId('tool-form-version'), '2');
    await user.selectOptions(screen.getByTestId('tool-form-type'), 'http');
    expect(screen.queryByTestId('tool-form-function')).toBeNull();
    const url = screen.getByTestId('tool-form-url');
    await user.clear(url);
    await user.type(url, 'https://api.example.com/weather?city={{city}');
    await user.selectOptions(screen.getByTestId('tool-form-type'), 'local');
    expect((screen.getByTestId('tool-form-function') as HTMLInputElement).value).toBe('demo.weather');
    await user.click(screen.getByTestId('tool-form-save'));

    await waitFor(() => expect(callsOf(calls, 'tools.put')).toHaveLength(1));
    const body = callsOf(calls, 'tools.put')[0]!.body;
    expect(body).toMatchObject({ type: 'local', local: { functionId: 'demo.weather' } });
    expect(body).not.toHaveProperty('http');
  });
});
