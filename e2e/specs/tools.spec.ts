import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

test.describe('the Tools screen', () => {
  test('"Skip to content" moves the focus into the screen and stays on it', async ({ appPage }) => {
    const shell = new AppShell(appPage);
    await shell.open('tools');
    await appPage.locator('.skip-link').focus();
    await appPage.keyboard.press('Enter');
    await expect(appPage.locator('#main')).toBeFocused();
    await expect(appPage.getByTestId('screen-tools')).toBeVisible();
    await expect(appPage).toHaveURL(/#\/tools$/);
  });

  test('lists the built-in bundles and their tools, searches, and toggles bundles and tools', async ({ appPage }) => {
    const shell = new AppShell(appPage);
    await shell.open('tools');
    const bundles = appPage.getByTestId('bundle-list');
    await expect(bundles.getByTestId('bundle-files')).toContainText('built-in');
    await expect(bundles.getByTestId('bundle-text')).toBeVisible();
    await expect(appPage.getByTestId('tool-readfile')).toBeVisible();
    await screenshot(appPage, 'tools-list');

    // Choosing a bundle lists only its tools.
    await bundles.getByTestId('bundle-text').getByRole('button', { name: /Text/ }).click();
    await expect(appPage.getByTestId('tool-jsonpath')).toBeVisible();
    await expect(appPage.getByTestId('tool-readfile')).toHaveCount(0);

    // Search is ranked and global: `+readf` finds readfile first.
    await appPage.getByTestId('tool-search').fill('+readf');
    await expect(appPage.getByTestId('tool-list').locator('li').first()).toHaveAttribute('data-testid', 'tool-readfile');
    await appPage.getByTestId('tool-search').fill('zzqqxx');
    await expect(appPage.getByTestId('tool-list-empty')).toContainText('No tools match');
    await appPage.getByTestId('tool-search').fill('');

    // The tag filter keeps tools that have every tag given.
    await appPage.getByTestId('tag-filter').fill('json');
    await expect(appPage.getByTestId('tool-jsonpath')).toBeVisible();
    await expect(appPage.getByTestId('tool-readfile')).toHaveCount(0);
    await appPage.getByTestId('tag-filter').fill('');

    // Toggle a tool off and on; the state survives a reload (it is stored in the data folder).
    await bundles.getByRole('button', { name: 'All bundles' }).click();
    const sw = appPage.getByTestId('tool-switch-grep');
    await expect(sw).toHaveAttribute('aria-checked', 'true');
    await sw.click();
    await expect(sw).toHaveAttribute('aria-checked', 'false');
    await appPage.reload();
    await expect(appPage.getByTestId('tool-switch-grep')).toHaveAttribute('aria-checked', 'false');

    // Hiding disabled tools hides it; showing them brings it back.
    await appPage.getByTestId('include-disabled').uncheck();
    await expect(appPage.getByTestId('tool-grep')).toHaveCount(0);
    await appPage.getByTestId('include-disabled').check();
    await appPage.getByTestId('tool-switch-grep').click();
    await expect(appPage.getByTestId('tool-switch-grep')).toHaveAttribute('aria-checked', 'true');

    // Switching a bundle off by keyboard disables it; its tools are hidden from a search without disabled ones.
    const bundleSwitch = appPage.getByTestId('bundle-switch-text');
    await bundleSwitch.focus();
    await appPage.keyboard.press('Space');
    await expect(bundleSwitch).toHaveAttribute('aria-checked', 'false');
    await appPage.getByTestId('include-disabled').uncheck();
    await appPage.getByTestId('tool-search').fill('jsonpath');
    await expect(appPage.getByTestId('tool-list-empty')).toBeVisible();
    await appPage.getByTestId('include-disabled').check();
    await expect(appPage.getByTestId('tool-jsonpath')).toBeVisible();
    await screenshot(appPage, 'tools-search');
    await bundleSwitch.click();
    await expect(bundleSwitch).toHaveAttribute('aria-checked', 'true');
    expect(shell.consoleErrors).toEqual([]);
  });

  test('shows a tool written by another program without a reload', async ({ appPage, host }) => {
    test.skip(!host, 'needs the headless host to write through its REST API');
    const shell = new AppShell(appPage);
    await shell.open('tools');
    const bundleId = '019a0000-0000-7000-8000-0000000000e2';
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${host!.url}tools/${path}`, {
        method,
        headers: { Authorization: `Bearer ${host!.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await api('PUT', `bundles/${bundleId}`, { slug: 'live-weather', displayName: 'Live weather', description: 'Forecasts', isEnabled: true })).status).toBe(200);
    const tool = {
      displayName: 'Forecast',
      description: 'Tomorrow’s weather for a city',
      tags: ['weather'],
      type: 'http',
      argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: { type: 'object' },
      http: { method: 'GET', urlTemplate: 'https://api.example.com/forecast?city=${city}' },
      isEnabled: true,
    };
    expect((await api('PUT', `bundles/${bundleId}/tools/live-forecast/version/1`, tool)).status).toBe(201);
    await expect(appPage.getByTestId('bundle-live-weather')).toBeVisible();
    // The data folder may hold hundreds of tools (other specs add them): the bundle's own list shows it.
    await appPage.getByTestId('bundle-live-weather').click();
    await expect(appPage.getByTestId('tool-live-forecast')).toBeVisible();
  });
});
