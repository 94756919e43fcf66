/**
 * The chat as a demanding user meets it on a 1440×900 screen: the `+` palette with a bundle
 * of many tools and a tool in two versions; the side panel folded to give the messages the
 * room (and remembered after a reload); a buffer opened from a manifest takes the focus.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import type { RunningHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

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

test('at 1024×700 a focused field of a palette form with a long description is scrolled clear of the Run bar', async ({ appPage: page, host }) => {
  test.skip(!host, 'makes its tool through the headless host’s REST API');
  const bundleId = '019a0000-0000-7000-8000-0000000ee302';
  expect((await rest(host!, 'PUT', `bundles/${bundleId}`, { slug: 'wordy', displayName: 'Wordy kit', description: 'Tools that say a lot', isEnabled: true })).status).toBe(200);
  const tool = {
    ...echoTool('Wordy lookup'),
    description: 'Looks up a city. '.repeat(150).trim(),
    argSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, country: { type: 'string' }, region: { type: 'string' }, street: { type: 'string' } },
      required: ['city', 'country', 'region', 'street'],
    },
  };
  const put = await rest(host!, 'PUT', `bundles/${bundleId}/tools/wordy-lookup/version/1`, tool);
  expect([200, 201]).toContain(put.status);
  await page.setViewportSize({ width: 1024, height: 700 });
  try {
    await page.getByTestId('nav-chat').click();
    const composer = page.getByTestId('chat-composer');
    await composer.click();
    await composer.pressSequentially('+wordy-lookup');
    const palette = page.getByTestId('palette');
    await palette.getByTestId('palette-item-wordy-lookup').first().click();
    const field = palette.getByTestId('palette-form').locator('.args-form input').first();
    await expect(field).toBeFocused();
    const run = palette.getByTestId('palette-run');
    const clearOfRun = async () => {
      const f = (await field.boundingBox())!;
      const r = (await run.boundingBox())!;
      expect(f.y + f.height).toBeLessThanOrEqual(r.y);
    };
    await expect(clearOfRun).toPass({ timeout: 5_000 });
    // Scrolled so the field is half under the Run bar, focus leaves it and comes back by keyboard.
    const fieldBox = (await field.boundingBox())!;
    const runBox = (await run.boundingBox())!;
    await palette.evaluate((e, by) => ((e as unknown as { scrollTop: number }).scrollTop -= by), Math.round(runBox.y + 10 - (fieldBox.y + fieldBox.height)));
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await expect(field).toBeFocused();
    await expect(clearOfRun).toPass({ timeout: 5_000 });
    await page.keyboard.press('Escape');
  } finally {
    await page.setViewportSize({ width: 1440, height: 900 });
    // The worker's host is shared: its palette no longer offers this bundle.
    await rest(host!, 'DELETE', `bundles/${bundleId}`, undefined);
  }
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

test.describe('recovering in the chat', () => {
  let server: ScriptedModelServer;
  test.beforeAll(async () => {
    server = await startScriptedModelServer();
    server.setModels(['everyday-model']);
  });
  test.afterAll(async () => {
    await server.close();
  });

  test('retry an answer, copy it, edit and resend a question, deny with a reason, run a palette call again, see failed directives', async ({ appPage: page, host }) => {
    test.skip(!host, 'adds its provider through the headless host’s API');
    test.setTimeout(200_000);
    // A name no other provider in this shared data folder has (a retry adds one again).
    const providerName = `Everyday local ${Date.now().toString(36)}`;
    const saved = await fetch(`${host!.url}rpc/providers.save`, {
      method: 'POST',
      headers: headers(host!),
      body: JSON.stringify({ provider: { name: providerName, kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-everyday-0123456789' } }),
    });
    expect(saved.status).toBe(200);
    // Its models are listed once it was tested.
    const provider = ((await saved.json()) as { value: { id: string } }).value;
    await fetch(`${host!.url}rpc/providers.test`, { method: 'POST', headers: headers(host!), body: JSON.stringify({ id: provider.id }) });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

    await page.getByTestId('nav-chat').click();
    await page.getByTestId('conversation-new').click();
    await new AppShell(page).pickModel(providerName, 'everyday-model');
    const list = page.getByTestId('message-list');
    const composer = page.getByTestId('chat-composer');

    // 1. A wrong answer, retried: the new one replaces it.
    server.script([{ kind: 'text', text: 'Paris is in Italy.' }]);
    await composer.fill('Where is Paris?');
    await composer.press('Enter');
    await expect(page.getByTestId('message-assistant').last()).toContainText('Paris is in Italy.');
    server.script([{ kind: 'text', text: 'Paris is in France.' }]);
    await page.getByTestId('message-assistant').last().getByTestId('message-regenerate').click();
    await expect(page.getByTestId('message-assistant').last()).toContainText('Paris is in France.');
    await expect(list).not.toContainText('Paris is in Italy.');
    await expect(page.getByTestId('message-assistant')).toHaveCount(1);

    // 2. Copy the answer.
    await page.getByTestId('message-assistant').last().getByTestId('message-copy').click();
    await expect(page.getByTestId('message-assistant').last().getByTestId('message-copy')).toHaveText('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('Paris is in France.');
    await screenshot(page, 'everyday-5-retried');

    // 3. Edit the question and send it again: the old question and its answer are gone.
    server.script([{ kind: 'text', text: 'Rome is in Italy.' }]);
    await page.getByTestId('message-user').last().getByTestId('message-edit').click();
    await page.getByTestId('message-edit-input').fill('Where is Rome?');
    await page.getByTestId('message-edit-input').press('Enter');
    await expect(page.getByTestId('message-assistant').last()).toContainText('Rome is in Italy.');
    await expect(page.getByTestId('message-user')).toHaveCount(1);
    await expect(page.getByTestId('message-user')).toContainText('Where is Rome?');
    await expect(list).not.toContainText('Paris');

    // 4. Deny a call with a reason: the model is told why.
    // With many tools in the data folder the model may be given tool_search first: it searches, as a model would.
    server.script([
      { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'write text into a file in the workspace' } }] },
      { kind: 'tools', calls: [{ name: 'writefile', arguments: { path: 'e2e-everyday/x.txt', content: 'x' } }] },
      { kind: 'text', text: 'Understood, I will not write there.' },
    ]);
    await composer.fill('Write x somewhere');
    await composer.press('Enter');
    const approval = page.locator('[data-testid="tool-card"][data-status="awaiting-approval"]');
    await approval.getByTestId('approval-deny').click();
    await approval.getByTestId('approval-deny-reason-input').fill('write to notes/ instead');
    await screenshot(page, 'everyday-6-deny-reason');
    await approval.getByTestId('approval-deny-reason-send').click();
    await expect(list).toContainText('Understood, I will not write there.');
    await expect(page.getByTestId('tool-card-deny-reason').last()).toContainText('write to notes/ instead');
    const last = server.requests.at(-1)!;
    const toolResult = (last.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').at(-1)!.content;
    expect(toolResult).toContain('write to notes/ instead');

    // 5. A palette run, edited and run again: the form opens with its arguments.
    await composer.click();
    await composer.pressSequentially('+readfile');
    const palette = page.getByTestId('palette');
    await expect(palette.getByTestId('palette-item-readfile').first()).toBeVisible();
    await page.keyboard.press('Enter');
    await palette.getByTestId('arg-path').fill('e2e-everyday/missing.txt');
    await palette.getByTestId('palette-run').click();
    const runCard = page.getByTestId('tool-card').filter({ hasText: '+readfile' }).last();
    await expect(runCard.getByTestId('tool-card-status')).toHaveText(/ok|error/);
    await runCard.getByTestId('tool-card-rerun').click();
    await expect(palette.getByTestId('arg-path')).toHaveValue('e2e-everyday/missing.txt');
    await screenshot(page, 'everyday-7-rerun');
    await page.keyboard.press('Escape');

    // 6. A directive that fails is marked on its folded group; the title is not the directive.
    await page.getByTestId('conversation-new').click();
    await composer.fill('@input file:e2e-everyday/nothing-here.txt (output=variable:nothing)\n@model none');
    await composer.press('Enter');
    const failed = page.getByTestId('message-user').last();
    await expect(failed.getByTestId('outcomes-failed')).toHaveText(/1 failed/);
    await expect(failed.locator('details.message-outcomes')).not.toHaveAttribute('open');
    const current = page.locator('.conversation-item.current .conversation-title');
    await expect(current).toContainText('Input: nothing-here.txt');
    await expect(current).not.toContainText('@');
    await screenshot(page, 'everyday-8-failed-directive');
  });
});

test('a search in a one-line JSON buffer shows each match around itself and goes to it', async ({ appPage: page, host }) => {
  test.skip(!host, 'writes a workspace file next to the headless host');
  test.setTimeout(90_000);
  const workspace = path.join(host!.dataDir, 'workspace');
  await fs.mkdir(path.join(workspace, 'e2e-everyday'), { recursive: true });
  // ~73,000 characters on one line; "needle" in 31 items, each with its own id.
  const items = Array.from({ length: 31 }, (_, i) => ({ id: `item-${i}`, pad: 'x'.repeat(2300), word: 'needle' }));
  const json = JSON.stringify({ items });
  expect(json.length).toBeGreaterThan(70_000);
  await fs.writeFile(path.join(workspace, 'e2e-everyday', 'one-line.json'), json);
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await composer.fill('@input file:e2e-everyday/one-line.json (output=variable:oneline)\n@model none');
  await composer.press('Enter');
  const user = page.getByTestId('message-user').last();
  await user.locator('.message-outcomes > summary').click();
  await user.getByTestId('manifest-link').click();
  await expect(page.getByTestId('buffer-viewer')).toBeVisible();
  await page.getByTestId('buffer-search-input').fill('needle');
  await page.getByTestId('buffer-search-input').press('Enter');
  const results = page.getByTestId('buffer-search-result');
  await expect(results).toHaveCount(31);
  // Each result shows its own match (with its column), not the line's head 31 times.
  const texts = await results.allTextContents();
  expect(new Set(texts).size).toBe(31);
  await expect(results.nth(0).locator('mark')).toHaveText('needle');
  await expect(results.nth(30).locator('mark')).toHaveText('needle');
  await expect(results.nth(1)).toContainText(/Line 1, column [\d,]+/);
  // The first match is drawn in the viewer (past column 2,000): clicking marks it there and scrolls to it.
  await results.nth(0).click();
  const jump = page.getByTestId('buffer-jump-match');
  await expect(jump).toHaveText('needle');
  await expect(jump).toBeInViewport();
  await screenshot(page, 'everyday-9-long-line-search');

  // The 20th match lies some 45,000 characters in: the viewer draws a window of the line around it.
  const line = page.getByTestId('buffer-line-1');
  const range = page.getByTestId('line-window-range');
  await results.nth(19).click();
  await expect(jump).toHaveText('needle');
  await expect(jump).toBeInViewport();
  await expect(line).toContainText('"word":"needle"},{"id":"item-20"');
  await expect(line.getByTestId('buffer-chars-before')).toContainText(/… [\d,]+ characters before/);
  await expect(line.getByTestId('buffer-chars-after')).toContainText(/[\d,]+ characters after …/);
  await expect(range).toContainText(new RegExp(`Line 1: characters [\\d,]+–[\\d,]+ of ${json.length.toLocaleString('en')}`));
  // Never the whole line at once: one window of 4,000 characters and the two markers.
  expect(((await line.locator('.line-text').textContent()) ?? '').length).toBeLessThan(4_100);
  await screenshot(page, 'everyday-9b-long-line-window');

  // From the keyboard: a window later, then back to the match.
  const before = await range.textContent();
  await page.getByTestId('line-window-later').focus();
  await page.keyboard.press('Enter');
  await expect(range).not.toHaveText(before!);
  await expect(jump).toHaveCount(0);
  await expect(page.getByTestId('line-window-later')).toBeFocused();
  await expect(line.getByTestId('buffer-chars-before')).toBeInViewport();
  await screenshot(page, 'everyday-9c-long-line-later');
  await page.getByTestId('line-window-match').focus();
  await page.keyboard.press('Enter');
  await expect(range).toHaveText(before!);
  await expect(jump).toHaveText('needle');
  await expect(jump).toBeInViewport();

  // The last match, near the line's end: the window reaches the end, and Later has nowhere to go.
  await results.nth(30).click();
  await expect(jump).toHaveText('needle');
  await expect(jump).toBeInViewport();
  await expect(line).toContainText('"id":"item-30"');
  await expect(line.getByTestId('buffer-chars-after')).toHaveCount(0);
  await expect(page.getByTestId('line-window-later')).toHaveAttribute('aria-disabled', 'true');
  // The markers move the window with the mouse.
  await line.getByTestId('buffer-chars-before').click();
  await expect(line.getByTestId('buffer-chars-after')).toBeVisible();
  await expect(jump).toHaveCount(0);

  // The same buffer wrapped, and as indented JSON; a search result goes back to the lines.
  await page.getByTestId('buffer-view-wrapped').check();
  const whole = page.getByTestId('buffer-whole');
  await expect(whole).toContainText('"word":"needle"');
  const wrapped = await whole.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(wrapped.scroll).toBeLessThanOrEqual(wrapped.client + 1);
  await page.getByTestId('buffer-view-json').check();
  await expect(whole.locator('pre')).toContainText('"id": "item-30",\n      "pad"');
  await screenshot(page, 'everyday-10-formatted-json');
  await results.nth(30).click();
  await expect(page.getByTestId('buffer-view-lines')).toBeChecked();
  await expect(page.getByTestId('buffer-viewer')).toBeVisible();
  await expect(jump).toHaveText('needle');
  await expect(jump).toBeInViewport();
});

test('a match near the end of a line longer than one read is read on its own and drawn', async ({ appPage: page, host }) => {
  test.skip(!host, 'writes a workspace file next to the headless host');
  test.setTimeout(90_000);
  const workspace = path.join(host!.dataDir, 'workspace');
  await fs.mkdir(path.join(workspace, 'e2e-everyday'), { recursive: true });
  // 1.2 million characters on one line: more than one read returns, so the viewer holds only its head.
  const json = JSON.stringify({ data: 'y'.repeat(1_200_000), tail: 'haystack-end' });
  await fs.writeFile(path.join(workspace, 'e2e-everyday', 'huge-line.json'), json);
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await composer.fill('@input file:e2e-everyday/huge-line.json (output=variable:hugeline)\n@model none');
  await composer.press('Enter');
  const user = page.getByTestId('message-user').last();
  await user.locator('.message-outcomes > summary').click();
  await user.getByTestId('manifest-link').click();
  const line = page.getByTestId('buffer-line-1');
  await expect(line.getByTestId('buffer-chars-after')).toContainText(`${(json.length - 4_000).toLocaleString('en')} characters after`);
  await page.getByTestId('buffer-search-input').fill('haystack-end');
  await page.getByTestId('buffer-search-input').press('Enter');
  await page.getByTestId('buffer-search-result').click();
  const jump = page.getByTestId('buffer-jump-match');
  await expect(jump).toHaveText('haystack-end');
  await expect(jump).toBeInViewport();
  await expect(page.getByTestId('line-window-range')).toHaveText(`Line 1: characters ${(json.length - 3_999).toLocaleString('en')}–${json.length.toLocaleString('en')} of ${json.length.toLocaleString('en')}`);
  await screenshot(page, 'everyday-11-huge-line-match');
  // Line start goes back to the head the page holds.
  await page.getByTestId('line-window-start').click();
  await expect(line.getByTestId('buffer-chars-before')).toHaveCount(0);
  await expect(line).toContainText('{"data":"yyy');
});
