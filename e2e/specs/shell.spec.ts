import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

test.describe('the app shell', () => {
  test('every screen renders its empty state from the sidebar', async ({ appPage }) => {
    const shell = new AppShell(appPage);
    await expect(appPage.getByTestId('screen-chat')).toBeVisible();
    // The worker's host is shared: another spec may have made conversations before this one.
    await expect(appPage.getByTestId('chat-empty').or(appPage.getByTestId('conversation-item').first())).toBeVisible();
    if (await appPage.getByTestId('chat-empty').count()) await expect(appPage.getByTestId('chat-empty')).toContainText('No conversations yet');
    await expect(appPage.getByTestId('connection-banner')).toHaveCount(0);
    await screenshot(appPage, 'chat');

    await shell.open('tools');
    await expect(appPage.getByTestId('bundle-list')).toBeVisible();
    await screenshot(appPage, 'tools');

    await shell.open('inspect');
    // With no conversation open the Buffers tab says how to get one; with one, it lists its buffers.
    await expect(appPage.getByRole('tab', { name: 'Buffers' })).toHaveAttribute('aria-selected', 'true');
    await expect(appPage.getByRole('tabpanel')).toBeVisible();
    await appPage.getByRole('tab', { name: 'Timeline' }).click();
    await expect(appPage.getByTestId('inspect-empty-timeline').or(appPage.getByTestId('timeline'))).toBeVisible();
    await screenshot(appPage, 'inspect');

    await shell.open('settings');
    await expect(appPage.getByTestId('about-version')).toHaveText(/\d+\.\d+\.\d+/);
    await screenshot(appPage, 'settings');
    expect(shell.consoleErrors).toEqual([]);
  });

  test('screens are reachable by keyboard alone', async ({ appPage }) => {
    await appPage.keyboard.press('Alt+2');
    await expect(appPage.getByTestId('screen-tools')).toBeVisible();
    await appPage.keyboard.press('Alt+4');
    await expect(appPage.getByTestId('screen-settings')).toBeVisible();

    // Arrow keys move along the sidebar; Enter opens the focused screen.
    await appPage.getByTestId('nav-chat').focus();
    await appPage.keyboard.press('ArrowDown');
    await appPage.keyboard.press('ArrowDown');
    await expect(appPage.getByTestId('nav-inspect')).toBeFocused();
    await appPage.keyboard.press('Enter');
    await expect(appPage.getByTestId('screen-inspect')).toBeVisible();
    await expect(appPage.getByTestId('nav-inspect')).toHaveAttribute('aria-current', 'page');

    // Reloading keeps the screen (it lives in the URL).
    await appPage.reload();
    await expect(appPage.getByTestId('screen-inspect')).toBeVisible();
  });

  test('settings are saved through the contract and survive a reload', async ({ appPage }) => {
    const shell = new AppShell(appPage);
    await shell.open('settings');
    await appPage.getByTestId('settings-theme').selectOption('dark');
    await appPage.getByTestId('settings-allowed-hosts').fill('api.example.com\n*.example.org:8443');
    await appPage.getByTestId('settings-save').click();
    await expect(appPage.getByTestId('settings-saved')).toBeVisible();
    await expect.poll(() => shell.theme()).toBe('dark');
    await screenshot(appPage, 'settings-dark');

    await appPage.reload();
    await expect(appPage.getByTestId('screen-settings')).toBeVisible();
    await expect.poll(() => shell.theme()).toBe('dark');
    await expect(appPage.getByTestId('settings-allowed-hosts')).toHaveValue('api.example.com\n*.example.org:8443');

    // The delegation depth: out of range is refused on its field (the browser's own check
    // first: nothing is sent); in range is kept.
    const depth = appPage.getByTestId('settings-delegation-depth');
    await depth.fill('12');
    // The field says what to type as soon as it is edited.
    await expect(appPage.getByTestId('settings-delegation-depth-error')).toHaveText('Enter a number from 1 to 10: got 12.');
    await expect(depth).toHaveAttribute('aria-invalid', 'true');
    await appPage.getByTestId('settings-delegation-depth-error').scrollIntoViewIfNeeded();
    await screenshot(appPage, 'settings-number-out-of-range');
    await appPage.getByTestId('settings-save').click();
    expect(await depth.evaluate((el) => (el as unknown as { validity: { rangeOverflow: boolean } }).validity.rangeOverflow)).toBe(true);
    await depth.fill('2');
    await appPage.getByTestId('settings-save').click();
    await expect(appPage.getByTestId('settings-delegation-depth-error')).toHaveCount(0);
    // Saved before the reload (a reload while the save is on its way would show the old value).
    await expect(appPage.getByTestId('settings-saved')).toBeVisible();
    await appPage.reload();
    await expect(appPage.getByTestId('settings-delegation-depth')).toHaveValue('2');
    await shell.open('chat');
    await screenshot(appPage, 'chat-dark');
    await shell.open('settings');

    // Put the theme back for the other specs' screenshots.
    await appPage.getByTestId('settings-theme').selectOption('light');
    await appPage.getByTestId('settings-save').click();
    await expect.poll(() => shell.theme()).toBe('light');
  });

  test('a bad setting gets a clear error on its field and changes nothing', async ({ appPage }) => {
    const shell = new AppShell(appPage);
    await shell.open('settings');
    await appPage.getByTestId('settings-workspace').fill('relative/folder');
    await appPage.getByTestId('settings-save').click();
    await expect(appPage.getByTestId('settings-workspace-error')).toContainText('must be an absolute path');
    await appPage.reload();
    await expect(appPage.getByTestId('settings-workspace')).toHaveValue('');

    await appPage.getByTestId('settings-allowed-hosts').fill('not a host/with/slashes');
    await appPage.getByTestId('settings-save').click();
    await expect(appPage.getByTestId('settings-hosts-error')).toBeVisible();
    await appPage.reload();
    await expect(appPage.getByTestId('settings-allowed-hosts')).not.toHaveValue(/slashes/);
  });
});
