// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/model/settings';
import { callsOf, fakeApi, ok, renderWithApi } from '../../testing/render';
import { ScriptToolsSection } from './ScriptToolsSection';

const info = { name: 'Toolsmith' as const, version: '1.0.0', host: 'headless' as const, dataDir: '/data', dropInDir: '/data/drop-in', workspaceDir: '/ws', platform: 'linux', nodeVersion: '20', startedAt: '2026-01-01T00:00:00.000Z' };

describe('Settings → Script tools', () => {
  it('saves the default limits as one scriptTools change, and shows the drop-in folder', async () => {
    const user = userEvent.setup();
    let current: Settings = DEFAULT_SETTINGS;
    const fake = fakeApi({
      'settings.get': () => ok(current),
      'settings.set': (patch) => {
        current = { ...current, ...patch } as Settings;
        return ok(current);
      },
      'app.info': ok(info),
    });
    renderWithApi(<ScriptToolsSection />, fake.api);
    const time = (await screen.findByRole('spinbutton', { name: 'Time limit (ms)' })) as HTMLInputElement;
    expect(time.value).toBe('5000');
    expect(screen.getByTestId('script-settings-save').hasAttribute('disabled')).toBe(true);
    await user.clear(time);
    await user.type(time, '1500');
    await user.click(screen.getByTestId('script-settings-save'));
    await waitFor(() => expect(callsOf(fake.calls, 'settings.set')).toHaveLength(1));
    expect(callsOf(fake.calls, 'settings.set')[0]).toEqual({ scriptTools: { timeLimitMs: 1500, memoryLimitMb: 64, maxOutputBytes: 1048576 } });
    expect((await screen.findByTestId('drop-in-path')).textContent).toBe('/data/drop-in');
    expect(screen.getByTestId('drop-in-folder').textContent).toMatch(/NAME\.json .* NAME\.js/);
  });

  it('shows the core’s refusal under the box it is about', async () => {
    const user = userEvent.setup();
    const fake = fakeApi({
      'settings.get': ok(DEFAULT_SETTINGS),
      'settings.set': { ok: false, error: { code: 'VALIDATION_FAILED', message: 'invalid settings', details: { issues: [{ path: 'scriptTools.memoryLimitMb', message: 'Too big: expected number to be <=1024' }] } } },
      'app.info': ok(info),
    });
    renderWithApi(<ScriptToolsSection />, fake.api);
    const memory = await screen.findByRole('spinbutton', { name: 'Memory limit (MB)' });
    await user.clear(memory);
    await user.type(memory, '5000');
    await user.click(screen.getByTestId('script-settings-save'));
    expect((await screen.findByTestId('script-settings-memoryLimitMb-error')).textContent).toBe('Too big: expected number to be <=1024');
    expect(memory.getAttribute('aria-invalid')).toBe('true');
  });
});
