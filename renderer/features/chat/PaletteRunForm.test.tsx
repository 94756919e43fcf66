// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseDirectives } from '../../../shared/directives/parser';
import type { Bundle } from '../../../shared/model/bundle';
import type { Message } from '../../../shared/model/conversation';
import { useUi } from '../../stores/ui';
import { callsOf, fakeApi, ok, renderWithApi, sampleTool, type OpHandlers } from '../../testing/render';
import { PaletteRunForm } from './PaletteRunForm';

const bundle = { id: '0190a000-0000-7000-8000-0000000000b1', slug: 'demo', displayName: 'Demo' } as Bundle;
const card = { id: 'm1', role: 'tool' } as unknown as Message;
const handlers: OpHandlers = {
  'bundles.get': ok(bundle),
  'tools.checkArgs': ok({ issues: [] }),
  'chat.runTool': ok(card),
};

function setup(opts: { tools?: string; tool?: ReturnType<typeof sampleTool> } = {}) {
  const fake = fakeApi(handlers);
  const onRan = vi.fn();
  const props = { tool: opts.tool ?? sampleTool(), onRan, onClose: vi.fn() };
  const view = renderWithApi(<PaletteRunForm {...props} composerTools={parseDirectives(opts.tools ?? 'hello').tools} />, fake.api);
  const withTools = (text: string) => view.rerender(<PaletteRunForm {...props} composerTools={parseDirectives(text).tools} />);
  return { ...fake, onRan, withTools };
}

const output = () => screen.getByTestId('palette-output') as HTMLInputElement;

describe('PaletteRunForm', () => {
  beforeEach(() => useUi.setState({ conversationId: 'c1' }));

  it('checks the output as it is typed: the error shows and Run is off until it is a destination', async () => {
    const user = userEvent.setup();
    setup();
    await user.type(output(), 'nowhere:at-all');
    await waitFor(() => expect(screen.getByRole('alert').textContent).not.toBe(''));
    expect(output().getAttribute('aria-invalid')).toBe('true');
    expect((screen.getByTestId('palette-run') as HTMLButtonElement).disabled).toBe(true);
    await user.clear(output());
    await user.type(output(), 'variable:notes');
    await waitFor(() => expect((screen.getByTestId('palette-run') as HTMLButtonElement).disabled).toBe(false));
    expect(output().getAttribute('aria-invalid')).toBe('false');
  });

  it('runs with the arguments, output and write mode typed', async () => {
    const user = userEvent.setup();
    const { calls, onRan } = setup();
    await user.type(screen.getByRole('textbox', { name: /city/i }), 'Paris');
    await user.type(output(), 'variable:notes');
    await user.selectOptions(screen.getByTestId('palette-write-mode'), 'replace');
    await user.click(screen.getByTestId('palette-run'));
    await waitFor(() => expect(onRan).toHaveBeenCalledWith(card));
    expect(callsOf(calls, 'chat.runTool')[0]).toMatchObject({ conversationId: 'c1', slug: 'weather', args: { city: 'Paris' }, output: 'variable:notes', writeMode: 'replace' });
  });

  it('sends no output (the chat) when the box is empty, and an argument named “target” as typed', async () => {
    const user = userEvent.setup();
    const tool = sampleTool({ argSchema: { type: 'object', properties: { target: { type: 'string' } } } });
    const { calls, onRan } = setup({ tool });
    await user.type(screen.getByRole('textbox', { name: /target/i }), 'prod');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(onRan).toHaveBeenCalledTimes(1));
    const sent = callsOf(calls, 'chat.runTool')[0]!;
    expect(sent.args).toEqual({ target: 'prod' });
    expect('output' in sent).toBe(false);
  });

  it('follows the composer’s @tools lines until the output is edited', async () => {
    const user = userEvent.setup();
    const { withTools } = setup({ tools: '@tools demo/weather(output=variable:own, write-mode=replace), weather(output=variable:bare)\nhi' });
    // The bundle's own line wins once its slug is known.
    await waitFor(() => expect(output().value).toBe('variable:own'));
    expect((screen.getByTestId('palette-write-mode') as HTMLSelectElement).value).toBe('replace');
    withTools('@tools weather(output=variable:later)\nhi');
    await waitFor(() => expect(output().value).toBe('variable:later'));
    expect((screen.getByTestId('palette-write-mode') as HTMLSelectElement).value).toBe('append');
    await user.clear(output());
    await user.type(output(), 'variable:mine');
    withTools('@tools weather(output=variable:again)\nhi');
    expect(output().value).toBe('variable:mine');
  });
});
