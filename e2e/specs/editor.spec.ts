import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import type { RunningHost } from '../fixtures/host';

/**
 * The bundle and tool editors: create a bundle and an HTTP tool (pointing at a local
 * server; the tool is only saved here), edit its argSchema in Monaco, make a new version;
 * bad input gets a message on the right field and changes nothing; leaving with unsaved
 * edits asks; Monaco stays responsive with a 10,000-line document.
 */

/** The part of a Monaco editor the tests use, through the hook JsonEditor installs (window.__toolsmithEditors). */
interface MonacoEditorLike {
  getValue(): string;
  setValue(value: string): void;
  getModel(): { getLineCount(): number; getLineMaxColumn(line: number): number } | null;
  setPosition(p: { lineNumber: number; column: number }): void;
  revealLineInCenter(line: number): void;
  focus(): void;
  onDidChangeModelContent(cb: () => void): { dispose(): void };
}
/** The page's window as these tests see it (this file compiles without the DOM library). */
interface TestWindow {
  __toolsmithEditors?: Record<string, MonacoEditorLike>;
  __keyPainted?: Promise<boolean>;
  __cspViolations?: string[];
  addEventListener(type: string, cb: () => void, opts?: { capture?: boolean; once?: boolean }): void;
  requestAnimationFrame(cb: () => void): number;
}

/** The text of a Monaco editor. */
function editorValue(page: Page, testId: string): Promise<string> {
  return page.evaluate((id) => (globalThis as unknown as TestWindow).__toolsmithEditors![id]!.getValue(), testId);
}

function setEditorValue(page: Page, testId: string, text: string): Promise<void> {
  return page.evaluate(([id, value]) => (globalThis as unknown as TestWindow).__toolsmithEditors![id]!.setValue(value), [testId, text] as const);
}

/**
 * Replaces the editor's text by typing it, as a person would. `holds` is the text the editor
 * then holds (the closing brackets it adds itself), when that is not the typed text.
 */
async function typeIntoEditor(page: Page, testId: string, text: string, holds = text): Promise<void> {
  const editor = page.getByTestId(testId).locator('.monaco-editor');
  await editor.waitFor();
  // In the text area, past the line numbers (.view-lines itself scrolls sideways with a long line).
  await editor.click({ position: { x: 80, y: 10 } });
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
  // What the checks below see is what was typed (a failure here shows the text the editor holds).
  await expect.poll(() => editorValue(page, testId), { message: `the ${testId} holds the typed text` }).toBe(holds);
}

async function rpc(host: RunningHost, name: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string } }> {
  const r = await fetch(`${host.url}rpc/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  return (await r.json()) as { ok: boolean; value?: unknown };
}

async function toolsOf(host: RunningHost | null, bundleSlug: string): Promise<{ slug: string; version: string; displayName: string; argSchema: unknown }[] | null> {
  if (!host) return null;
  const bundles = (await rpc(host, 'bundles.list', { includeDisabled: true, includeDeleted: true, pageSize: 100 })).value as { items: { id: string; slug: string }[] };
  const b = bundles.items.find((x) => x.slug === bundleSlug);
  if (!b) return [];
  const tools = (await rpc(host, 'tools.list', { bundleIds: [b.id], includeDisabled: true, includeDeleted: true, pageSize: 100 })).value as {
    items: { slug: string; version: string; displayName: string; argSchema: unknown }[];
  };
  return tools.items;
}

test.describe('the tool editor', () => {
  let server: http.Server;
  let port = 0;

  test.beforeAll(async () => {
    // A local API the saved tool points at; nothing calls it in this spec.
    server = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ forecast: 'sunny' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  test.afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('creates a bundle and an HTTP tool, edits its argSchema in Monaco, makes a new version', async ({ appPage, host }) => {
    test.setTimeout(90_000);
    const page = appPage;
    const shell = new AppShell(page);
    // The renderer runs under the strict CSP; any violation (Monaco, its workers, styles) is recorded.
    if (host) expect((await page.request.get(host.url)).headers()['content-security-policy']).toContain("script-src 'self'");
    await page.evaluate(() => {
      const w = globalThis as unknown as TestWindow & { document: { addEventListener(t: string, cb: (e: { violatedDirective: string; blockedURI: string }) => void): void } };
      w.__cspViolations = [];
      w.document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations!.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await shell.open('tools');

    // A new bundle: its id is a UUIDv7 made in the renderer, which the store accepts.
    await page.getByTestId('new-bundle').click();
    await expect(page.getByTestId('bundle-form-slug')).toBeFocused();
    await page.getByTestId('bundle-form-slug').fill('weather');
    await page.getByTestId('bundle-form-name').fill('Weather');
    await page.getByTestId('bundle-form-description').fill('Forecasts from a local service');
    await page.getByTestId('bundle-form-save').click();
    await expect(page.getByTestId('bundle-form-notice')).toBeVisible();
    await expect(page.getByTestId('bundle-list').getByTestId('bundle-weather')).toBeVisible();
    await screenshot(page, 'editor-bundle');

    // A new HTTP tool in it (the new bundle is the chosen one).
    await page.getByTestId('new-tool').click();
    await expect(page.getByTestId('tool-form-slug')).toBeFocused();
    // The tester keeps its place while the draft has no slug: the field does not move as it is typed in.
    await expect(page.getByTestId('tester-waiting')).toBeVisible();
    const before = await page.getByTestId('tool-form-slug').boundingBox();
    await page.getByTestId('tool-form-slug').fill('forecast');
    await expect(page.getByTestId('tester')).toBeVisible();
    expect(await page.getByTestId('tool-form-slug').boundingBox()).toEqual(before);
    await page.getByTestId('tool-form-name').fill('Forecast');
    await page.getByTestId('tool-form-description').fill('Tomorrow’s weather for a city');
    await page.getByTestId('tool-form-tags').fill('weather, forecast');
    await expect(page.getByTestId('tool-form-type')).toHaveValue('http');
    await page.getByTestId('tool-form-url').fill(`http://127.0.0.1:${port}/forecast/\${city}`);

    // Monaco runs offline: the editor is there (not the fallback) and its JSON worker validates
    // against the inline 2020-12 meta-schema, also when $schema names it (nothing is fetched).
    await typeIntoEditor(page, 'argschema-editor', '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"city": {"type": "strin"}}}');
    await expect(page.getByTestId('argschema-editor-problems')).toContainText('Value is not accepted', { timeout: 15_000 });
    await expect(page.getByTestId('argschema-editor-problems')).not.toContainText('Unable to load schema');
    await expect(page.getByTestId('tool-form-save')).toBeDisabled();

    await typeIntoEditor(page, 'argschema-editor', '{"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]}');
    expect(JSON.parse(await editorValue(page, 'argschema-editor'))).toEqual({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
    });
    await expect(page.getByTestId('argschema-editor-problems')).toBeEmpty({ timeout: 15_000 });
    await expect(page.getByTestId('tool-form-save')).toBeEnabled();
    await screenshot(page, 'editor-tool-draft');
    await page.getByTestId('tool-form-save').click();

    // Saved: shown read-only, listed, and stored with the schema typed in Monaco.
    await expect(page.getByTestId('tool-form-notice')).toContainText('Saved +forecast version 1.');
    await expect(page.getByTestId('tool-list').getByTestId('tool-forecast')).toBeVisible();
    await expect(page.getByTestId('tool-form-slug')).toHaveAttribute('readonly', '');
    const stored = await toolsOf(host, 'weather');
    if (stored) {
      expect(stored).toHaveLength(1);
      expect(stored[0]!.argSchema).toEqual({ type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] });
    }
    await screenshot(page, 'editor-tool-saved');

    // "New version" copies the tool into a draft with the version cleared; the same version is a conflict.
    await page.getByTestId('new-version').click();
    await expect(page.getByTestId('tool-form-version')).toHaveValue('');
    await expect(page.getByTestId('tool-form-version')).toBeFocused();
    await expect(page.getByTestId('tool-form-slug')).toHaveValue('forecast');
    await expect(page.getByTestId('tool-form-url')).toHaveValue(`http://127.0.0.1:${port}/forecast/\${city}`);
    await page.getByTestId('tool-form-version').fill('1');
    await page.getByTestId('tool-form-name').fill('Forecast (changed)');
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('field-error-version')).toHaveText('this <slug, version> exists: make a new version');
    await expect(page.getByTestId('tool-form-version')).toBeFocused();
    if (host) expect((await toolsOf(host, 'weather'))!.map((t) => [t.version, t.displayName])).toEqual([['1', 'Forecast']]);
    await screenshot(page, 'editor-conflict');

    await page.getByTestId('tool-form-version').fill('2');
    await expect(page.getByTestId('field-error-version')).toHaveCount(0);
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('tool-form-notice')).toContainText('Saved +forecast version 2.');
    if (host) expect((await toolsOf(host, 'weather'))!.map((t) => t.version).sort()).toEqual(['1', '2']);

    // Opening a tool from the list shows it, read-only.
    await page.getByTestId('open-tool-forecast').first().click();
    await expect(page.getByTestId('new-version')).toBeVisible();
    expect(shell.consoleErrors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as TestWindow).__cspViolations)).toEqual([]);
  });

  test('bad input gets a clear message on its field and saves nothing', async ({ appPage, host }) => {
    test.setTimeout(150_000);
    const page = appPage;
    const shell = new AppShell(page);
    await shell.open('tools');
    await page.getByTestId('new-bundle').click();
    await page.getByTestId('bundle-form-slug').fill('bad-input');
    await page.getByTestId('bundle-form-name').fill('Bad input');
    await page.getByTestId('bundle-form-save').click();
    await expect(page.getByTestId('bundle-list').getByTestId('bundle-bad-input')).toBeVisible();

    await page.getByTestId('new-tool').click();
    await page.getByTestId('tool-form-name').fill('Probe');
    await page.getByTestId('tool-form-url').fill(`http://127.0.0.1:${port}/probe`);

    // A slug with an underscore.
    await page.getByTestId('tool-form-slug').fill('read_file');
    await expect(page.getByTestId('field-error-slug')).toContainText("slug may contain letters, digits and '-' only");
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('tool-form-status')).toContainText('Fix the problem');
    await expect(page.getByTestId('tool-form-slug')).toBeFocused();
    await screenshot(page, 'editor-bad-slug');
    await page.getByTestId('tool-form-slug').fill('probe');
    await expect(page.getByTestId('field-error-slug')).toHaveCount(0);

    // A placeholder in the host.
    await page.getByTestId('tool-form-url').fill('http://${host}/probe');
    await expect(page.getByTestId('field-error-urlTemplate')).toContainText('placeholders may not stand in the scheme, user info, host or port');
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('tool-form-url')).toBeFocused();
    await screenshot(page, 'editor-bad-url');
    await page.getByTestId('tool-form-url').fill(`http://127.0.0.1:${port}/probe/\${id}`);
    await expect(page.getByTestId('field-error-urlTemplate')).toHaveCount(0);

    // Invalid JSON in the argSchema editor: Save is disabled and the error is shown.
    await typeIntoEditor(page, 'argschema-editor', '{"type": "object", "properties": ', '{"type": "object", "properties": }');
    await expect(page.getByTestId('field-error-argSchema')).toContainText('not valid JSON');
    await expect(page.getByTestId('tool-form-save')).toBeDisabled();
    await expect(page.getByTestId('argschema-editor-problems')).not.toBeEmpty({ timeout: 15_000 });
    await screenshot(page, 'editor-bad-json');

    // A schema that passes the meta-schema but does not compile: the store refuses it, on the field.
    await setEditorValue(page, 'argschema-editor', JSON.stringify({ type: 'object', properties: { id: { $ref: '#/$defs/missing' } } }, null, 2));
    await expect(page.getByTestId('field-error-argSchema')).toHaveCount(0);
    await expect(page.getByTestId('tool-form-save')).toBeEnabled();
    await page.getByTestId('tool-form-save').click();
    await expect(page.getByTestId('field-error-argSchema')).toContainText('cannot be resolved');
    await screenshot(page, 'editor-schema-compile');

    // Nothing was saved by any of these.
    if (host) expect(await toolsOf(host, 'bad-input')).toEqual([]);
    await expect(page.getByTestId('tool-list-empty')).toBeVisible();

    // Unsaved changes are never lost silently: leaving asks in the app's own dialog, and "Keep editing" keeps the draft.
    const unsaved = page.getByRole('alertdialog', { name: 'Discard unsaved changes?' });
    await page.getByTestId('nav-chat').click();
    await expect(unsaved).toBeVisible();
    await expect(unsaved.getByTestId('unsaved-keep')).toBeFocused();
    await unsaved.getByTestId('unsaved-keep').click();
    await expect(unsaved).toHaveCount(0);
    await expect(page.getByTestId('nav-chat')).toBeFocused();
    await expect(page.getByTestId('screen-tools')).toBeVisible();
    await expect(page.getByTestId('tool-form-slug')).toHaveValue('probe');
    // The keyboard shortcut asks too; Escape keeps editing, and the focus goes back to the field.
    await page.getByTestId('tool-form-name').focus();
    await page.keyboard.press('Alt+1');
    await expect(unsaved).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(unsaved).toHaveCount(0);
    await expect(page.getByTestId('tool-form-name')).toBeFocused();
    await expect(page.getByTestId('screen-tools')).toBeVisible();
    // The browser's back button asks too; Keep editing leaves the address on the Tools screen.
    await page.goBack();
    await expect(unsaved).toBeVisible();
    await expect(unsaved.getByTestId('unsaved-keep')).toBeFocused();
    await screenshot(page, 'editor-unsaved-changes');
    await unsaved.getByTestId('unsaved-keep').click();
    await expect(unsaved).toHaveCount(0);
    await expect(page).toHaveURL(/#\/tools$/);
    await expect(page.getByTestId('screen-tools')).toBeVisible();
    await expect(page.getByTestId('tool-form-slug')).toHaveValue('probe');
    // Discarding asks; Discard closes the draft.
    await page.getByTestId('tool-form-discard').click();
    await unsaved.getByTestId('unsaved-discard').click();
    await expect(page.getByTestId('editor-empty')).toBeVisible();
    // Discard on a move to another screen makes that move.
    await page.getByTestId('new-tool').click();
    await page.getByTestId('tool-form-name').fill('Probe 2');
    await page.getByTestId('nav-chat').click();
    await unsaved.getByTestId('unsaved-discard').click();
    await expect(page.getByTestId('screen-chat')).toBeVisible();
    await shell.open('tools');
    await expect(page.getByTestId('editor-empty')).toBeVisible();

    // Built-in bundles are read-only: no new tools, the bundle form has no save or delete.
    await page.getByTestId('bundle-list').getByTestId('bundle-files').getByRole('button').first().click();
    await expect(page.getByTestId('new-tool')).toBeDisabled();
    await page.getByTestId('edit-bundle').click();
    await expect(page.getByTestId('bundle-form-save')).toHaveCount(0);
    await expect(page.getByTestId('bundle-delete')).toHaveCount(0);
    await page.getByTestId('open-tool-readfile').click();
    await expect(page.getByTestId('new-version')).toHaveCount(0);
    await expect(page.getByTestId('argschema-editor').locator('.monaco-editor')).toBeVisible();

    // Soft delete, with confirmation and the "reaped in 2 days if empty" state; saving restores.
    await page.getByTestId('bundle-list').getByTestId('bundle-bad-input').getByRole('button').first().click();
    await page.getByTestId('edit-bundle').click();
    await page.getByTestId('bundle-delete').click();
    await expect(page.getByTestId('bundle-delete-confirm')).toBeFocused();
    await screenshot(page, 'editor-bundle-delete-confirm');
    await page.getByTestId('bundle-delete-confirm').click();
    await expect(page.getByTestId('bundle-deleted-note')).toContainText('reaped in 2 days if empty');
    await expect(page.getByTestId('bundle-bad-input')).toHaveClass(/deleted/);
    await screenshot(page, 'editor-bundle-deleted');
    await page.getByTestId('bundle-restore').click();
    await expect(page.getByTestId('bundle-deleted-note')).toHaveCount(0);
    await expect(page.getByTestId('bundle-bad-input')).not.toHaveClass(/deleted/);
    expect(shell.consoleErrors).toEqual([]);
  });

  test('when Monaco cannot load, the JSON fields are plain text boxes with the same checks', async ({ appPage }) => {
    const page = appPage;
    const shell = new AppShell(page);
    // The editor chunk is loaded on first use: refuse it.
    await page.route(/\/assets\/monaco-setup-[^/]*\.js$/, (route) => route.abort());
    await shell.open('tools');
    await page.getByTestId('new-bundle').click();
    await page.getByTestId('bundle-form-slug').fill('plain');
    await page.getByTestId('bundle-form-name').fill('Plain');
    await page.getByTestId('bundle-form-save').click();
    await page.getByTestId('new-tool').click();
    const box = page.getByTestId('argschema-editor').locator('textarea');
    await expect(box).toBeVisible();
    await expect(page.getByTestId('argschema-editor').locator('.monaco-editor')).toHaveCount(0);
    await box.fill('{"type": "object",');
    await expect(page.getByTestId('field-error-argSchema')).toContainText('not valid JSON');
    await expect(page.getByTestId('tool-form-save')).toBeDisabled();
    await box.fill('{"type": "object"}');
    await expect(page.getByTestId('field-error-argSchema')).toHaveCount(0);
    await expect(page.getByTestId('tool-form-save')).toBeEnabled();
    await screenshot(page, 'editor-fallback');
    // Only the refused chunk is reported; nothing else went wrong.
    expect(shell.consoleErrors.filter((e) => !/monaco-setup|Failed to load resource|dynamically imported module/i.test(e))).toEqual([]);
  });

  test('Monaco stays responsive with a 10,000-line JSON document', async ({ appPage }) => {
    test.setTimeout(90_000);
    const page = appPage;
    const shell = new AppShell(page);
    await shell.open('tools');
    await page.getByTestId('new-bundle').click();
    await page.getByTestId('bundle-form-slug').fill('big');
    await page.getByTestId('bundle-form-name').fill('Big');
    await page.getByTestId('bundle-form-save').click();
    await page.getByTestId('new-tool').click();
    await page.getByTestId('argschema-editor').locator('.monaco-editor').waitFor();

    // 10,000 lines: an object schema with 2,499 properties, pretty-printed.
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 2499; i++) properties[`field${i}`] = { type: 'string', description: `Field ${i}` };
    const big = JSON.stringify({ type: 'object', properties }, null, 2);
    const lines = big.split('\n').length;
    expect(lines).toBeGreaterThanOrEqual(10_000);

    // Set the value, and wait for the next painted frame after React has rendered.
    expect(
      await page.evaluate(
        (text) =>
          new Promise<boolean>((resolve) => {
            const w = globalThis as unknown as TestWindow;
            w.__toolsmithEditors!['argschema-editor']!.setValue(text);
            w.requestAnimationFrame(() => setTimeout(() => resolve(true), 0));
          }),
        big,
      ),
    ).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as TestWindow).__toolsmithEditors!['argschema-editor']!.getModel()!.getLineCount())).toBe(lines);

    // A keystroke at the end of line 5,000, five times: each reaches the model and a frame is painted after it.
    await page.evaluate(() => {
      const ed = (globalThis as unknown as TestWindow).__toolsmithEditors!['argschema-editor']!;
      ed.setPosition({ lineNumber: 5000, column: ed.getModel()!.getLineMaxColumn(5000) });
      ed.revealLineInCenter(5000);
      ed.focus();
    });
    let painted = 0;
    for (let k = 0; k < 5; k++) {
      await page.evaluate(() => {
        const w = globalThis as unknown as TestWindow;
        const ed = w.__toolsmithEditors!['argschema-editor']!;
        w.__keyPainted = new Promise<boolean>((resolve) => {
          const sub = ed.onDidChangeModelContent(() => {
            sub.dispose();
            w.requestAnimationFrame(() => setTimeout(() => resolve(true), 0));
          });
        });
      });
      await page.keyboard.press('x');
      if (await page.evaluate(() => (globalThis as unknown as TestWindow).__keyPainted!)) painted++;
    }
    // The editor showed the keystrokes and the page still answers.
    expect((await editorValue(page, 'argschema-editor')).split('\n')[4999]).toMatch(/x{5}$/);
    await expect(page.getByTestId('tool-form-slug')).toBeEditable();
    await screenshot(page, 'editor-10k-lines');

    // The work done: every keystroke reached the model and a frame was painted after it, the
    // document kept its lines plus the five characters, and the editor renders only the lines in
    // view, not 10,000.
    expect(painted).toBe(5);
    expect(await page.evaluate(() => (globalThis as unknown as TestWindow).__toolsmithEditors!['argschema-editor']!.getModel()!.getLineCount())).toBe(lines);
    expect(await editorValue(page, 'argschema-editor')).toHaveLength(big.length + 5);
    const renderedLines = await page.getByTestId('argschema-editor').locator('.view-line').count();
    expect(renderedLines).toBeGreaterThan(0);
    expect(renderedLines).toBeLessThan(500);
    expect(shell.consoleErrors).toEqual([]);
  });
});
