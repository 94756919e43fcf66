/**
 * A new user's whole flow on the Tools screen: a bundle, an HTTP tool from a pasted curl
 * command against a local server, its argSchema edited in Monaco, a run in the tester, a
 * saved test case run, the bundle exported and imported into a fresh data folder.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';

interface EditorHook {
  __toolsmithEditors?: Record<string, { setValue(v: string): void }>;
}

test('a new user builds an HTTP tool from curl, tests it, and moves it to a fresh data folder', async ({ appPage: page, host, browser }) => {
  test.skip(!host, 'the second data folder is a second headless host');
  test.setTimeout(90_000);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ city: url.searchParams.get('city'), tempC: 21 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  try {
    await page.getByTestId('nav-tools').click();

    // 1. A bundle.
    await page.getByTestId('new-bundle').click();
    await page.getByTestId('bundle-form-slug').fill('e2e-newuser');
    await page.getByTestId('bundle-form-name').fill('New user');
    await page.getByTestId('bundle-form-save').click();
    await expect(page.getByTestId('bundle-list').getByTestId('bundle-e2e-newuser')).toBeVisible();
    await screenshot(page, 'flow-1-bundle');

    // 2. An HTTP tool from a pasted curl command; its host is added to the allowed hosts.
    const panel = page.getByTestId('import-panel');
    await panel.getByRole('tab', { name: 'From curl' }).click();
    await panel.getByTestId('curl-input').fill(`curl 'http://127.0.0.1:${port}/weather?city=Oslo'`);
    await panel.getByTestId('curl-preview').click();
    await panel.getByTestId('curl-slug').fill('city-weather');
    const addHosts = panel.getByTestId('curl-add-hosts');
    if (await addHosts.count()) await addHosts.check();
    await panel.getByTestId('curl-create').click();
    await expect(panel.getByTestId('curl-created')).toContainText('city-weather');
    await screenshot(page, 'flow-2-curl');

    // 3. A new version with the argSchema edited in Monaco.
    await page.getByTestId('open-tool-city-weather').click();
    await page.getByTestId('new-version').click();
    await page.getByTestId('tool-form-version').fill('2');
    const schema = { type: 'object', properties: { city: { type: 'string', minLength: 1, description: 'A city name' } }, required: ['city'], additionalProperties: false };
    await expect.poll(() => page.evaluate(() => !!(globalThis as unknown as EditorHook).__toolsmithEditors?.['argschema-editor']), { timeout: 30_000 }).toBe(true); // Monaco loads lazily: a busy machine takes a while
    await page.evaluate((text) => (globalThis as unknown as EditorHook).__toolsmithEditors!['argschema-editor']!.setValue(text), JSON.stringify(schema, null, 2));
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('tool-list').getByTestId('tool-city-weather').first()).toBeVisible();
    await expect(page.getByTestId('new-version')).toBeVisible();
    await screenshot(page, 'flow-3-monaco');

    // 4. A run in the tester.
    await page.getByTestId('arg-city').fill('Bergen');
    await page.getByTestId('tester-run').click();
    await expect(page.getByTestId('tester-result')).toContainText('Bergen');
    await screenshot(page, 'flow-4-tester');

    // 5. A saved test case, run.
    await page.getByTestId('testcase-name').fill('Bergen answers');
    await page.getByTestId('testcase-add').click();
    await page.getByTestId('testcase-run-all').click();
    await expect(page.getByTestId('testcase-summary')).toContainText('1 passed, 0 failed');
    await screenshot(page, 'flow-5-testcase');

    // 6. Export the bundle.
    await panel.getByRole('tab', { name: 'Bundle ZIP' }).click();
    const download = page.waitForEvent('download');
    await panel.getByTestId('bundle-export').click();
    const zip = await (await download).path();
    expect(zip).toBeTruthy();

    // 7. Import it into a fresh data folder.
    const fresh = await startHost();
    const context = await browser.newContext();
    try {
      const other = await context.newPage();
      await other.goto(await fresh.loginUrl());
      await other.waitForSelector('html[data-ready="true"]');
      await other.getByTestId('nav-tools').click();
      const otherPanel = other.getByTestId('import-panel');
      await otherPanel.getByRole('tab', { name: 'Bundle ZIP' }).click();
      await otherPanel.getByTestId('bundle-import-file').setInputFiles(zip!);
      await expect(otherPanel.getByTestId('import-report')).toContainText('city-weather@2');
      await expect(other.getByTestId('bundle-list').getByTestId('bundle-e2e-newuser')).toBeVisible();
      await screenshot(other, 'flow-6-imported');
    } finally {
      await context.close();
      await fresh.stop();
    }
  } finally {
    server.close();
  }
});
