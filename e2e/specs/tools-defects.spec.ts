/**
 * The Tools screen as a new user meets it: importing an OpenAPI document in the shape of a real
 * one (e2e/fixtures/openapi/payments-html.yaml: HTML descriptions, a bearer key) with the keyboard, its descriptions as text, its harmless notes apart
 * from its problems, its secret asked for, and the pasted document kept across "New bundle";
 * the tester's test-case form, its HTTP exchange, and the tester within reach at 1024×768.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';

/** A small document in the shape of a real one (HTML descriptions, a bearer key, a GET with a body). */
const STRIPE = path.resolve(import.meta.dirname, '../fixtures/openapi/payments-html.yaml');
const IMPORT_BUNDLE = '019a0000-0000-7000-8000-0000000e3001';
const TESTER_BUNDLE = '019a0000-0000-7000-8000-0000000e3002';
const SLUG = 'defects-echo';

let server: http.Server;
let origin = '';

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ city: new URL(req.url ?? '/', 'http://x').searchParams.get('city'), temps: [3, 4] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function openBundle(page: Page, slug: string, name: string): Promise<void> {
  await new AppShell(page).open('tools');
  await page.getByTestId('bundle-list').getByTestId(`bundle-${slug}`).getByRole('button', { name }).click();
}

async function setUpTester(host: RunningHost): Promise<void> {
  const settings = await rpc<{ allowedHosts: string[] }>(host, 'settings.get', {});
  const hostPort = origin.replace('http://', '');
  if (!settings.allowedHosts.includes(hostPort)) await rpc(host, 'settings.set', { allowedHosts: [...settings.allowedHosts, hostPort] });
  await rpc(host, 'bundles.put', { bundleId: TESTER_BUNDLE, body: { slug: 'defects-tester', displayName: 'Defects tester', description: 'A tool to test', isEnabled: true } });
  const made = await rpc<{ items: { slug: string }[] }>(host, 'tools.list', { bundleIds: [TESTER_BUNDLE], includeDisabled: true, pageSize: 100 });
  if (made.items.some((t) => t.slug === SLUG)) return;
  await rpc(host, 'tools.put', {
    bundleId: TESTER_BUNDLE,
    slug: SLUG,
    version: '1',
    body: {
      displayName: 'Defects echo',
      description: 'Echoes the city as JSON',
      tags: [],
      type: 'http',
      argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: {},
      http: { method: 'GET', urlTemplate: `${origin}/echo?city=\${city}` },
      isEnabled: true,
    },
  });
}

async function openTester(page: Page): Promise<void> {
  await openBundle(page, 'defects-tester', 'Defects tester');
  await page.getByTestId(`tool-${SLUG}`).locator('.tool-open').click();
  await expect(page.getByTestId('tester')).toBeVisible();
}

test.describe('the Tools screen for a new user', () => {
  test('OpenAPI import of a document like a real one: keyboard, text descriptions, notes apart from problems, its secret asked for', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    test.setTimeout(120_000);
    const h = host!;
    await rpc(h, 'bundles.put', { bundleId: IMPORT_BUNDLE, body: { slug: 'defects-stripe', displayName: 'Defects Stripe', description: 'Stripe, imported', isEnabled: true } });
    await page.setViewportSize({ width: 1440, height: 900 });
    await openBundle(page, 'defects-stripe', 'Defects Stripe');
    const panel = page.getByTestId('import-panel');
    await panel.getByRole('tab', { name: 'From OpenAPI' }).click();
    await panel.getByTestId('openapi-file').setInputFiles(STRIPE);
    await expect(panel.getByTestId('openapi-input')).not.toHaveValue('');
    await panel.getByTestId('openapi-parse').click();
    await expect(panel.getByTestId('openapi-op-get-balance')).toBeVisible();

    // A GET whose document has an empty body is a note, not a problem: nothing of it in red.
    const ops = panel.getByTestId('openapi-op-list');
    await expect(ops.locator('.import-warnings li', { hasText: 'cannot have a body' })).toHaveCount(0);
    await expect(panel.getByTestId('openapi-notes-get-balance')).toContainText('1 note');
    await expect(panel.getByTestId('openapi-notes-get-balance')).not.toHaveAttribute('open', '');
    await expect(panel.getByTestId('openapi-notes-summary')).toContainText('1 note');
    await panel.getByTestId('openapi-notes-get-balance').locator('summary').click();
    await panel.getByTestId('openapi-notes-summary').scrollIntoViewIfNeeded();
    await screenshot(page, 'tools-defects-1-openapi-notes');

    // Up and Down move the focus between the operations, as the hint says; Space selects.
    await panel.getByRole('button', { name: 'Select none' }).click();
    const box = (slug: string) => panel.getByTestId(`openapi-op-${slug}`).getByRole('checkbox', { name: /^Import / });
    await box('get-balance').focus();
    await page.keyboard.press('ArrowDown');
    await expect(box('get-balance-transactions')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(box('get-charges')).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(box('get-balance-transactions')).toBeFocused();
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Space');
    await expect(box('get-balance')).toBeChecked();
    await expect(box('get-balance-transactions')).toBeChecked();
    await expect(panel.getByTestId('openapi-import')).toHaveText('Import 2 operations');
    await panel.getByTestId('openapi-import').click();
    await expect(panel.getByTestId('openapi-result')).toContainText('2 of 2 created');

    // The descriptions are text: no HTML tags, the code and the links still readable.
    const tool = await rpc<{ description: string }>(h, 'tools.get', { bundleId: IMPORT_BUNDLE, slug: 'get-balance-transactions', version: '1' });
    expect(tool.description).not.toMatch(/<\/?(p|code|a)\b/);
    expect(tool.description).toContain('`/v1/balance/history`');
    const balance = await rpc<{ description: string }>(h, 'tools.get', { bundleId: IMPORT_BUNDLE, slug: 'get-balance', version: '1' });
    expect(balance.description).toContain('[Accounting for negative balances](/docs/connect/account-balances#accounting-for-negative-balances)');

    // The document's bearer token is asked for, and saved as a secret for the API's host.
    const secrets = panel.getByTestId('openapi-secrets');
    await expect(secrets).toContainText('STRIPE_TOKEN');
    await secrets.getByTestId('openapi-secret-STRIPE_TOKEN').fill('sk_test_e2e_value');
    await secrets.scrollIntoViewIfNeeded();
    await screenshot(page, 'tools-defects-2-openapi-secret');
    await secrets.getByTestId('openapi-secret-save-STRIPE_TOKEN').click();
    await expect(secrets.getByTestId('openapi-secret-saved-STRIPE_TOKEN')).toBeVisible();
    const saved = await rpc<{ name: string; hosts: string[] }[]>(h, 'secrets.list', {});
    expect(saved.find((x) => x.name === 'STRIPE_TOKEN')?.hosts).toEqual(['api.stripe.com']);
    await expect(secrets).not.toContainText('sk_test_e2e_value');
  });

  test('"New bundle" keeps the pasted OpenAPI document', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    await rpc(host!, 'bundles.put', { bundleId: IMPORT_BUNDLE, body: { slug: 'defects-stripe', displayName: 'Defects Stripe', description: 'Stripe, imported', isEnabled: true } });
    await page.setViewportSize({ width: 1440, height: 900 });
    await openBundle(page, 'defects-stripe', 'Defects Stripe');
    const panel = page.getByTestId('import-panel');
    await panel.getByRole('tab', { name: 'From OpenAPI' }).click();
    const doc = 'openapi: 3.0.3\ninfo: {title: Kept, version: "1"}\npaths: {}\n';
    await panel.getByTestId('openapi-input').fill(doc);
    await page.getByTestId('new-bundle').click();
    await page.getByTestId('bundle-form-slug').fill(`defects-new-${Date.now().toString(36)}`);
    await page.getByTestId('bundle-form-name').fill('Defects new');
    await page.getByTestId('bundle-form-save').click();
    await expect(page.getByTestId('bundle-list').locator('.bundle-item.active')).toContainText('Defects new');
    await expect(panel.getByTestId('openapi-input')).toHaveValue(doc);
  });

  test('the test-case form starts afresh after a save', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its tool through the headless host');
    await setUpTester(host!);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openTester(page);
    const tester = page.getByTestId('tester');
    await tester.getByTestId('arg-city').fill('Oslo');
    await tester.getByTestId('testcase-name').fill(`Oslo ${Date.now().toString(36)}`);
    await tester.getByTestId('testcase-expect-error').check();
    await tester.getByTestId('testcase-matches-schema').check();
    await tester.getByTestId('testcase-contains').fill('Oslo');
    await tester.getByTestId('testcase-jsonpath').fill('$.city');
    await tester.getByTestId('testcase-jsonpath-value').fill('"Oslo"');
    await tester.getByTestId('testcase-latency').fill('5000');
    await tester.getByTestId('testcase-add').click();
    await expect(tester.locator('.case-form [role="status"]')).toContainText('Saved');
    await expect(tester.getByTestId('testcase-name')).toHaveValue('');
    await expect(tester.getByTestId('testcase-expect-ok')).toBeChecked();
    await expect(tester.getByTestId('testcase-matches-schema')).not.toBeChecked();
    await expect(tester.getByTestId('testcase-contains')).toHaveValue('');
    await expect(tester.getByTestId('testcase-jsonpath')).toHaveValue('');
    await expect(tester.getByTestId('testcase-jsonpath-value')).toHaveValue('');
    await expect(tester.getByTestId('testcase-latency')).toHaveValue('');
    await expect(tester.getByTestId('arg-city')).toHaveValue('Oslo');
    await tester.getByTestId('testcase-add').scrollIntoViewIfNeeded();
    await screenshot(page, 'tools-defects-3-case-form-reset');
  });

  test('a JSON response body is shown indented in the HTTP exchange', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its tool through the headless host');
    await setUpTester(host!);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openTester(page);
    const tester = page.getByTestId('tester');
    await tester.getByTestId('arg-city').fill('Bergen');
    await tester.getByTestId('tester-run').click();
    await expect(tester.getByTestId('tester-http-status')).toHaveText('200');
    await tester.locator('.http-body > summary').click();
    const body = await tester.getByTestId('tester-http-body').textContent();
    expect(body).toBe('{\n  "city": "Bergen",\n  "temps": [\n    3,\n    4\n  ]\n}');
    await tester.getByTestId('tester-http-body').scrollIntoViewIfNeeded();
    await screenshot(page, 'tools-defects-4-http-body');
  });

  test('1024×768: the tester is one click away from the top of the editor, and not far below it', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its tool through the headless host');
    await setUpTester(host!);
    await page.setViewportSize({ width: 1024, height: 768 });
    await openTester(page);
    const editor = (await page.getByTestId('workbench-editor').boundingBox())!;
    const testerBox = (await page.getByTestId('workbench-tester').boundingBox())!;
    expect(testerBox.y - editor.y).toBeLessThan(768);
    const jump = page.getByTestId('workbench-jump-tester');
    await expect(jump).toBeVisible();
    await screenshot(page, 'tools-defects-5a-editor-1024');
    await jump.click();
    await expect(page.getByTestId('workbench-tester')).toBeFocused();
    await expect(page.getByTestId('tester-run')).toBeInViewport();
    await screenshot(page, 'tools-defects-5b-tester-1024');
    // On a wide window the two are side by side: no jump.
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect(jump).toBeHidden();
  });
});
