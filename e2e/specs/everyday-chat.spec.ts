/**
 * The chat as a demanding user meets it on a 1440×900 screen: the `+` palette with a bundle
 * of many tools and a tool in two versions; the side panel folded to give the messages the
 * room (and remembered after a reload); a buffer opened from a manifest takes the focus.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RunningHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';

/** Whether the focused element is inside the buffer viewer (run in the page). */
const focusInViewer = `!!document.activeElement?.closest('[data-testid="buffer-viewer"]')`;

test.use({ viewport: { width: 1440, height: 900 } });

const headers = (host: RunningHost) => ({ Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' });
const rest = (host: RunningHost, method: string, p: string, body: unknown) => fetch(`${host.url}tools/${p}`, { method, headers: headers(host), body: JSON.stringify(body) });

const echoTool = (displayName: string) => ({
  displayName,
  description: `${displayName}: says what it was given`,
  tags: ['everyday'],
  type: 'http',
  argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  outputSchema: { type: 'object' },
  http: { method: 'GET', urlTemplate: 'https://api.everyday.example/echo?city=${city}' },
  isEnabled: true,
});

test('the + palette lists a big bundle past its first page, with bundle, version and the newest version marked', async ({ appPage: page, host }) => {
  test.skip(!host, 'makes its tools through the headless host’s REST API');
  test.setTimeout(90_000);
  const bundleId = '019a0000-0000-7000-8000-0000000ee301';
  expect((await rest(host!, 'PUT', `bundles/${bundleId}`, { slug: 'everyday', displayName: 'Everyday kit', description: 'Many small tools', isEnabled: true })).status).toBe(200);
  for (let i = 1; i <= 45; i++) {
    const slug = `evd-tool-${String(i).padStart(2, '0')}`;
    expect((await rest(host!, 'PUT', `bundles/${bundleId}/tools/${slug}/version/1`, echoTool(`Everyday ${i}`))).status).toBe(201);
  }
  expect((await rest(host!, 'PUT', `bundles/${bundleId}/tools/evd-weather/version/1`, echoTool('Everyday weather'))).status).toBe(201);
  expect((await rest(host!, 'PUT', `bundles/${bundleId}/tools/evd-weather/version/2`, echoTool('Everyday weather'))).status).toBe(201);

  await page.getByTestId('nav-chat').click();
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially('+evd');
  const palette = page.getByTestId('palette');
  const options = palette.getByRole('option');
  // More than 20 listed at once, each naming its bundle and version.
  await expect.poll(() => options.count()).toBeGreaterThan(20);
  await expect(palette.getByTestId('palette-count')).toContainText('more below');
  const weather = palette.getByTestId('palette-item-evd-weather');
  await expect(weather).toHaveCount(2);
  await expect(weather.filter({ hasText: 'v2' })).toContainText('Everyday kit · v2');
  await expect(weather.filter({ hasText: 'v2' }).getByTestId('palette-item-mark')).toHaveText('newest');
  await expect(weather.filter({ hasText: 'v1' }).getByTestId('palette-item-mark')).toHaveText('older version');
  await screenshot(page, 'everyday-1-palette');

  // The arrows go through every match: past 20, past the first page, then wrap at the true end.
  for (let i = 0; i < 46; i++) await composer.press('ArrowDown');
  await expect(options.nth(46)).toHaveAttribute('aria-selected', 'true');
  // All read now (a fuzzy match or two of other tools may come after ours).
  await expect(palette.getByTestId('palette-count')).toHaveText(/^All \d+ matching tools$/);
  const total = Number(/All (\d+)/.exec((await palette.getByTestId('palette-count').textContent())!)![1]);
  expect(total).toBeGreaterThanOrEqual(47);
  await expect(options).toHaveCount(total);
  for (let i = 46; i < total - 1; i++) await composer.press('ArrowDown');
  await expect(options.nth(total - 1)).toHaveAttribute('aria-selected', 'true');
  await screenshot(page, 'everyday-2-palette-end');
  await composer.press('ArrowDown');
  await expect(options.nth(0)).toHaveAttribute('aria-selected', 'true');
  await composer.press('Escape');
});

test('folding the side panel gives the messages the room, and stays folded after a reload', async ({ appPage: page }) => {
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  const list = page.getByTestId('message-list');
  await expect(list).toBeVisible();
  await page.evaluate("localStorage.removeItem('toolsmith.chat.sideCollapsed')");
  const side = page.getByTestId('chat-side');
  if ((await side.getAttribute('data-collapsed')) === 'true') await page.getByTestId('side-toggle').click();
  await expect(side).toHaveAttribute('data-collapsed', 'false');
  const column = page.locator('.chat-main');
  const before = (await column.boundingBox())!.width;
  await page.getByTestId('side-toggle').click();
  await expect(side).toHaveAttribute('data-collapsed', 'true');
  const after = (await column.boundingBox())!.width;
  expect(after - before).toBeGreaterThan(250);
  await screenshot(page, 'everyday-3-side-folded');

  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  await page.getByTestId('nav-chat').click();
  await expect(page.getByTestId('chat-side')).toHaveAttribute('data-collapsed', 'true');
  expect((await column.boundingBox())!.width).toBeCloseTo(after, -1);
  await page.getByTestId('side-toggle').click();
  await expect(page.getByTestId('chat-side')).toHaveAttribute('data-collapsed', 'false');
});

test('a buffer opened from a manifest in the chat has the focus in its viewer', async ({ appPage: page, host }) => {
  test.skip(!host, 'writes a workspace file next to the headless host');
  const workspace = path.join(host!.dataDir, 'workspace');
  await fs.mkdir(path.join(workspace, 'e2e-everyday'), { recursive: true });
  await fs.writeFile(path.join(workspace, 'e2e-everyday', 'list.txt'), 'milk\neggs\nbread\n');
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await composer.fill('@input file:e2e-everyday/list.txt (output=variable:shopping)\n@model none');
  await composer.press('Enter');
  const user = page.getByTestId('message-user').last();
  await user.locator('.message-outcomes > summary').click();
  await user.getByTestId('manifest-link').click();
  await expect(page.getByTestId('buffer-viewer')).toContainText('eggs');
  await expect.poll(() => page.evaluate(focusInViewer)).toBe(true);
  await screenshot(page, 'everyday-4-focus');
});
