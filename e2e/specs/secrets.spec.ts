import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

test.describe('secrets in Settings', () => {
  test('a saved secret is listed with its hosts and its value never comes back', async ({ appPage, host }) => {
    const shell = new AppShell(appPage);
    await shell.open('settings');
    const value = 'sk-live-e2e-0123456789abcdef';
    await appPage.getByTestId('secret-name').fill('WEATHER_KEY');
    await appPage.getByTestId('secret-value').fill(value);
    await appPage.getByTestId('secret-hosts').fill('api.weather.example, *.weather.example');
    await appPage.getByTestId('secret-save').click();
    await expect(appPage.getByTestId('secret-WEATHER_KEY')).toContainText('api.weather.example');
    await expect(appPage.getByTestId('secret-value')).toHaveValue('');
    await screenshot(appPage, 'settings-secrets');

    // After a reload the page knows the name and hosts, never the value.
    await appPage.reload();
    await expect(appPage.getByTestId('secret-WEATHER_KEY')).toBeVisible();
    expect(await appPage.content()).not.toContain(value);
    if (host) {
      const listed = await fetch(`${host.url}rpc/secrets.list`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const text = await listed.text();
      expect(text).toContain('WEATHER_KEY');
      expect(text).not.toContain(value);
    }

    // A bad name gets a clear error and saves nothing (other specs may share this host's secrets).
    const before = await appPage.getByTestId('secret-list').locator('li').count();
    await appPage.getByTestId('secret-name').fill('has spaces');
    await appPage.getByTestId('secret-value').fill('whatever-value');
    await appPage.getByTestId('secret-hosts').fill('api.example.com');
    await appPage.getByTestId('secret-save').click();
    await expect(appPage.getByTestId('secret-error')).toBeVisible();
    await expect(appPage.getByTestId('secret-list').locator('li')).toHaveCount(before);
    await expect(appPage.getByTestId('secret-list')).not.toContainText('has spaces');
    expect(shell.consoleErrors.filter((e) => !e.includes('400'))).toEqual([]);
  });
});
