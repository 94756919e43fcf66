// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentProfileView } from '../../../shared/model/agent-profile';
import { callsOf, fakeApi, ok, renderWithApi, type OpHandlers } from '../../testing/render';
import { AgentForm } from './AgentForm';
import { AgentsSection } from './AgentsSection';
import { emptyAgentDraft, type AgentDraft } from './agent-form';
import { useAgentsUi } from './agents-store';

const writer: AgentProfileView = {
  profile: { name: 'writer', displayName: 'Writer', description: 'Writes things.', systemPrompt: 'You write.', delegatesTo: [], canAskMaster: true, maxSteps: 12 },
  builtIn: false,
  enabled: true,
  warnings: [],
};

const lists: OpHandlers = {
  'providers.list': ok([]),
  'bundles.list': ok({ items: [], nextCursor: null }),
  'tools.list': ok({ items: [], nextCursor: null }),
};

function setup(handlers: OpHandlers = {}, draft: AgentDraft = emptyAgentDraft()) {
  const fake = fakeApi({ ...lists, ...handlers });
  const onChange = vi.fn();
  const onSaved = vi.fn();
  renderWithApi(<AgentForm draft={draft} editing={null} views={[writer]} onChange={onChange} onSaved={onSaved} onCancel={vi.fn()} />, fake.api);
  return { ...fake, onChange, onSaved };
}

describe('AgentForm', () => {
  it('refuses a name in use on the name field, gives it the focus, and sends nothing', async () => {
    const user = userEvent.setup();
    const { calls } = setup();
    await user.type(screen.getByTestId('agent-form-name'), 'writer');
    await user.type(screen.getByTestId('agent-form-description'), 'Another one.');
    await user.click(screen.getByTestId('agent-form-save'));
    await waitFor(() => expect(screen.getByTestId('agent-form-name-error').textContent).toContain("an agent named 'writer' exists already"));
    expect(document.activeElement).toBe(screen.getByTestId('agent-form-name'));
    expect(screen.getByTestId('agent-form-name').getAttribute('aria-invalid')).toBe('true');
    expect(callsOf(calls, 'agents.put')).toEqual([]);
    // A free name takes the error away as it is typed.
    await user.type(screen.getByTestId('agent-form-name'), '_two');
    await waitFor(() => expect(screen.queryByTestId('agent-form-name-error')).toBeNull());
  });

  it('sends the profile as typed (trimmed, the steps a number) and reports every change to keep it', async () => {
    const user = userEvent.setup();
    const { calls, onChange, onSaved } = setup({ 'agents.put': (input) => ok({ ...writer, profile: input.profile as AgentProfileView['profile'] }) });
    await user.type(screen.getByTestId('agent-form-name'), 'notes_keeper');
    await user.type(screen.getByTestId('agent-form-description'), '  Keeps notes.  ');
    await user.click(screen.getByTestId('agent-form-canAskMaster'));
    await user.clear(screen.getByTestId('agent-form-maxSteps'));
    await user.type(screen.getByTestId('agent-form-maxSteps'), '8');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ name: 'notes_keeper', description: '  Keeps notes.  ', canAskMaster: false, maxSteps: '8' }));
    await user.click(screen.getByTestId('agent-form-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    expect(callsOf(calls, 'agents.put')[0]).toEqual({ profile: { name: 'notes_keeper', description: 'Keeps notes.', systemPrompt: '', delegatesTo: [], canAskMaster: false, maxSteps: 8 } });
  });

  it('puts the core’s refusal on its field, with the focus, until that field is typed into', async () => {
    const user = userEvent.setup();
    setup({
      'agents.put': { ok: false, error: { code: 'VALIDATION_FAILED', message: 'the profile is not valid', details: { issues: [{ path: ['profile', 'maxSteps'], message: 'Expected number, received null' }] } } },
    });
    await user.type(screen.getByTestId('agent-form-name'), 'helper');
    await user.type(screen.getByTestId('agent-form-description'), 'Helps.');
    await user.clear(screen.getByTestId('agent-form-maxSteps'));
    await user.type(screen.getByTestId('agent-form-maxSteps'), 'ten');
    await user.click(screen.getByTestId('agent-form-save'));
    await waitFor(() => expect(screen.getByTestId('agent-form-maxSteps-error').textContent).toBe('“ten” is not a whole number: type one from 1 to 200'));
    expect(document.activeElement).toBe(screen.getByTestId('agent-form-maxSteps'));
    expect(screen.queryByTestId('agent-form-error')).toBeNull();
    await user.type(screen.getByTestId('agent-form-description'), ' More.');
    expect(screen.getByTestId('agent-form-maxSteps-error')).toBeTruthy();
    await user.type(screen.getByTestId('agent-form-maxSteps'), '0');
    expect(screen.queryByTestId('agent-form-maxSteps-error')).toBeNull();
  });
});

describe('AgentsSection: leaving a changed form', () => {
  beforeEach(() => useAgentsUi.setState({ editing: null, notice: null, focusAfter: null }));

  function section() {
    const fake = fakeApi({ ...lists, 'agents.list': ok([writer]) });
    renderWithApi(<AgentsSection />, fake.api);
  }

  it('asks in the app’s dialog; Keep editing keeps what was typed, Discard closes the form', async () => {
    const user = userEvent.setup();
    section();
    await user.click(await screen.findByTestId('agent-add'));
    // Nothing typed: Cancel closes at once.
    await user.click(screen.getByTestId('agent-form-cancel'));
    expect(screen.queryByTestId('agent-form')).toBeNull();

    await user.click(screen.getByTestId('agent-add'));
    await user.type(screen.getByTestId('agent-form-description'), 'Half typed.');
    await user.click(screen.getByTestId('agent-form-cancel'));
    const dialog = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' });
    expect(dialog.textContent).toContain('The changes typed in the agent form are lost.');
    expect(document.activeElement).toBe(screen.getByTestId('unsaved-keep'));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect((screen.getByTestId('agent-form-description') as HTMLTextAreaElement).value).toBe('Half typed.');

    // Opening another agent is the same move: asked, then made on Discard.
    await user.click(screen.getByTestId('agent-edit'));
    await user.click(screen.getByTestId('unsaved-discard'));
    await waitFor(() => expect((screen.getByTestId('agent-form-name') as HTMLInputElement).value).toBe('writer'));
    expect(screen.getAllByTestId('agent-form')).toHaveLength(1);
  });
});
