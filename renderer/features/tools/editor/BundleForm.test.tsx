// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Bundle } from '../../../../shared/model/bundle';
import { callsOf, fakeApi, ok, renderWithApi, type OpHandlers } from '../../../testing/render';
import { BundleForm } from './BundleForm';

const demo: Bundle = {
  id: '0190a000-0000-7000-8000-0000000000b1',
  slug: 'demo',
  displayName: 'Demo',
  description: 'Tools to try things with.',
  isEnabled: true,
  isBuiltIn: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  modifiedAt: '2026-01-01T00:00:00.000Z',
};

function setup(handlers: OpHandlers, bundle?: Bundle) {
  const fake = fakeApi(handlers);
  const onSaved = vi.fn();
  const onDirtyChange = vi.fn();
  const view = renderWithApi(<BundleForm bundle={bundle} onSaved={onSaved} onClose={vi.fn()} onDirtyChange={onDirtyChange} />, fake.api);
  const rerender = (next: Bundle) => view.rerender(<BundleForm bundle={next} onSaved={onSaved} onClose={vi.fn()} onDirtyChange={onDirtyChange} />);
  return { ...fake, onSaved, onDirtyChange, rerender };
}

describe('BundleForm', () => {
  it('creates a bundle once its slug is right, checking the slug as it is typed', async () => {
    const user = userEvent.setup();
    const { calls, onSaved } = setup({ 'bundles.put': (input) => ok({ ...demo, id: input.bundleId, ...input.body }) });
    const slug = screen.getByTestId('bundle-form-slug');
    expect(document.activeElement).toBe(slug);
    expect(screen.queryByTestId('field-error-bundle-slug')).toBeNull();
    await user.type(slug, 'my_tools');
    expect(screen.getByTestId('field-error-bundle-slug').textContent).toContain("slug may contain letters, digits and '-' only");
    expect(slug.getAttribute('aria-invalid')).toBe('true');
    await user.clear(slug);
    await user.type(slug, 'my-tools');
    await user.type(screen.getByTestId('bundle-form-name'), 'My tools');
    await user.click(screen.getByTestId('bundle-form-save'));

    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const put = callsOf(calls, 'bundles.put')[0]!;
    expect(put.body).toEqual({ slug: 'my-tools', displayName: 'My tools', description: '', isEnabled: true });
    expect(put.bundleId).toMatch(/^[0-9a-f-]{36}$/);
    expect(onSaved.mock.calls[0]![1]).toBe('created');
  });

  it('refuses to save with an empty slug: the error shows, the slug takes the focus, nothing is sent', async () => {
    const user = userEvent.setup();
    const { calls } = setup({});
    await user.type(screen.getByTestId('bundle-form-name'), 'Nameless');
    await user.keyboard('{Control>}s{/Control}');
    await waitFor(() => expect(screen.getByTestId('field-error-bundle-slug')).toBeTruthy());
    expect(document.activeElement).toBe(screen.getByTestId('bundle-form-slug'));
    expect(callsOf(calls, 'bundles.put')).toEqual([]);
  });

  it('puts the server’s refusal on its field until that field is edited', async () => {
    const user = userEvent.setup();
    setup({ 'bundles.put': { ok: false, error: { code: 'VALIDATION_FAILED', message: 'Refused.', details: { issues: [{ path: 'body.slug', message: 'a bundle with this slug exists' }] } } } }, demo);
    await user.type(screen.getByTestId('bundle-form-name'), ' 2');
    await user.click(screen.getByTestId('bundle-form-save'));
    expect((await screen.findByTestId('field-error-bundle-slug')).textContent).toBe('a bundle with this slug exists');
    await user.type(screen.getByTestId('bundle-form-slug'), '-2');
    expect(screen.queryByTestId('field-error-bundle-slug')).toBeNull();
  });

  it('follows the bundle when it changes elsewhere, unless it is being edited', async () => {
    const user = userEvent.setup();
    const { rerender, onDirtyChange } = setup({}, demo);
    rerender({ ...demo, description: 'Changed elsewhere.' });
    expect((screen.getByTestId('bundle-form-description') as HTMLTextAreaElement).value).toBe('Changed elsewhere.');
    await user.type(screen.getByTestId('bundle-form-description'), ' Mine.');
    expect(onDirtyChange).toHaveBeenLastCalledWith(true);
    rerender({ ...demo, description: 'Changed again.' });
    expect((screen.getByTestId('bundle-form-description') as HTMLTextAreaElement).value).toBe('Changed elsewhere. Mine.');
  });

  it('asks in place before deleting; Escape keeps it and gives the focus back to Delete', async () => {
    const user = userEvent.setup();
    const { calls, onSaved } = setup({ 'bundles.delete': () => ok({ ...demo, softDeletedAt: '2026-01-02T00:00:00.000Z' }) }, demo);
    await user.click(screen.getByTestId('bundle-delete'));
    expect(screen.getByRole('alertdialog').textContent).toContain('Delete Demo? It stays listed as deleted');
    expect(document.activeElement).toBe(screen.getByTestId('bundle-delete-confirm'));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('bundle-delete'));

    await user.click(screen.getByTestId('bundle-delete'));
    await user.click(screen.getByTestId('bundle-delete-confirm'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ softDeletedAt: '2026-01-02T00:00:00.000Z' }), 'deleted'));
    expect(callsOf(calls, 'bundles.delete')).toEqual([{ bundleId: demo.id }]);
  });

  it('shows a failed delete above the actions', async () => {
    const user = userEvent.setup();
    setup({ 'bundles.delete': { ok: false, error: { code: 'UNAVAILABLE', message: 'The data folder is read-only.' } } }, demo);
    await user.click(screen.getByTestId('bundle-delete'));
    await user.click(screen.getByTestId('bundle-delete-confirm'));
    expect((await screen.findByTestId('bundle-form-error')).textContent).toBe('The data folder is read-only.');
  });
});
