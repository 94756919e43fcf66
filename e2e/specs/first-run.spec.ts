/**
 * A new user on an empty data folder: the plain address says how to sign in, the chat screen
 * shows the first-run checklist, each item starts with one click, and the allowed-hosts field
 * says in words what is wrong with a pasted URL.
 */
import { startHost, type RunningHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';

let fresh: RunningHost | null = null;

test.afterAll(async () => {
  await fresh?.stop();
});

test('a new user signs in, follows the first-run checklist, and is told how to fix a pasted URL', async ({ host, browser }) => {
  test.skip(!host, 'an empty data folder is a second headless host');
  test.setTimeout(90_000);
  fresh = await startHost();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();

  // The plain address, not the sign-in link: how to sign in, not "this link expired".
  await page.goto(fresh.url);
  await expect(page.getByRole('heading', { name: 'Sign in to Toolsmith' })).toBeVisible();
  await expect(page.getByText('open the sign-in link Toolsmith printed when it started')).toBeVisible();
  await expect(page.getByText('already used or has expired')).toHaveCount(0);

  await page.goto(await fresh.loginUrl());
  await page.waitForSelector('html[data-ready="true"]');
  const checklist = page.getByTestId('first-run');
  await expect(checklist).toBeVisible();
  await expect(checklist.getByTestId('first-run-progress')).toHaveText('0 of 3 done');
  await screenshot(page, 'first-run-1-checklist');

  // Try a built-in tool: one click runs time/now and shows its answer.
  await checklist.getByTestId('first-run-tool').click();
  await expect(checklist.getByTestId('first-run-tool-result')).toContainText(/time\/now answered \d{4}-\d\d-\d\dT/);
  await expect(checklist.getByTestId('first-run-item-tool')).toHaveAttribute('data-done', 'true');
  await expect(checklist.getByTestId('first-run-progress')).toHaveText('1 of 3 done');

  // Allow a host: one click lands in the field, with the cursor in it.
  await checklist.getByTestId('first-run-hosts').click();
  const hosts = page.getByTestId('settings-allowed-hosts');
  await expect(hosts).toBeFocused();
  await page.keyboard.type('https://api.github.com/repos/octocat');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-hosts-error')).toHaveText('Line 1, “https://api.github.com/repos/octocat”: a URL was pasted; keep only the host — write api.github.com.');
  await expect(hosts).toBeFocused();
  await screenshot(page, 'first-run-2-pasted-url');
  await hosts.fill('api.github.com');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-hosts-error')).toHaveCount(0);
  // Saved before the reload (the error goes as soon as the field changes, before the save answers).
  await expect(page.getByTestId('settings-saved')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('settings-allowed-hosts')).toHaveValue('api.github.com');

  // Back in the chat the two items are done; "Add a model" opens the provider form.
  await page.getByTestId('nav-chat').click();
  await expect(checklist.getByTestId('first-run-progress')).toHaveText('2 of 3 done');
  await expect(checklist.getByTestId('first-run-item-hosts')).toContainText('Allowed: api.github.com');
  await screenshot(page, 'first-run-3-two-done');
  await checklist.getByTestId('first-run-model').click();
  const models = page.getByTestId('settings-models');
  await expect(models.locator('form')).toBeVisible();
  await expect(models.locator('form :focus')).toHaveCount(1);

  // Or use the + palette without a model: one click opens it in the composer.
  await page.getByTestId('nav-chat').click();
  await checklist.getByTestId('first-run-palette').click();
  await expect(page.getByRole('listbox')).toBeVisible();
  await context.close();
});
