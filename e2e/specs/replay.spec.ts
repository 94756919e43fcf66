/**
 * A chat call opened in the tester: a tool run from the `+` palette (an older version of two),
 * "Open in tester" on its card opens the Tools screen on that exact version with the call's
 * arguments filled in; a run there is compared with the chat's result side by side, and saved
 * as a test case in one click.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';


const BUNDLE_ID = '019a0000-0000-7000-8000-0000000e7a01';
const BUNDLE_SLUG = 'replay-e2e';
const SLUG = 'replay-forecast';

/** The weather service: what it says can change between two calls. */
let server: http.Server;
let origin = '';
let forecast = 'sunny';

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ forecast, path: req.url, days: [1, 2, 3] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A bundle of this spec's own with two versions of the forecast tool (each asks its own path), and no test cases. */
async function setUp(host: RunningHost): Promise<void> {
  const settings = await rpc<{ allowedHosts: string[] }>(host, 'settings.get', {});
  const hostPort = origin.replace('http://', '');
  if (!settings.allowedHosts.includes(hostPort)) await rpc(host, 'settings.set', { allowedHosts: [...settings.allowedHosts, hostPort] });
  await rpc(host, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: BUNDLE_SLUG, displayName: 'Replay e2e', description: 'Chat calls replayed in the tester', isEnabled: true } });
  const made = await rpc<{ items: { slug: string; version: string }[] }>(host, 'tools.list', { bundleIds: [BUNDLE_ID], includeDisabled: true, pageSize: 100 });
  for (const version of ['1', '2']) {
    if (made.items.some((t) => t.slug === SLUG && t.version === version)) continue;
    await rpc(host, 'tools.put', {
      bundleId: BUNDLE_ID,
      slug: SLUG,
      version,
      body: {
        displayName: 'Replay forecast',
        description: `The forecast for a city (version ${version})`,
        tags: ['e2e'],
        type: 'http',
        argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        outputSchema: {},
        http: { method: 'GET', urlTemplate: `${origin}/v${version}/forecast?city=\${city}` },
        isEnabled: true,
      },
    });
  }
  for (const old of await rpc<{ id: string }[]>(host, 'testcases.list', { bundleId: BUNDLE_ID, slug: SLUG })) await rpc(host, 'testcases.delete', { bundleId: BUNDLE_ID, slug: SLUG, id: old.id });
}

test('a palette run opened in the tester: its version and arguments, the two results side by side, saved as a test case', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec sets up its tool through the headless host');
  test.setTimeout(180_000);
  await setUp(host!);
  await page.setViewportSize({ width: 1440, height: 900 });
  const shell = new AppShell(page);

  // In the chat: the older version (1) of the tool from the `+` palette.
  forecast = 'sunny';
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially(`+${SLUG}`);
  const palette = page.getByTestId('palette');
  const older = palette.locator(`[data-testid="palette-item-${SLUG}"][data-version="1"]`);
  await expect(older).toBeVisible();
  await older.click();
  await palette.getByTestId('arg-city').fill('Bergen');
  await palette.getByTestId('palette-run').click();
  const card = page.getByTestId('tool-card').last();
  await expect(card).toHaveAttribute('data-status', 'ok');
  await expect(card).toContainText('sunny');
  await expect(card).toContainText('/v1/forecast?city=Bergen');

  // The service changes its mind; the call is opened in the tester from the keyboard.
  forecast = 'rain';
  await card.getByTestId('tool-card-open-tester').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('screen-tools')).toBeVisible();
  await expect(page.getByTestId('tool-form-slug')).toHaveValue(SLUG);
  // The call's version, not the newest.
  await expect(page.getByTestId('tool-form-version')).toHaveValue('1');
  const tester = page.getByTestId('tester');
  await expect(tester.getByTestId('arg-city')).toHaveValue('Bergen');
  const replay = tester.getByTestId('replay');
  await expect(replay).toContainText('version 1');
  await expect(replay.getByTestId('replay-diff')).toHaveCount(0);

  // Run: the chat's result and this run's, side by side.
  await tester.getByTestId('tester-run').click();
  await expect(tester.getByTestId('tester-result')).toContainText('rain');
  await expect(replay.getByTestId('replay-verdict')).toHaveText('Different from the chat: 1 line only in the chat’s result, 1 only in this run’s.');
  const diff = replay.getByTestId('replay-diff');
  await expect(diff.locator('th')).toHaveText(['In the chat', 'This run']);
  await expect(diff.locator('[data-kind="remove"]')).toHaveText(['-  "forecast": "sunny",']);
  await expect(diff.locator('[data-kind="add"]')).toHaveText(['+  "forecast": "rain",']);
  // Same path on both sides: the tester ran version 1, as the chat did.
  await expect(diff.locator('.split-left[data-kind="same"]').filter({ hasText: '"path"' })).toHaveText(['   "path": "/v1/forecast?city=Bergen"']);
  // For the picture: more of the width to the tester (the divider, from the keyboard).
  await page.getByTestId('workbench-divider').focus();
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Shift+ArrowLeft');
  await replay.locator('p.help').click();
  await replay.evaluate((el) => (el as unknown as { scrollIntoView(o: { block: string }): void }).scrollIntoView({ block: 'end' }));
  await screenshot(page, 'replay-compare');

  // Save as test case: one click; the case is listed, and passes when run.
  await replay.getByTestId('replay-save-case').focus();
  await page.keyboard.press('Enter');
  const name = 'From the chat: {"city":"Bergen"}';
  await expect(replay.getByTestId('replay-saved')).toHaveText(`Saved test case “${name}”.`);
  const row = tester.getByTestId('testcase-row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('$ = {"forecast":"rain","path":"/v1/forecast?');
  const saved = await rpc<{ name: string; args: unknown; assertions: unknown[] }[]>(host!, 'testcases.list', { bundleId: BUNDLE_ID, slug: SLUG });
  expect(saved).toEqual([
    expect.objectContaining({
      name,
      args: { city: 'Bergen' },
      assertions: [{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$', value: { forecast: 'rain', path: '/v1/forecast?city=Bergen', days: [1, 2, 3] } }],
    }),
  ]);
  await row.getByRole('button', { name: `Run test case ${name}` }).click();
  await expect(tester.getByTestId('testcase-summary')).toContainText('1 passed, 0 failed');

  // Stop comparing: the comparison goes, the tester stays.
  await replay.getByTestId('replay-dismiss').click();
  await expect(tester.getByTestId('replay')).toHaveCount(0);
  expect(shell.consoleErrors).toEqual([]);
});
