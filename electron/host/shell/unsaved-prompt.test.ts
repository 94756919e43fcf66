import { describe, expect, it } from 'vitest';
import { mayUnload, UNSAVED_DISCARD, UNSAVED_KEEP, UNSAVED_PROMPT } from './unsaved-prompt';

describe('the question asked when the window closes with unsaved changes', () => {
  it('keeps editing by default and on Escape, and lets the window go only on Discard', () => {
    expect(UNSAVED_PROMPT.buttons![UNSAVED_KEEP]).toBe('Keep editing');
    expect(UNSAVED_PROMPT.buttons![UNSAVED_DISCARD]).toBe('Discard');
    expect(UNSAVED_PROMPT.defaultId).toBe(UNSAVED_KEEP);
    expect(UNSAVED_PROMPT.cancelId).toBe(UNSAVED_KEEP);
    expect(mayUnload(UNSAVED_KEEP)).toBe(false);
    expect(mayUnload(UNSAVED_DISCARD)).toBe(true);
  });
});
