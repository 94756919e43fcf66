// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { useUi } from '../../stores/ui';
import { callsOf, fakeApi, ok, renderWithApi, sampleTool } from '../../testing/render';
import { Composer } from './Composer';

const weather = sampleTool();

function setup() {
  const fake = fakeApi({
    'chat.send': ok([]),
    'tools.search': ok({ items: [{ tier: 'recent', tool: weather }], recommendedPageSize: 40 }),
  });
  renderWithApi(<Composer />, fake.api);
  return { ...fake, box: screen.getByTestId('chat-composer') as HTMLTextAreaElement };
}

beforeEach(() => {
  // An open conversation: sending goes to it (no conversations.create).
  useUi.getState().selectConversation('conv-1');
});

describe('Composer', () => {
  it('sends the text with Enter to the open conversation, and empties the box', async () => {
    const user = userEvent.setup();
    const { calls, box } = setup();
    await user.type(box, 'What is the weather in Oslo?{Enter}');
    await waitFor(() => expect(callsOf(calls, 'chat.send')).toEqual([{ conversationId: 'conv-1', text: 'What is the weather in Oslo?' }]));
    await waitFor(() => expect(box.value).toBe(''));
  });

  it('makes Shift+Enter a new line, and sends both lines', async () => {
    const user = userEvent.setup();
    const { calls, box } = setup();
    await user.type(box, 'first line{Shift>}{Enter}{/Shift}second line');
    expect(box.value).toBe('first line\nsecond line');
    expect(callsOf(calls, 'chat.send')).toEqual([]);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(callsOf(calls, 'chat.send')).toEqual([{ conversationId: 'conv-1', text: 'first line\nsecond line' }]));
  });

  it('does not send an empty message', async () => {
    const user = userEvent.setup();
    const { calls, box } = setup();
    await user.type(box, '   {Enter}');
    expect(callsOf(calls, 'chat.send')).toEqual([]);
    expect((screen.getByTestId('chat-send') as HTMLButtonElement).disabled).toBe(true);
  });

  it('opens the palette on +, listing the tools it finds, and closes it with Escape, keeping the text', async () => {
    const user = userEvent.setup();
    const { calls, box } = setup();
    await user.type(box, 'look up +');
    expect(screen.getByTestId('palette')).toBeTruthy();
    expect(box.getAttribute('aria-controls')).toBe(screen.getByRole('listbox').id);
    const option = await screen.findByTestId('palette-item-weather');
    expect(option.getAttribute('role')).toBe('option');
    expect(callsOf(calls, 'tools.search')[0]).toMatchObject({ q: '' });

    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('palette')).toBeNull();
    expect(box.getAttribute('aria-controls')).toBeNull();
    expect(box.value).toBe('look up +');
    // Enter now sends the text as it is: the palette no longer takes it.
    await user.keyboard('{Enter}');
    await waitFor(() => expect(callsOf(calls, 'chat.send')).toEqual([{ conversationId: 'conv-1', text: 'look up +' }]));
  });

  it('attaches a text file to the message, and says in place why another cannot be', async () => {
    const user = userEvent.setup();
    setup();
    const input = screen.getByTestId('composer-file-input') as HTMLInputElement;
    await user.upload(input, [new File(['- buy milk\n'], 'todo.md', { type: 'text/markdown' }), new File([], 'empty.txt', { type: 'text/plain' })]);

    expect(await screen.findByRole('button', { name: 'Remove todo.md' })).toBeTruthy();
    const errors = screen.getByTestId('composer-attach-errors');
    expect(errors.getAttribute('role')).toBe('alert');
    expect(errors.className).toContain('field-error');
    expect([...errors.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['empty.txt is empty: attach a file with something in it.']);
  });
});
