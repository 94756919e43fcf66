/**
 * Script tools in the window, as a user makes and meets them: a script tool started from a
 * template in the tool editor, a mistake marked as it is typed (and Save off until it parses),
 * tried live in the tester with its log lines under the result, saved, run from the chat's `+`
 * palette and called by a (scripted) model; an endless loop that ends with the time-limit
 * message while the window and the core stay responsive; and scripts dropped into the drop-in
 * folder, which ask before their first run — in the tester, in the palette and on a model's
 * call — showing their source with "Trust and run". Each screen is checked with axe too.
 */
import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { expect, screenshot, test } from '../fixtures';
import { callTool } from '../fixtures/model-steps';
import { rpc, type RunningHost } from '../fixtures/host';
import { AppShell } from '../pages/app-page';

const BUNDLE_ID = '019a0000-0000-7000-8000-00000005c401';
const BUNDLE_SLUG = 'e2e-scripts';
const BUNDLE_NAME = 'Script tools e2e';
const RUN = Date.now().toString(36);

/** The part of a Monaco editor the spec uses, through the hook the editor installs (window.__toolsmithEditors). */
interface MonacoLike {
  getValue(): string;
  setValue(value: string): void;
  focus(): void;
  setPosition(p: { lineNumber: number; column: number }): void;
  getModel(): { getLineCount(): number; getLineMaxColumn(line: number): number } | null;
}
type TestWindow = { __toolsmithEditors?: Record<string, MonacoLike> };

const ARG_SCHEMA = { type: 'object', properties: { text: { type: 'string', description: 'The text to count the words of' } }, required: ['text'], additionalProperties: false };

const WORD_COUNT = `/** @param {Args} args @param {ToolContext} ctx */
function run(args, ctx) {
  ctx.log('counting the words of ' + args.text.length + ' characters');
  const words = args.text.trim().split(/\\s+/).filter(Boolean);
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  console.warn('longest word: ' + longest);
  return { words: words.length, longest };
}
`;

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * axe on the page as it is, in the light and the dark theme (shown without saving it: the data
 * folder is shared with other specs): no serious or critical violation (listed by rule and target).
 */
async function expectAccessible(page: Page, what: string): Promise<void> {
  type Html = { document: { documentElement: { dataset: Record<string, string | undefined> } } };
  const before = await page.evaluate(() => (globalThis as unknown as Html).document.documentElement.dataset.theme);
  const found: string[] = [];
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => {
      (globalThis as unknown as Html).document.documentElement.dataset.theme = t;
    }, theme);
    // Let transitions and fetched content settle before judging colours.
    await page.waitForTimeout(150);
    const result = await new AxeBuilder({ page }).withTags(TAGS).exclude('[data-testid="mcp-app-frame"]').analyze();
    for (const v of result.violations) {
      if (v.impact === 'serious' || v.impact === 'critical') found.push(`[${what}, ${theme}] ${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`).join('; ')}`);
    }
  }
  await page.evaluate((t) => {
    (globalThis as unknown as Html).document.documentElement.dataset.theme = t;
  }, before);
  expect(found).toEqual([]);
}

/** The editor's text; null while it is not there (yet). */
function editorValue(page: Page, testId: string): Promise<string | null> {
  return page.evaluate((id) => (globalThis as unknown as TestWindow).__toolsmithEditors?.[id]?.getValue() ?? null, testId);
}

function setEditorValue(page: Page, testId: string, text: string): Promise<void> {
  return page.evaluate(([id, value]) => (globalThis as unknown as TestWindow).__toolsmithEditors![id]!.setValue(value), [testId, text] as const);
}

/** Puts the cursor at the end of the editor's text and gives it the keyboard. */
async function focusEnd(page: Page, testId: string): Promise<void> {
  await page.evaluate((id) => {
    const ed = (globalThis as unknown as TestWindow).__toolsmithEditors![id]!;
    const lines = ed.getModel()!.getLineCount();
    ed.setPosition({ lineNumber: lines, column: ed.getModel()!.getLineMaxColumn(lines) });
    ed.focus();
  }, testId);
}

async function ensureBundle(host: RunningHost): Promise<void> {
  await rpc(host, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: BUNDLE_SLUG, displayName: BUNDLE_NAME, description: 'Script tools made in the window', isEnabled: true } });
}

async function openBundle(page: Page, slug: string, name: RegExp): Promise<void> {
  await new AppShell(page).open('tools');
  await page.getByTestId('bundle-list').getByTestId(`bundle-${slug}`).getByRole('button', { name }).click();
}

/** A new script tool's draft, named and typed, its script started from the "compute" template. */
async function newScriptDraft(page: Page, slug: string): Promise<void> {
  await openBundle(page, BUNDLE_SLUG, new RegExp(BUNDLE_NAME));
  await page.getByTestId('new-tool').click();
  await page.getByTestId('tool-form-slug').fill(slug);
  await page.getByTestId('tool-form-version').fill('1');
  await page.getByTestId('tool-form-name').fill(`Word count ${RUN}`);
  await page.getByTestId('tool-form-description').fill('Counts the words of a text and names the longest.');
  await page.getByTestId('tool-form-type').selectOption('script');
  const templates = page.getByTestId('script-templates');
  await expect(templates).toHaveAttribute('open', '');
  await templates.locator('[data-testid^="script-template-"]').filter({ hasText: /comput/i }).first().click();
  await expect(page.getByTestId('script-template-status')).toContainText('Started from');
  await expect.poll(() => editorValue(page, 'script-editor')).toMatch(/function run\s*\(/);
}

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels(['gpt-4o-mini']);
});
test.afterAll(async () => {
  await server.close();
});

test.use({ viewport: { width: 1440, height: 900 } });

test('a script tool made from a template: a mistake marked as typed, tried live with its logs, saved, run from the palette and by a model', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec sets up its bundle through the headless host');
  test.setTimeout(240_000);
  const shell = new AppShell(page);
  await ensureBundle(host!);
  const slug = `e2e-words-${RUN}`;
  await newScriptDraft(page, slug);

  // The script of our own, with its argument schema: Args is typed from it.
  await setEditorValue(page, 'argschema-editor', JSON.stringify(ARG_SCHEMA, null, 2));
  await setEditorValue(page, 'script-editor', WORD_COUNT);
  await expect(page.getByTestId('script-editor-problems')).toBeEmpty();

  // 1. A mistake, typed: marked where it is, listed under the editor, and Save is off until it parses.
  await focusEnd(page, 'script-editor');
  await page.keyboard.type('const total = ;');
  const problems = page.getByTestId('script-editor-problems');
  await expect(problems.locator('li.field-error').first()).toContainText(/Line 9, column \d+: /, { timeout: 30_000 });
  await expect(page.locator('[data-testid="script-editor"] .squiggly-error').first()).toBeAttached();
  await expect(page.getByTestId('script-problems')).toContainText('Save is off until the script parses: 1 syntax error.');
  await expect(page.getByTestId('tool-form-save')).toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByTestId('tool-form-save')).toHaveAttribute('aria-describedby', 'tool-script-problems');
  await page.getByTestId('script-panel').scrollIntoViewIfNeeded();
  await screenshot(page, 'script-tools-1-mistake');
  await expectAccessible(page, 'editor with a mistake');

  // A type error is marked but does not stop the save: the checker knows `args` from the schema.
  await setEditorValue(page, 'script-editor', WORD_COUNT.replace('return { words', 'return { nosuch: args.nosuch, words'));
  await expect(problems).toContainText("Property 'nosuch' does not exist", { timeout: 30_000 });
  await expect(page.getByTestId('script-problems')).toContainText('1 problem in the script (it may still run).');
  await expect(page.getByTestId('tool-form-save')).not.toHaveAttribute('aria-disabled', 'true');
  await setEditorValue(page, 'script-editor', WORD_COUNT);
  await expect(page.getByTestId('script-problems')).toHaveCount(0, { timeout: 30_000 });

  // 2. Tried live: the draft runs in the tester, its logs under the result.
  const tester = page.getByTestId('tester');
  await tester.getByTestId('arg-text').fill('the quick brown fox jumps');
  await tester.getByTestId('tester-run').click();
  const result = tester.getByTestId('tester-result');
  await expect(result.getByTestId('tester-value')).toContainText('words: 5');
  await expect(result.getByTestId('tester-value')).toContainText('longest: "quick"');
  const logs = tester.getByTestId('script-logs');
  await expect(logs).toContainText('counting the words of 25 characters');
  await expect(logs.locator('[data-level="warn"]')).toContainText('longest word: quick');
  await screenshot(page, 'script-tools-2-tested');
  // The picture of docs/script-tools.md: a problem marked in the script as it is edited, and beside
  // it the result of the run and its logs. The editor is given a little more of the width.
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.getByTestId('workbench-divider').focus();
  await page.keyboard.press('Shift+ArrowRight');
  await setEditorValue(page, 'script-editor', WORD_COUNT.replace("  const longest", "  const limit = args.maxWords;\n  const longest"));
  await expect(problems).toContainText("Property 'maxWords' does not exist", { timeout: 30_000 });
  await focusEnd(page, 'script-editor');
  await page.getByTestId('script-panel').evaluate((el) => el.closest('fieldset')!.scrollIntoView({ block: 'start' }));
  await screenshot(page, 'script-tools-editor');
  await setEditorValue(page, 'script-editor', WORD_COUNT);
  await expect(page.getByTestId('script-problems')).toHaveCount(0, { timeout: 30_000 });
  await page.setViewportSize({ width: 1440, height: 900 });
  await expectAccessible(page, 'editor and tester with logs');

  // 3. Saved: a read-only version whose script is read back from its file.
  await page.getByTestId('tool-form-save').click();
  await expect(page.getByTestId('tool-form-notice')).toContainText(`Saved +${slug} version 1.`);
  await expect.poll(() => editorValue(page, 'script-editor')).toBe(WORD_COUNT);
  // "New version" copies the script and its limits into a draft.
  await page.getByTestId('new-version').click();
  await expect.poll(() => editorValue(page, 'script-editor')).toBe(WORD_COUNT);
  await expect(page.getByTestId('tool-editor').locator('.badge.unsaved')).toHaveCount(0);
  await page.getByTestId('tool-form-discard').click();

  // 4. From the palette in a chat.
  const provider = await shell.addProvider({ name: 'E2E scripts', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'gpt-4o-mini');
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially(`+${slug}`);
  const palette = page.getByTestId('palette');
  await palette.getByTestId(`palette-item-${slug}`).click();
  await palette.getByTestId('arg-text').fill('one two three');
  await palette.getByTestId('palette-run').click();
  const paletteCard = page.getByTestId('tool-card').filter({ hasText: `+${slug}` }).last();
  await expect(paletteCard).toHaveAttribute('data-status', 'ok');
  await expect(paletteCard).toContainText(/words\s*3\s*longest/);

  // 5. Called by a model.
  const step = callTool({ name: slug, args: { text: 'a model counts these four' }, search: 'count the words of a text', then: () => ({ kind: 'text', text: 'It has five words.' }) });
  // The fallback, not the queue: a step left over would answer the next test.
  server.fallback(step);
  await composer.fill('How many words?');
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('It has five words.', { timeout: 60_000 });
  const modelCard = page.getByTestId('tool-card').filter({ hasText: `+${slug}` }).last();
  await expect(modelCard).toHaveAttribute('data-status', 'ok');
  await expect(modelCard).toContainText(/words\s*5\s*longest/);
  await screenshot(page, 'script-tools-3-chat');
  expect(shell.consoleErrors.filter((e) => /Content Security Policy|Refused to/.test(e))).toEqual([]);
});

test('an endless loop ends at its time limit with a clear message, the window and the core answering meanwhile', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec sets up its bundle through the headless host');
  test.setTimeout(120_000);
  await ensureBundle(host!);
  await newScriptDraft(page, `e2e-loop-${RUN}`);
  await setEditorValue(page, 'argschema-editor', JSON.stringify({ type: 'object', properties: {} }, null, 2));
  await setEditorValue(page, 'script-editor', '/** @param {Args} args @param {ToolContext} ctx */\nfunction run(args, ctx) {\n  ctx.log("looping");\n  while (true) {}\n}\n');
  await page.getByTestId('script-limit-timeLimitMs').fill('1500');

  const tester = page.getByTestId('tester');
  await tester.getByTestId('tester-run').click();
  await expect(tester.getByTestId('tester-run')).toHaveText('Running…');
  // While it loops: the window takes typing, and the core answers other calls.
  const description = page.getByTestId('tool-form-description');
  await description.fill('Typed while the script loops.');
  await expect(description).toHaveValue('Typed while the script loops.');
  const pings = await Promise.all([1, 2, 3].map((i) => rpc<{ echo: string }>(host!, 'app.ping', { echo: `ping ${i}` })));
  expect(pings.map((p) => p.echo)).toEqual(['ping 1', 'ping 2', 'ping 3']);

  const error = tester.getByTestId('tester-error');
  await expect(error).toContainText('TIMEOUT', { timeout: 30_000 });
  await expect(tester.getByTestId('script-error-help')).toContainText('The script ran past its time limit and was stopped.');
  await expect(tester.getByTestId('script-logs')).toContainText('looping');
  await screenshot(page, 'script-tools-4-timeout');
  await expectAccessible(page, 'tester after a time-out');
});

/** The tools of the bundle "Drop-in tools" (slug drop-in), none before its first tool is dropped. */
async function droppedTools(host: RunningHost): Promise<{ bundleId: string; slug: string }[]> {
  const bundles = await rpc<{ items: { id: string; slug: string }[] }>(host, 'bundles.list', { pageSize: 100 });
  const bundle = bundles.items.find((b) => b.slug === 'drop-in');
  if (!bundle) return [];
  return (await rpc<{ items: { bundleId: string; slug: string }[] }>(host, 'tools.list', { bundleIds: [bundle.id], includeDisabled: true, pageSize: 100 })).items;
}

/** Drops a script tool into the drop-in folder: NAME.json and NAME.js. */
async function dropIn(host: RunningHost, name: string, source: string): Promise<void> {
  const info = await rpc<{ dropInDir: string }>(host, 'app.info', {});
  await fs.mkdir(info.dropInDir, { recursive: true });
  const tool = {
    slug: name,
    version: '1',
    displayName: `Dropped ${name}`,
    description: 'A script tool dropped into the drop-in folder.',
    tags: ['e2e'],
    type: 'script',
    argSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    outputSchema: {},
    isEnabled: true,
    script: {},
  };
  await fs.writeFile(path.join(info.dropInDir, `${name}.js`), source);
  await fs.writeFile(path.join(info.dropInDir, `${name}.json`), JSON.stringify(tool, null, 2));
}

test('a dropped script asks before its first run: in the tester, the palette and on a model’s call', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec drops files into the headless host’s data folder');
  test.setTimeout(240_000);
  const shell = new AppShell(page);
  const names = { tester: `e2e-drop-tester-${RUN}`, palette: `e2e-drop-palette-${RUN}`, model: `e2e-drop-model-${RUN}` };
  const greet = (how: string) => `/** @param {Args} args @param {ToolContext} ctx */\nfunction run(args, ctx) {\n  ctx.log('greeting ' + args.who);\n  return '${how}, ' + args.who + ' (${RUN})';\n}\n`;
  await dropIn(host!, names.tester, greet('Hello'));
  await dropIn(host!, names.palette, greet('Hi'));
  await dropIn(host!, names.model, greet('Greetings'));
  // Registered when they appear, in the bundle "Drop-in tools".
  await expect.poll(async () => (await droppedTools(host!)).filter((t) => t.slug.endsWith(RUN)).length, { timeout: 30_000 }).toBe(3);

  // Settings shows where the folder is and what to drop there.
  await shell.open('settings');
  const section = page.getByTestId('settings-script-tools');
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByTestId('drop-in-path')).toHaveText((await rpc<{ dropInDir: string }>(host!, 'app.info', {})).dropInDir);
  await expectAccessible(page, 'settings with script tools');

  // 1. The tester: the run is refused, the script shown; trusted, it runs.
  await openBundle(page, 'drop-in', /Drop-in tools/);
  await page.getByTestId(`tool-${names.tester}`).locator('.tool-open').click();
  await expect.poll(() => editorValue(page, 'script-editor')).toBe(greet('Hello'));
  const tester = page.getByTestId('tester');
  await tester.getByTestId('arg-who').fill('Ada');
  await tester.getByTestId('tester-run').click();
  await expect(tester.getByTestId('tester-error')).toContainText('FORBIDDEN');
  const review = tester.getByTestId('script-trust');
  await expect(review.getByRole('region', { name: /read-only/ })).toHaveText(greet('Hello'));
  await screenshot(page, 'script-tools-5-trust');
  await expectAccessible(page, 'tester asking for trust');
  await review.getByRole('button', { name: 'Trust and run' }).click();
  await expect(tester.getByTestId('tester-value')).toContainText(`Hello, Ada (${RUN})`);
  await expect(tester.getByTestId('script-logs')).toContainText('greeting Ada');

  // 2. The palette: the script is shown before the run, Run waits for "Trust and run".
  const provider = await shell.addProvider({ name: 'E2E dropped scripts', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'gpt-4o-mini');
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially(`+${names.palette}`);
  const palette = page.getByTestId('palette');
  await palette.getByTestId(`palette-item-${names.palette}`).click();
  await palette.getByTestId('arg-who').fill('Grace');
  const paletteReview = palette.getByTestId('script-trust');
  await expect(paletteReview.getByRole('region', { name: /read-only/ })).toHaveText(greet('Hi'));
  await expect(palette.getByTestId('palette-run')).toBeDisabled();
  await expectAccessible(page, 'palette asking for trust');
  await paletteReview.getByRole('button', { name: 'Trust and run' }).click();
  const paletteCard = page.getByTestId('tool-card').filter({ hasText: `+${names.palette}` }).last();
  await expect(paletteCard).toHaveAttribute('data-status', 'ok');
  await expect(paletteCard).toContainText(`Hi, Grace (${RUN})`);

  // 3. A model's call: the approval card shows the script; allowing it trusts it.
  const step = callTool({ name: names.model, args: { who: 'Linus' }, search: `greet someone ${names.model}`, then: () => ({ kind: 'text', text: 'Greeted.' }) });
  // The fallback, not the queue: a step left over would answer the next test.
  server.fallback(step);
  await composer.fill('Greet Linus, please.');
  await composer.press('Enter');
  const card = page.getByTestId('tool-card').filter({ hasText: `+${names.model}` }).last();
  await expect(card).toHaveAttribute('data-status', 'awaiting-approval', { timeout: 60_000 });
  await expect(card.getByTestId('approval-why-reason')).toContainText('comes from outside this app');
  await expect(card.getByTestId('approval-script').getByRole('region', { name: /read-only/ })).toHaveText(greet('Greetings'));
  await screenshot(page, 'script-tools-6-approval');
  await expectAccessible(page, 'approval card of a script');
  await card.getByTestId('approval-allow-once').click();
  await expect(page.getByTestId('message-list')).toContainText('Greeted.', { timeout: 60_000 });
  await expect(card).toHaveAttribute('data-status', 'ok');
  await expect(card).toContainText(`Greetings, Linus (${RUN})`);
  // Trusted from now on: it no longer asks.
  const dropped = (await droppedTools(host!)).find((t) => t.slug === names.model)!;
  expect(await rpc(host!, 'tools.approval', { bundleId: dropped.bundleId, slug: names.model, version: '1' })).toBeNull();
});
