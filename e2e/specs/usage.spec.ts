/**
 * Usage at a glance: a tool run several times (some calls failing: bad arguments, an API that
 * answers 500) shows its sparkline, calls and error rate in the Tools list (all rows' figures
 * in one request), a dashboard on its page, and its results' tokens in a conversation after
 * `+` palette runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { rpc } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

const BUNDLE_ID = '019a0000-0000-7000-8000-0000000057a1';


/** The names of the RPC calls the page sends over its WebSocket. */
function countCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      if (typeof f.payload !== 'string') return;
      try {
        const msg = JSON.parse(f.payload) as { name?: unknown };
        if (typeof msg.name === 'string') calls.push(msg.name);
      } catch {
        // Not a call.
      }
    }),
  );
  return calls;
}

let server: http.Server;
let port = 0;
test.beforeAll(async () => {
  // A local API: /stock?item=x answers a small JSON body, item=broken answers 500.
  server = http.createServer((req, res) => {
    const item = new URL(req.url ?? '/', 'http://x').searchParams.get('item') ?? '';
    if (item === 'broken') {
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"the warehouse is down"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ item, inStock: item.length * 7, warehouse: 'north', note: 'counted this morning' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
test.afterAll(() => new Promise<void>((r) => server.close(() => r())));

test('a tool run several times shows its usage in the list, on its page, and its tokens in a conversation', async ({ appPage: page, host }) => {
  test.skip(!host, 'runs the tool through the headless host');
  test.setTimeout(120_000);
  const h = host!;
  const before = (await rpc<{ allowedHosts: string[] }>(h, 'settings.get', {})).allowedHosts;
  await rpc(h, 'settings.set', { allowedHosts: [...before, `127.0.0.1:${port}`] });
  try {
    await rpc(h, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: 'e2e-usage', displayName: 'Usage', description: 'A stock API for usage figures', isEnabled: true } });
    await rpc(h, 'tools.put', {
      bundleId: BUNDLE_ID,
      slug: 'stockcheck',
      version: '1',
      body: {
        displayName: 'Stock check',
        description: 'How many of an item the warehouse holds',
        tags: [],
        type: 'http',
        argSchema: { type: 'object', properties: { item: { type: 'string', minLength: 1 } }, required: ['item'], additionalProperties: false },
        outputSchema: {},
        http: { method: 'GET', urlTemplate: `http://127.0.0.1:${port}/stock?item=\${item}` },
        isEnabled: true,
      },
    });
    const ref = { bundleId: BUNDLE_ID, slug: 'stockcheck', version: '1' };
    // 4 answers, 2 calls the API fails (500), 1 call with bad arguments.
    for (const item of ['bolts', 'nuts', 'washers', 'rivets']) await rpc(h, 'tools.invoke', { ...ref, args: { item } });
    const codes: string[] = [];
    for (const args of [{ item: 'broken' }, { item: 'broken' }, { item: '' }]) {
      codes.push(await rpc(h, 'tools.invoke', { ...ref, args }).then(() => 'ok', (e: { code: string }) => e.code));
    }
    expect(codes[2]).toBe('VALIDATION_FAILED');
    const httpCode = codes[0]!;
    expect(codes[1]).toBe(httpCode);

    // The Tools list: the row's sparkline, calls and error rate, from one request for every row.
    const calls = countCalls(page);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    const shell = new AppShell(page);
    await shell.open('tools');
    await page.getByTestId('tool-search').fill('stock check warehouse');
    const row = page.getByTestId('tool-stockcheck');
    await expect(row.getByTestId('usage-calls-stockcheck')).toHaveText('7 calls');
    await expect(row.getByTestId('usage-errors-stockcheck')).toHaveText('43% errors');
    const spark = row.getByTestId('sparkline-stockcheck');
    await expect(spark).toHaveAttribute('data-calls', '7');
    await expect(spark.getByRole('img')).toHaveAttribute('aria-label', /over the last 30 days: 7 calls, 3 errors; busiest day \d{4}-\d\d-\d\d with 7\./);
    await expect(row.locator('.usage-bar-error')).toHaveCount(1);
    // Every row shown has its figures, asked for together: one request per list shown (the
    // whole list, then the search's hits), never one per row.
    // Counted once the list is drawn (a refresh of its figures may redraw it).
    await expect(page.getByTestId('tool-list').locator('li.tool-row').first()).toBeVisible();
    const rows = await page.getByTestId('tool-list').locator('li.tool-row').count();
    expect(rows).toBeGreaterThan(0);
    expect(calls.filter((c) => c === 'tools.usageSummaries').length).toBeLessThanOrEqual(2);
    expect(calls.filter((c) => c === 'tools.usageStats')).toEqual([]);
    await screenshot(page, 'usage-1-list');

    // The tool's page: the dashboard under the tester; a run in the tester shows in it.
    await page.getByTestId('open-tool-stockcheck').click();
    const dash = page.getByTestId('usage-dashboard');
    await expect(dash.getByTestId('usage-stat-calls')).toHaveText('7');
    await expect(dash.getByTestId('usage-stat-error-rate')).toContainText('43%');
    await expect(dash.getByTestId('usage-stat-error-rate')).toContainText('3 failed');
    await expect(dash.getByTestId(`usage-code-${httpCode}`)).toHaveText('2');
    await expect(dash.getByTestId('usage-code-VALIDATION_FAILED')).toHaveText('1');
    await expect(dash.getByTestId('usage-stat-p50')).toHaveText(/\d+(\.\d+)? (ms|s)/);
    await expect(dash.getByTestId('usage-stat-size')).toContainText('max');
    await expect(dash.getByTestId('usage-histogram').getByRole('img')).toHaveAttribute('aria-label', /Latency histogram: .*\d/);
    await page.getByTestId('arg-item').fill('screws');
    await expect(page.getByTestId('tester-run')).not.toHaveAttribute('aria-disabled', 'true');
    await page.getByTestId('tester-run').click();
    await expect(page.getByTestId('tester-value')).toContainText('screws');
    await expect(dash.getByTestId('usage-stat-calls')).toHaveText('8');
    await expect(dash.getByTestId('usage-stat-error-rate')).toContainText('38%');
    await dash.scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-2-dashboard');

    // A conversation: two + palette runs and one failed run, then the side panel's token use.
    const conversation = await rpc<{ id: string }>(h, 'conversations.create', { title: 'Usage tokens' });
    await shell.open('chat');
    await page.getByTestId('conversation-item').filter({ hasText: 'Usage tokens' }).locator('button.conversation-open').click();
    const composer = page.getByTestId('chat-composer');
    for (const item of ['bolts', 'broken']) {
      await composer.click();
      await composer.pressSequentially('+stockch');
      const palette = page.getByTestId('palette');
      await expect(palette.getByTestId('palette-item-stockcheck')).toBeVisible();
      await page.keyboard.press('Enter');
      await palette.getByTestId('arg-item').fill(item);
      await palette.getByTestId('palette-run').click();
      await expect(palette).toBeHidden();
    }
    await rpc(h, 'chat.runTool', { conversationId: conversation.id, ...ref, args: { item: 'anchors' } });
    await expect(page.getByTestId('tool-card')).toHaveCount(3);
    const part = page.getByTestId('side-tool-tokens');
    await part.getByRole('button').first().click();
    const table = part.getByTestId('tool-token-use');
    await expect(table.getByTestId('token-calls-stockcheck')).toHaveText('3');
    const stored = await rpc<{ tools: { slug: string; tokens: number }[]; totalTokens: number }>(h, 'conversations.toolTokens', { id: conversation.id });
    expect(stored.tools).toEqual([expect.objectContaining({ slug: 'stockcheck', calls: 3, errors: 1 })]);
    await expect(table.getByTestId('token-tokens-stockcheck')).toHaveText(new RegExp(`^≈?${stored.tools[0]!.tokens}$`));
    await expect(table).toContainText('1 failed');
    // A run while the panel is open counts at once.
    await rpc(h, 'chat.runTool', { conversationId: conversation.id, ...ref, args: { item: 'hinges' } });
    await expect(table.getByTestId('token-calls-stockcheck')).toHaveText('4');
    await screenshot(page, 'usage-3-conversation');
  } finally {
    const now = (await rpc<{ allowedHosts: string[] }>(h, 'settings.get', {})).allowedHosts;
    await rpc(h, 'settings.set', { allowedHosts: now.filter((x) => x !== `127.0.0.1:${port}`) });
  }
});
