// @vitest-environment happy-dom
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, ok, renderWithApi } from '../../../testing/render';
import { emptyDraft, newAnswerCheck, newResult } from './eval-case-form';
import { EvalCaseEditor } from './EvalCaseEditor';

describe('the eval case editor', () => {
  it('names each canned result’s choice of a value or an error as a group of its own', () => {
    const draft = { ...emptyDraft('forecast'), results: [newResult('forecast'), { ...newResult('alerts'), kind: 'error' as const }] };
    renderWithApi(<EvalCaseEditor bundleId="b1" initial={draft} onSaved={vi.fn()} onCancel={vi.fn()} />, fakeApi({ 'providers.list': ok([]) }).api);
    const first = screen.getByRole('radiogroup', { name: 'What canned result 1 answers' });
    const second = screen.getByRole('radiogroup', { name: 'What canned result 2 answers' });
    expect((within(first).getByRole('radio', { name: 'A value' }) as HTMLInputElement).checked).toBe(true);
    expect((within(second).getByRole('radio', { name: 'An error' }) as HTMLInputElement).checked).toBe(true);
  });

  it('tells two checks of one kind apart by their remove buttons', () => {
    const contains = { ...newAnswerCheck('contains') };
    const draft = { ...emptyDraft('forecast'), answer: [contains, newAnswerCheck('contains')] };
    renderWithApi(<EvalCaseEditor bundleId="b1" initial={draft} onSaved={vi.fn()} onCancel={vi.fn()} />, fakeApi({ 'providers.list': ok([]) }).api);
    expect(screen.getAllByRole('button', { name: /^Remove the check .* \([12]\)$/ }).map((b) => b.getAttribute('aria-label'))).toEqual([
      expect.stringMatching(/\(1\)$/),
      expect.stringMatching(/\(2\)$/),
    ]);
  });
});
