/**
 * An MCP App, as a user meets it: a real App server published with the extension's SDK
 * (@modelcontextprotocol/server-basic-vanillajs) added on the Tools screen as a program. Its
 * `get-time`, run from the chat's `+` palette, asks in its card whether to show the server's
 * app; "Always show apps of …" shows the page in a sandboxed frame with the call's result. The
 * page's own button calls the tool again (the call asks in the app's window first: the tool
 * gives no hints), its message is posted to the chat once the person says so, and its link is
 * shown to be opened by hand. The tester shows the same app for its run. The frame cannot reach
 * the window, its cookies, the app's API or the top-level page.
 */
import path from 'node:path';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { addStdioServer, removeServers } from '../pages/mcp-servers';
import { rpc } from '../fixtures/host';

const SERVER = 'time-app';
const HOSTILE = 'hostile-apps';
const SELF = 'toolsmith-self';
const HOSTILE_ENTRY = path.resolve(import.meta.dirname, '..', '..', 'electron', 'core', 'mcp-apps', 'testing', 'hostile-apps-server.mjs');
const ENTRY = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js');
/** What a frame's script sees of its window (the specs compile without the DOM's types). */
interface FrameGlobal {
  origin: string;
  document: { cookie: string };
  localStorage: { length: number };
  parent: { document: { title: string } };
  top: { location: { href: string } };
  open(url: string): unknown;
  fetch: typeof fetch;
}

/** What the page shows for a time it got (an ISO timestamp). */
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

test.afterAll(async ({ host }) => {
  if (host) {
    await removeServers(host, [SERVER, HOSTILE, SELF]);
    const settings = await rpc<{ mcpServer: Record<string, unknown> }>(host, 'settings.get', {});
    await rpc(host, 'settings.set', { mcpServer: { ...settings.mcpServer, enabled: false, bundleIds: [] } });
  }
});

test.describe('MCP Apps', () => {
  test('an app in a chat card: asked first, shown with the result, its button calls the tool, its message is posted and its link shown; the tester shows it too', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    await addStdioServer(page, shell, host!, SERVER, [ENTRY, '--stdio']);

    // 1. + palette → get-time, run: the card asks whether to show the server's app.
    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    const composer = page.getByTestId('chat-composer');
    await composer.click();
    await composer.pressSequentially('+get-time');
    const palette = page.getByTestId('palette');
    await expect(palette.getByTestId('palette-item-get-time')).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('palette-form')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+Enter');
    const card = page.getByTestId('message-list').getByTestId('tool-card').filter({ hasText: '+get-time' }).last();
    await expect(card).toHaveAttribute('data-status', 'ok');
    const ask = card.getByTestId('mcp-app-ask');
    await expect(ask).toContainText(`'${SERVER}' offers an app for this tool.`);
    await expect(ask).toContainText('It reaches no other sites.');
    await screenshot(page, 'mcp-apps-1-ask');

    // 2. Always show apps of time-app: the page shows the time the call returned.
    await ask.getByRole('button', { name: `Always show apps of ${SERVER}` }).click();
    const app = card.getByTestId('mcp-app');
    await expect(app).toBeVisible();
    await expect(app.getByTestId('mcp-app-frame')).toHaveAttribute('sandbox', 'allow-scripts allow-forms');
    const frame = card.frameLocator('[data-testid=mcp-app-frame]');
    await expect(frame.locator('#server-time')).toHaveText(TIME);
    // Sized to what the page reported (more than the starting height, at most 720 px).
    await expect.poll(async () => (await app.getByTestId('mcp-app-frame').boundingBox())?.height ?? 0).toBeGreaterThan(200);
    await screenshot(page, 'mcp-apps-2-shown');

    // 3. The page's own button calls get-time: the window asks first, naming the app.
    const before = await frame.locator('#server-time').textContent();
    await frame.locator('#get-time-btn').click();
    const approval = page.getByTestId('mcp-approval');
    await expect(approval).toContainText(`The app of ${SERVER} (its page in a card) asks to run`);
    await expect(approval.getByTestId('mcp-approval-allow-session')).toHaveText('Allow for this app');
    await screenshot(page, 'mcp-apps-3-approval');
    await approval.getByTestId('mcp-approval-allow-session').click();
    await expect(approval).toHaveCount(0);
    await expect.poll(async () => frame.locator('#server-time').textContent()).not.toBe(before);
    await expect(frame.locator('#server-time')).toHaveText(TIME);
    // Allowed for this app: a second press does not ask again.
    await frame.locator('#get-time-btn').click();
    await expect(page.getByTestId('mcp-approval')).toHaveCount(0);

    // 4. Send Message: the card shows what the app wants to post; Post puts it in the chat.
    await frame.locator('#send-message-btn').click();
    const message = card.getByTestId('mcp-app-message');
    await expect(message).toContainText(`The app of ${SERVER} wants to post:`);
    await expect(message).toContainText('This is message text.');
    await screenshot(page, 'mcp-apps-4-message');
    // By keyboard: the question has the focus, Tab reaches Post.
    await expect(message).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(message.getByRole('button', { name: 'Post' })).toBeFocused();
    // It answers once it has been on screen a moment (a page cannot swap it under a click).
    await expect(message.getByRole('button', { name: 'Post' })).toHaveAttribute('aria-disabled', 'false');
    await page.keyboard.press('Enter');
    await expect(message).toHaveCount(0);
    // In the chat as the app's words, quoted: no line of it could run as a directive.
    const posted = page.getByTestId('message-list').getByText(`From the app of ${SERVER}:`);
    await expect(posted).toBeVisible();
    await expect(posted).toContainText('```text\nThis is message text.\n```');

    // 5. Open Link: the address is shown, with a real link to open and Cancel.
    await frame.locator('#open-link-btn').click();
    const link = card.getByTestId('mcp-app-link');
    await expect(link).toContainText('https://modelcontextprotocol.io/');
    await expect(link.getByRole('link', { name: 'Open' })).toHaveAttribute('href', 'https://modelcontextprotocol.io/');
    await expect(link.getByRole('link', { name: 'Open' })).toHaveAttribute('rel', 'noopener noreferrer');
    await link.getByRole('button', { name: 'Cancel' }).click();
    await expect(link).toHaveCount(0);

    // 6. A second run: a second app, shown at once (the server's apps are trusted now). Neither
    //    app can reach the other's document or address: each is its own opaque origin.
    await composer.click();
    await composer.pressSequentially('+get-time');
    await expect(palette.getByTestId('palette-item-get-time')).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('palette-form')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+Enter');
    const cards = page.getByTestId('message-list').getByTestId('tool-card').filter({ hasText: '+get-time' });
    await expect(cards).toHaveCount(2);
    await expect(cards.last().frameLocator('[data-testid=mcp-app-frame]').locator('#server-time')).toHaveText(TIME);
    const appFrames = page.frames().filter((f) => f.parentFrame() === page.mainFrame() && f.url() !== page.url() && !f.url().startsWith('about:'));
    expect(appFrames.length).toBe(2);
    const reach = await appFrames[1]!.evaluate(() => {
      const g = globalThis as unknown as { parent: { frames: { length: number; [i: number]: unknown } }; self: unknown };
      const out: string[] = [];
      for (let i = 0; i < g.parent.frames.length; i++) {
        const other = g.parent.frames[i] as { document: { title: string }; location: { href: string } };
        if (other === g.self) continue;
        for (const read of [() => other.document.title, () => other.location.href]) {
          try {
            out.push(`reached ${String(read())}`);
          } catch (e) {
            out.push(`refused ${(e as Error).name}`);
          }
        }
      }
      return out;
    });
    expect(reach).toEqual(['refused SecurityError', 'refused SecurityError']);

    // 7. The tester: the same app for its run, at once.
    await shell.open('tools');
    await page.getByTestId('bundle-list').getByTestId(`bundle-${SERVER}`).getByRole('button').first().click();
    await page.getByTestId('open-tool-get-time').click();
    const tester = page.getByTestId('tester');
    await tester.getByTestId('tester-run').click();
    await expect(tester.getByTestId('mcp-app')).toBeVisible();
    await expect(tester.frameLocator('[data-testid=mcp-app-frame]').locator('#server-time')).toHaveText(TIME);
    await screenshot(page, 'mcp-apps-5-tester');
  });

  test("the app's frame reaches neither the window, its cookies, the app's API nor the top-level page", async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    await shell.open('tools');
    const panel = page.getByTestId('mcp-servers');
    if ((await panel.getByTestId(`mcp-server-${SERVER}`).count()) === 0) await addStdioServer(page, shell, host!, SERVER, [ENTRY, '--stdio']);
    // The server's row: its apps asked about first again (the first test trusted them).
    const apps = panel.getByTestId(`mcp-server-${SERVER}`).getByTestId('mcp-apps-trust');
    await apps.selectOption('ask');
    await expect(apps).toHaveValue('ask');
    // The server's tools may still be coming in (a busy machine): its bundle is opened until they show.
    await expect(async () => {
      await page.getByTestId('bundle-list').getByTestId(`bundle-${SERVER}`).getByRole('button').first().click();
      await expect(page.getByTestId('open-tool-get-time')).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 60_000 });
    await page.getByTestId('open-tool-get-time').click();
    const tester = page.getByTestId('tester');
    await tester.getByTestId('tester-run').click();
    await tester.getByTestId('mcp-app-ask').getByRole('button', { name: 'Show the app' }).click();
    await expect(tester.frameLocator('[data-testid=mcp-app-frame]').locator('#server-time')).toHaveText(TIME);

    const appFrame = page.frames().find((f) => f.parentFrame() === page.mainFrame() && f.url().includes('127.0.0.1') && f.url() !== page.url())!;
    expect(appFrame).toBeTruthy();
    const apiUrl = new URL('/rpc/app.info', page.url()).href;
    const tries = await appFrame.evaluate(async (api) => {
      const g = globalThis as unknown as FrameGlobal;
      const attempt = async (f: () => unknown) => {
        try {
          const v = await f();
          return `reached: ${String(v).slice(0, 40)}`;
        } catch (e) {
          return `refused: ${(e as Error).name}`;
        }
      };
      return {
        origin: g.origin,
        cookie: await attempt(() => g.document.cookie),
        storage: await attempt(() => g.localStorage.length),
        parentDocument: await attempt(() => g.parent.document.title),
        api: await attempt(async () => (await g.fetch(api, { method: 'POST', credentials: 'include', body: '{}' })).status),
        popup: await attempt(() => {
          const w = g.open('https://example.com/');
          if (w) throw new Error('opened');
          return 'no window';
        }),
        top: await attempt(() => {
          g.top.location.href = 'https://example.com/';
          return 'assigned';
        }),
      };
    }, apiUrl);
    expect(tries.origin).toBe('null');
    expect(tries.cookie).toBe('refused: SecurityError');
    expect(tries.storage).toBe('refused: SecurityError');
    expect(tries.parentDocument).toBe('refused: SecurityError');
    expect(tries.api).toMatch(/^refused:/);
    expect(tries.popup).toBe('reached: no window');
    expect(tries.top).toMatch(/^refused:/);
    // The window is where it was, and still works.
    await expect(page).toHaveURL(/127\.0\.0\.1/);
    await expect(page.getByTestId('tester')).toBeVisible();
    // The frame's page was served once: loading its address again finds nothing.
    const again = await page.request.get(appFrame.url(), { headers: { 'Sec-Fetch-Dest': 'iframe' } });
    expect(again.status()).toBe(404);

    // Apps switched off on the server's row: the next run shows its value and no app.
    await apps.selectOption('never');
    await expect(apps).toHaveValue('never');
    await tester.getByTestId('tester-run').click();
    await expect(tester.getByTestId('tester-value')).toContainText('time');
    await expect(tester.getByTestId('mcp-app')).toHaveCount(0);
    await expect(tester.getByTestId('mcp-app-ask')).toHaveCount(0);
  });

  test('hostile apps are stopped with a sentence in their card, and the window goes on working', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    const row = await addStdioServer(page, shell, host!, HOSTILE, [HOSTILE_ENTRY]);
    await row.getByTestId('mcp-apps-trust').selectOption('always');
    await expect(row.getByTestId('mcp-apps-trust')).toHaveValue('always');
    await page.getByTestId('bundle-list').getByTestId(`bundle-${HOSTILE}`).getByRole('button').first().click();
    // The app-only tool is listed for a person (the tester runs it), never offered to a model.
    await expect(page.getByTestId('open-tool-app-only')).toBeVisible();
    const tester = page.getByTestId('tester');
    const run = async (slug: string) => {
      await page.getByTestId(`open-tool-${slug}`).click();
      await tester.getByTestId('tester-run').click();
      await expect(tester.getByTestId('tester-value')).toContainText('ok');
    };

    // A page served as another type is not shown.
    await run('wrong-type');
    await expect(tester.getByTestId('mcp-app-error')).toHaveText(`The app could not be shown: The app of '${HOSTILE}' cannot be shown: its page is text/plain, not an MCP App page (text/html;profile=mcp-app).`);

    // A page that leaves itself is stopped; the window stays where it is.
    await run('nav-app');
    await expect(tester.getByTestId('mcp-app-error')).toHaveText('The app left its page and was stopped.');
    await expect(tester.getByTestId('mcp-app-frame')).toHaveCount(0);
    await expect(tester.getByTestId('mcp-app-again')).toHaveText('Show the app');
    await screenshot(page, 'mcp-apps-6-navigated');

    // A page that floods the window is stopped after five seconds of it, and the window answers throughout.
    await run('flood-app');
    await expect(tester.getByTestId('mcp-app-frame')).toBeVisible();
    await expect(page.getByTestId('open-tool-reach-app')).toBeEnabled();
    await expect(tester.getByTestId('mcp-app-error')).toHaveText('The app sent more than 100 messages a second and was stopped. Show it again from its card.', { timeout: 20_000 });

    // A page that tries what it must not: each attempt refused, as its own report (in the server's log) says.
    await run('reach-app');
    await expect(tester.getByTestId('mcp-app-frame')).toBeVisible();
    await shell.open('tools');
    await row.getByTestId('mcp-log-toggle').click();
    const log = row.getByTestId('mcp-log');
    await expect(log).toContainText('app [info]: reach ', { timeout: 15_000 });
    const line = (await log.textContent())!.split('\n').find((l) => l.includes('app [info]: reach '))!;
    const report = JSON.parse(line.slice(line.indexOf('reach ') + 'reach '.length)) as Record<string, string>;
    expect(report).toEqual({
      parent: 'refused SecurityError',
      cookie: 'refused SecurityError',
      storage: 'refused SecurityError',
      api: 'refused TypeError',
      popup: 'reached no window',
      top: expect.stringMatching(/^refused /),
    });
    await expect(page).toHaveURL(/127\.0\.0\.1/);
    // The composer still works.
    await shell.open('chat');
    await expect(page.getByTestId('chat-composer')).toBeEditable();
  });

  test("Toolsmith's own served tool_usage, brought in over /mcp, shows its usage app in the tester", async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP endpoint is the headless host’s');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    await shell.open('tools');
    const panel = page.getByTestId('mcp-servers');
    if ((await panel.getByTestId(`mcp-server-${SERVER}`).count()) === 0) await addStdioServer(page, shell, host!, SERVER, [ENTRY, '--stdio']);
    // Two calls of get-time to count, then the time-app bundle served over /mcp.
    const servers = await rpc<{ name: string; bundleId: string }[]>(host!, 'mcpServers.list', {});
    const bundleId = servers.find((x) => x.name === SERVER)!.bundleId;
    for (let i = 0; i < 2; i++) await rpc(host!, 'tools.invoke', { bundleId, slug: 'get-time', version: '1', args: {}, source: 'api' });
    const settings = await rpc<{ mcpServer: Record<string, unknown> }>(host!, 'settings.get', {});
    await rpc(host!, 'settings.set', { mcpServer: { ...settings.mcpServer, enabled: true, bundleIds: [bundleId] } });
    const { token } = await rpc<{ token: string }>(host!, 'mcpServer.token', {});
    // This very Toolsmith, brought in as an MCP server (an app that renders apps: it sees tool_usage's page).
    await removeServers(host!, [SELF]);
    await rpc(host!, 'mcpServers.add', { server: { name: SELF, connection: { transport: 'http', url: `${host!.url}mcp`, headers: { Authorization: `Bearer ${token}` } }, apps: 'always' } });
    await page.reload();
    await shell.open('tools');
    await expect(page.getByTestId('mcp-servers').getByTestId(`mcp-server-${SELF}`).locator('[data-testid^="mcp-state-"]')).toHaveText('connected');
    await page.getByTestId('bundle-list').getByTestId(`bundle-${SELF}`).getByRole('button').first().click();
    await page.getByTestId('open-tool-tool-usage').click();
    const tester = page.getByTestId('tester');
    await tester.getByTestId('arg-tool').fill('get-time');
    await tester.getByTestId('tester-run').click();
    const frame = tester.frameLocator('[data-testid=mcp-app-frame]');
    await expect(frame.locator('h1')).toContainText('get-time');
    // The same count as the Tools screen's usage panel (other tests of this worker call get-time too).
    const stats = await rpc<{ calls: number }>(host!, 'tools.usageStats', { bundleId, slug: 'get-time', version: '1' });
    expect(stats.calls).toBeGreaterThanOrEqual(2);
    await expect(frame.locator('.figure').first()).toHaveText(`${stats.calls}calls`);
    await tester.getByTestId('mcp-app').scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-apps-7-served-usage');
  });
});
