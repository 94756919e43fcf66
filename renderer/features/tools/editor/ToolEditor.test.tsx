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

function setup(put: (input: OpInput<'tools.put'>) => Result<ToolView>) {
  const fake = fakeApi({ 'tools.put': put });
  const onSaved = vi.fn();
  const mode: ToolEditorMode = { kind: 'new', bundleId: tool.bundleId, from: tool };
  renderWithApi(<ToolEditor mode={mode} onSaved={onSaved} onNewVersion={vi.fn()} onDiscard={vi.fn()} onDirtyChange={vi.fn()} />, fake.api);
  return { ...fake, onSaved };
}

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
});
