// @vitest-environment happy-dom
import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../../shared/model/conversation';
import { fakeApi, renderWithApi } from '../../testing/render';
import { ExtractionControl } from './ExtractionControl';

/** The control reads only a conversation's extraction thresholds. */
const withChunks = (maxChunksForFullMode: number) => ({ id: 'conv-1', extraction: { maxChunksForFullMode } }) as unknown as Conversation;
const chunksField = () => screen.getByTestId('extraction-maxChunksForFullMode') as HTMLInputElement;

function setup(conversation: Conversation) {
  const { api } = fakeApi();
  const view = renderWithApi(<ExtractionControl conversation={conversation} />, api);
  return { ...view, user: userEvent.setup() };
}

describe('ExtractionControl', () => {
  it('shows what is saved each time it opens, not what was typed and left', async () => {
    const { user } = setup(withChunks(40));
    await user.click(screen.getByTestId('extraction-button'));
    expect(chunksField().value).toBe('40');
    await user.clear(chunksField());
    await user.type(chunksField(), '7');
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('extraction-maxChunksForFullMode')).toBeNull();
    await user.click(screen.getByTestId('extraction-button'));
    expect(chunksField().value).toBe('40');
  });

  it('keeps what is typed while open when the conversation is read again, and shows the new value at the next opening', async () => {
    const { user, rerender } = setup(withChunks(40));
    await user.click(screen.getByTestId('extraction-button'));
    await user.clear(chunksField());
    await user.type(chunksField(), '7');
    rerender(<ExtractionControl conversation={withChunks(50)} />);
    expect(chunksField().value).toBe('7');
    await user.click(screen.getByTestId('extraction-button'));
    await user.click(screen.getByTestId('extraction-button'));
    expect(chunksField().value).toBe('50');
  });

  it('closes on a press outside it, not on one inside it', async () => {
    const { user } = setup(withChunks(40));
    await user.click(screen.getByTestId('extraction-button'));
    fireEvent.mouseDown(chunksField());
    expect(screen.queryByTestId('extraction-maxChunksForFullMode')).not.toBeNull();
    fireEvent.mouseDown(document.body);
    expect(screen.queryByTestId('extraction-maxChunksForFullMode')).toBeNull();
  });
});
