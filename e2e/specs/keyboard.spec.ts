/**
 * The Tools screen by keyboard alone (Tab, Shift+Tab, arrows, Enter, Escape and the
 * screen's shortcuts; no mouse): choose a bundle and a tool, make a new version with an
 * edited field and save it, run the tester with arguments, save a test case and run it,
 * import a curl command from the import panel; create a bundle and a tool from scratch,
 * leaving the Monaco editors with Ctrl+M; cancel a tester run and a long OpenAPI import
 * with Escape. Every step moves the focus with the keys a person would press, so a control
 * that cannot be reached or used from the keyboard, or that drops the focus, fails the step.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { rpc, type RunningHost } from '../fixtures/host';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

// Names of this spec's own: the host is shared by the specs a worker runs.
const BUNDLE_ID = '019a0000-0000-7000-8000-00000000fb01';
const BUNDLE_SLUG = 'e2e-keyboard';
const BUNDLE_NAME = 'Keyboard only';
const TOOL_SLUG = 'kbd-calc';

const headers = (host: RunningHost) => ({ Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' });


async function rest(host: RunningHost, method: string, path: string, body: unknown): Promise<number> {
  const r = await fetch(`${host.url}tools/${path}`, { method, headers: headers(host), body: JSON.stringify(body) });
  return r.status;
}

async function toolsOf(host: RunningHost, bundleId: string): Promise<{ slug: string; version: string; description: string }[]> {
  const all: { slug: string; version: string; description: string }[] = [];
  let pageToken: string | undefined;
  do {
    const page = await rpc<{ items: { slug: string; version: string; description: string }[]; nextPageToken?: string }>(host, 'tools.list', {
      bundleIds: [bundleId],
      includeDisabled: true,
      pageSize: 100,
      ...(pageToken ? { pageToken } : {}),
    });
    all.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}

async function putBundle(host: RunningHost, id: string, slug: string, displayName: string): Promise<void> {
  expect(await rest(host, 'PUT', `bundles/${id}`, { slug, displayName, description: 'Driven by keyboard alone', isEnabled: true })).toBe(200);
}

/** A local tool in a bundle of this spec's own: the built-in calculator function, so the tester needs no network. */
async function seed(host: RunningHost): Promise<void> {
  await putBundle(host, BUNDLE_ID, BUNDLE_SLUG, BUNDLE_NAME);
  const status = await rest(host, 'PUT', `bundles/${BUNDLE_ID}/tools/${TOOL_SLUG}/version/1`, {
    displayName: 'Keyboard calculator',
    description: 'Version one',
    tags: ['e2e'],
    type: 'local',
    argSchema: { type: 'object', properties: { expression: { type: 'string', minLength: 1 } }, required: ['expression'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] },
    local: { functionId: 'math.calc' },
    isEnabled: true,
  });
  expect([201, 409]).toContain(status);
}

/** Opens the Tools screen with its shortcut and selects a bundle from the keyboard. */
async function openBundle(page: Page, shell: AppShell, slug = BUNDLE_SLUG): Promise<void> {
  await page.keyboard.press('Alt+2');
  await page.getByTestId('screen-tools').waitFor();
  await shell.tabTo(`[data-testid="bundle-${slug}"] button.bundle-item`);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId(`bundle-${slug}`).locator('button.bundle-item')).toHaveAttribute('aria-current', 'true');
}

/** An OpenAPI document with `n` operations (GET /items<i>/{id}). */
function bigDocument(n: number): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    paths[`/items${i}/{id}`] = {
      get: {
        operationId: `kbdItem${i}`,
        summary: `Item ${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    };
  }
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Many items', version: '1.0.0' }, servers: [{ url: 'https://items.keyboard.example/v1' }], paths });
}

test.describe('the Tools screen from the keyboard alone', () => {
  test.skip(({ host }) => !host, 'the bundle is set up through the headless host’s API');

  // The host is shared by the specs this worker runs: leave none of our tools in their lists.
  test.afterAll(async ({ host }) => {
    if (!host) return;
    const bundles = await rpc<{ items: { id: string; slug: string }[] }>(host, 'bundles.list', { includeDisabled: true, pageSize: 100 });
    for (const b of bundles.items.filter((x) => x.slug.startsWith('e2e-keyboard'))) {
      for (const t of await toolsOf(host, b.id)) await rpc(host, 'tools.delete', { bundleId: b.id, slug: t.slug, version: t.version });
      await rpc(host, 'bundles.delete', { bundleId: b.id });
    }
  });

  test('choose, edit, save, test, keep a test case and import a curl command', async ({ appPage: page, host }) => {
    test.setTimeout(90_000);
    const h = host!;
    await seed(h);
    const shell = new AppShell(page);

    // Choose the bundle, then the tool: its saved version opens read-only, focus on its title.
    await openBundle(page, shell);
    await shell.tabToTestId(`open-tool-${TOOL_SLUG}`);
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-editor')).toContainText('Keyboard calculator');
    await expect.poll(() => shell.focusMatches('#tool-editor-title')).toBe(true);

    // A new version: the focus lands on its version field; edit the description; Ctrl+S saves.
    await shell.tabToTestId('new-version');
    await page.keyboard.press('Enter');
    await expect.poll(() => shell.focusMatches('[data-testid="tool-form-version"]')).toBe(true);
    await page.keyboard.type('2');
    await shell.tabToTestId('tool-form-description');
    await shell.retype('Version two, edited from the keyboard');
    await page.keyboard.press('ControlOrMeta+S');
    await expect(page.getByTestId('tool-form-notice')).toContainText(`+${TOOL_SLUG} version 2`);
    await expect.poll(() => shell.focusMatches('#tool-editor-title')).toBe(true);
    expect((await toolsOf(h, BUNDLE_ID)).find((t) => t.version === '2')?.description).toBe('Version two, edited from the keyboard');

    // The tester: type the argument, Ctrl+Enter runs; so does Enter on Run, which keeps the focus.
    await shell.tabToTestId('arg-expression');
    await page.keyboard.type('6 * 7');
    await page.keyboard.press('ControlOrMeta+Enter');
    await expect(page.getByTestId('tester-result')).toContainText('42');
    await shell.tabToTestId('tester-run');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('history-list').getByTestId('history-item')).toHaveCount(2);
    expect(await shell.focusMatches('[data-testid="tester-run"]')).toBe(true);

    // A test case from these arguments: name it, Enter saves; then run them all.
    await shell.tabToTestId('testcase-name');
    await page.keyboard.type('six times seven');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('testcase-list')).toContainText('six times seven');
    await shell.tabToTestId('testcase-run-all', { back: true });
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('testcase-summary')).toContainText('1 passed, 0 failed');
    expect(await shell.focusMatches('[data-testid="testcase-run-all"]')).toBe(true);
    await screenshot(page, 'keyboard-tester');

    // The import panel: its tabs move with the arrows; from curl, Ctrl+Enter previews.
    await shell.tabTo('[data-testid="import-panel"] [role="tab"][aria-selected="true"]');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('import-tab-openapi')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByTestId('import-tab-curl')).toHaveAttribute('aria-selected', 'true');
    await shell.tabToTestId('curl-input');
    await page.keyboard.type(`curl 'https://api.keyboard.example/v1/items?id=7'`);
    await page.keyboard.press('ControlOrMeta+Enter');
    await shell.tabToTestId('curl-slug');
    await shell.retype('kbd-item');
    await shell.tabToTestId('curl-create');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('curl-created')).toContainText('kbd-item');
    await expect(page.getByTestId('tool-list').getByTestId('tool-kbd-item')).toBeVisible();
    expect((await toolsOf(h, BUNDLE_ID)).map((t) => t.slug)).toContain('kbd-item');
    await page.getByTestId('curl-created').scrollIntoViewIfNeeded();
    await screenshot(page, 'keyboard-import');
  });

  test('a new bundle and a new tool from scratch, leaving the JSON editors with Ctrl+M', async ({ appPage: page, host }) => {
    test.setTimeout(90_000);
    const shell = new AppShell(page);
    await page.keyboard.press('Alt+2');
    await page.getByTestId('screen-tools').waitFor();

    // A bundle: the form opens on its slug; Ctrl+S creates it and selects it.
    await shell.tabToTestId('new-bundle');
    await page.keyboard.press('Enter');
    await expect.poll(() => shell.focusMatches('[data-testid="bundle-form-slug"]')).toBe(true);
    await page.keyboard.type('e2e-keyboard-new');
    await shell.tabToTestId('bundle-form-name');
    await page.keyboard.type('Keyboard new');
    await page.keyboard.press('ControlOrMeta+S');
    await expect(page.getByTestId('bundle-form-notice')).toBeVisible();
    await expect(page.getByTestId('bundle-e2e-keyboard-new').locator('button.bundle-item')).toHaveAttribute('aria-current', 'true');

    // Delete asks first; Escape keeps the bundle and gives the focus back to Delete.
    await shell.tabToTestId('bundle-delete');
    await page.keyboard.press('Enter');
    await expect.poll(() => shell.focusMatches('[data-testid="bundle-delete-confirm"]')).toBe(true);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('bundle-delete-confirmation')).toHaveCount(0);
    expect(await shell.focusMatches('[data-testid="bundle-delete"]')).toBe(true);

    // A tool: slug, version, name, its type chosen with the arrows, its function.
    await shell.tabToTestId('new-tool', { back: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => shell.focusMatches('[data-testid="tool-form-slug"]')).toBe(true);
    await page.keyboard.type('kbd-new');
    await shell.tabToTestId('tool-form-version');
    await page.keyboard.type('1');
    await shell.tabToTestId('tool-form-name');
    await page.keyboard.type('Made by keyboard');
    await shell.tabToTestId('tool-form-type');
    await expect(page.getByTestId('tool-form-type')).toHaveValue('http');
    await page.keyboard.press('ArrowDown');
    await expect(page.getByTestId('tool-form-type')).toHaveValue('local');
    await shell.tabToTestId('tool-form-function');
    await page.keyboard.type('math.calc');

    // Into the argSchema editor, where Tab indents; Ctrl+M makes Tab move on, to Save.
    await page.keyboard.press('Tab');
    await expect.poll(() => shell.focusMatches('[data-testid="argschema-editor"] *')).toBe(true);
    await page.keyboard.press('Control+M');
    await shell.tabToTestId('tool-form-save', { max: 10 });
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-form-notice')).toContainText('+kbd-new version 1');
    await expect(page.getByTestId('tool-list').getByTestId('tool-kbd-new')).toBeVisible();
    if (host) {
      const bundles = await rpc<{ items: { id: string; slug: string }[] }>(host, 'bundles.list', { includeDisabled: true, pageSize: 100 });
      const created = bundles.items.find((b) => b.slug === 'e2e-keyboard-new')!;
      expect((await toolsOf(host, created.id)).map((t) => `${t.slug}@${t.version}`)).toEqual(['kbd-new@1']);
    }
  });

  test('Escape cancels a tester run that does not answer', async ({ appPage: page, host }) => {
    test.setTimeout(60_000);
    const h = host!;
    // A local API that never answers.
    const hung: http.ServerResponse[] = [];
    const server = http.createServer((_req, res) => void hung.push(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const before = (await rpc<{ allowedHosts: string[] }>(h, 'settings.get', {})).allowedHosts;
    try {
      await rpc(h, 'settings.set', { allowedHosts: [...before, `127.0.0.1:${port}`] });
      await seed(h);
      const status = await rest(h, 'PUT', `bundles/${BUNDLE_ID}/tools/kbd-hang/version/1`, {
        displayName: 'Never answers',
        description: 'A call that only a cancel ends',
        tags: [],
        type: 'http',
        argSchema: { type: 'object' },
        outputSchema: {},
        http: { method: 'GET', urlTemplate: `http://127.0.0.1:${port}/hang` },
        isEnabled: true,
      });
      expect([201, 409]).toContain(status);

      const shell = new AppShell(page);
      await openBundle(page, shell);
      await shell.tabToTestId('open-tool-kbd-hang');
      await page.keyboard.press('Enter');
      await shell.tabToTestId('tester-run');
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('tester-run')).toHaveText(/Running/);
      // The pressed button keeps the focus, so Escape reaches the tester.
      expect(await shell.focusMatches('[data-testid="tester-run"]')).toBe(true);
      await expect.poll(() => hung.length).toBe(1);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('tester-error')).toContainText('CANCELLED');
      expect(await shell.focusMatches('[data-testid="tester-run"]')).toBe(true);
    } finally {
      for (const res of hung) res.destroy();
      server.close();
      const now = (await rpc<{ allowedHosts: string[] }>(h, 'settings.get', {})).allowedHosts;
      await rpc(h, 'settings.set', { allowedHosts: now.filter((x) => x !== `127.0.0.1:${port}`) });
    }
  });

  test('a long OpenAPI import shows its progress and stops on Escape, listing what it created', async ({ appPage: page, host }) => {
    test.setTimeout(120_000);
    const h = host!;
    const bundleId = '019a0000-0000-7000-8000-00000000fb02';
    const slug = 'e2e-keyboard-openapi';
    const total = 400;
    await putBundle(h, bundleId, slug, 'Keyboard OpenAPI');
    const shell = new AppShell(page);
    await openBundle(page, shell, slug);

    // The From OpenAPI tab, with the arrows; the document is pasted into its text box.
    await shell.tabTo('[data-testid="import-panel"] [role="tab"][aria-selected="true"]');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('import-tab-openapi')).toHaveAttribute('aria-selected', 'true');
    await shell.tabToTestId('openapi-input');
    await page.keyboard.insertText(bigDocument(total));
    await shell.tabToTestId('openapi-parse');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('openapi-operations')).toContainText(`${total} operations`, { timeout: 30_000 });

    // The list of operations is one Tab stop: the arrows move in it, Space clears one.
    await shell.tabTo('[data-testid="openapi-op-list"] input');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Space');
    await expect(page.getByTestId('openapi-import')).toHaveText(`Import ${total - 1} operations`);
    await page.keyboard.press('Tab');
    expect(await shell.focusMatches('[data-testid="openapi-op-list"] *')).toBe(false);
    const chosen = total - 1;

    // Import: progress shows; Escape stops it after the tool being saved.
    await shell.tabToTestId('openapi-import', { back: true });
    await page.keyboard.press('Enter');
    const progress = page.getByTestId('openapi-progress');
    await expect.poll(async () => Number((await progress.getAttribute('data-done')) ?? 0), { timeout: 30_000 }).toBeGreaterThanOrEqual(5);
    await expect(progress).toContainText(`of ${chosen}`);
    await page.keyboard.press('Escape');
    const note = page.getByTestId('openapi-cancelled');
    await expect(note).toContainText('Import cancelled', { timeout: 30_000 });
    await expect(progress).toHaveCount(0);
    // The focus is back on Import, not lost.
    expect(await shell.focusMatches('[data-testid="openapi-import"]')).toBe(true);
    await note.scrollIntoViewIfNeeded();
    await screenshot(page, 'keyboard-openapi-cancelled');

    // What the panel says was created is exactly what the bundle holds, and it is not everything.
    const created = Number(/(\d+) tools? (?:was|were) created/.exec((await note.textContent()) ?? '')?.[1]);
    const inBundle = await toolsOf(h, bundleId);
    expect(created).toBeGreaterThanOrEqual(5);
    expect(created).toBeLessThan(chosen);
    expect(inBundle).toHaveLength(created);
    expect(inBundle.map((t) => t.slug)).not.toContain('kbd-item2');
    await expect(page.getByTestId('openapi-result').locator('[data-status="created"]')).toHaveCount(created);
    expect(await note.textContent()).toContain(`${chosen - created} operations were not imported`);
  });
});
