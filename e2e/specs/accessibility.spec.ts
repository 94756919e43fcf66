/**
 * Accessibility of the main screens and their important states, checked with axe against
 * WCAG 2.2 AA, in the light and the dark theme: the chat (empty; a message with its actions and
 * a tool card; a call awaiting approval; the + palette and a palette form), Tools (the list, a
 * tool open in the editor and tester, the import panel), every Inspect tab, and Settings (the
 * page and a provider form). A serious or critical violation fails, named with its rule,
 * impact, targets and summary. The pages inside MCP App frames are other people's and are not
 * checked here.
 */
import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { ARTIFACTS, expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';
import { AppShell } from '../pages/app-page';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const BLOCKING = new Set(['serious', 'critical']);
const BUNDLE_ID = '019a0000-0000-7000-8000-0000000a1101';
const SLUG = 'a11y-echo';
const INSPECT_TABS = ['buffers', 'files', 'documents', 'outputs', 'memory', 'tasks', 'timeline'] as const;

test.use({ viewport: { width: 1440, height: 900 } });

type Finding = { screen: string; id: string; impact: string; help: string; targets: string[]; summary: string };

/** Checks the page as it is now; records its serious and critical violations under `screen`. */
async function check(page: Page, screen: string, findings: Finding[], counts: Record<string, number>): Promise<void> {
  // Let transitions and fetched content settle before judging colours.
  await page.waitForTimeout(150);
  const result = await new AxeBuilder({ page }).withTags(TAGS).exclude('[data-testid="mcp-app-frame"]').analyze();
  let n = 0;
  for (const v of result.violations) {
    if (!BLOCKING.has(v.impact ?? '')) continue;
    for (const node of v.nodes) {
      n++;
      findings.push({
        screen,
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: node.target.map(String),
        summary: (node.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
      });
    }
  }
  counts[screen] = n;
}

function report(findings: Finding[]): string {
  return findings.map((f) => `[${f.screen}] ${f.id} (${f.impact}): ${f.help}\n    at ${f.targets.join(' ')}\n    ${f.summary}`).join('\n');
}

async function addBundle(host: RunningHost): Promise<void> {
  await rpc(host, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: 'a11y-bundle', displayName: 'Accessibility bundle', description: 'A tool to look at', isEnabled: true } });
  const made = await rpc<{ items: { slug: string }[] }>(host, 'tools.list', { bundleIds: [BUNDLE_ID], includeDisabled: true, pageSize: 100 });
  // One tool on, one switched off (a switched-off row is drawn fainter).
  for (const [slug, isEnabled] of [[SLUG, true], [`${SLUG}-off`, false]] as const) {
    if (made.items.some((t) => t.slug === slug)) continue;
    await rpc(host, 'tools.put', {
      bundleId: BUNDLE_ID,
      slug,
      version: '1',
      body: {
        displayName: isEnabled ? 'Accessible echo' : 'Accessible echo (off)',
        description: 'Echoes the city',
        tags: ['a11y'],
        type: 'http',
        argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        outputSchema: {},
        http: { method: 'GET', urlTemplate: 'https://api.a11y.example/echo?city=${city}' },
        isEnabled,
      },
    });
  }
}

/** A provider of the scripted model server under a name no other provider has; answers its name. */
async function addProvider(host: RunningHost, server: ScriptedModelServer): Promise<string> {
  const providerName = `A11y local ${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const provider = await rpc<{ id: string }>(host, 'providers.save', { provider: { name: providerName, kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-a11y-0123456789' } });
  await rpc(host, 'providers.test', { id: provider.id });
  return providerName;
}

/** Shows the theme without saving it (the data folder is shared with other specs). */
async function applyTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((t) => {
    (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset.theme = t;
  }, theme);
}

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels(['a11y-model']);
});
test.afterAll(async () => {
  await server.close();
});

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} theme: no serious or critical WCAG 2.2 AA violation on the main screens and their states`, async ({ appPage: page, host }) => {
    test.skip(!host, 'sets up its bundle and provider through the headless host');
    test.setTimeout(240_000);
    await addBundle(host!);
    const shell = new AppShell(page);
    const findings: Finding[] = [];
    const counts: Record<string, number> = {};
    const at = async (screen: string) => {
      await applyTheme(page, theme);
      await check(page, screen, findings, counts);
    };

    // Chat: empty (in a fresh data folder, with the first-run checklist).
    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    await expect(page.getByTestId('message-list')).toBeVisible();
    await at('chat-empty');
    await screenshot(page, `a11y-${theme}-chat-empty`);
    const providerName = await addProvider(host!, server);

    // Chat: an answer with its actions.
    await shell.pickModel(providerName, 'a11y-model');
    const composer = page.getByTestId('chat-composer');
    server.script([{ kind: 'text', text: 'Paris is in **France**.' }]);
    await composer.fill('Where is Paris?');
    await composer.press('Enter');
    await expect(page.getByTestId('message-assistant').last()).toContainText('Paris is in France.');

    // The + palette, then a palette form, then its run as a tool card.
    await composer.click();
    await composer.pressSequentially('+readfile');
    const palette = page.getByTestId('palette');
    await expect(palette.getByTestId('palette-item-readfile').first()).toBeVisible();
    await at('chat-palette');
    await page.keyboard.press('Enter');
    await expect(palette.getByTestId('arg-path')).toBeVisible();
    await at('chat-palette-form');
    await palette.getByTestId('arg-path').fill('e2e-a11y/missing.txt');
    await palette.getByTestId('palette-run').click();
    const runCard = page.getByTestId('tool-card').filter({ hasText: '+readfile' }).last();
    await expect(runCard.getByTestId('tool-card-status')).toHaveText(/ok|error/);
    await at('chat-message-and-tool-card');
    await screenshot(page, `a11y-${theme}-chat`);

    // A call awaiting approval, then the reason box of Deny.
    server.script([
      { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'write text into a file in the workspace' } }] },
      { kind: 'tools', calls: [{ name: 'writefile', arguments: { path: 'e2e-a11y/x.txt', content: 'x' } }] },
      { kind: 'text', text: 'Understood.' },
    ]);
    await composer.fill('Write x somewhere');
    await composer.press('Enter');
    const approval = page.locator('[data-testid="tool-card"][data-status="awaiting-approval"]');
    await expect(approval.getByTestId('approval-deny')).toBeVisible();
    await at('chat-approval');
    await approval.getByTestId('approval-deny').click();
    await approval.getByTestId('approval-deny-reason-input').fill('not there');
    await at('chat-deny-reason');
    await screenshot(page, `a11y-${theme}-chat-approval`);
    await approval.getByTestId('approval-deny-reason-send').click();
    await expect(page.getByTestId('message-list')).toContainText('Understood.');
    await expect(page.locator('[data-testid="tool-card"][data-status="denied"]').last()).toBeVisible();
    await at('chat-denied');

    // Tools: the list, a tool in the editor and tester, the import panel.
    await shell.open('tools');
    await page.getByTestId('bundle-list').getByTestId('bundle-a11y-bundle').getByRole('button', { name: 'Accessibility bundle' }).click();
    await expect(page.getByTestId(`tool-${SLUG}`)).toBeVisible();
    await expect(page.getByTestId(`tool-${SLUG}-off`)).toBeVisible();
    await at('tools-list');
    await expect(page.getByTestId('import-panel')).toBeVisible();
    await at('tools-import');
    await screenshot(page, `a11y-${theme}-tools`);
    await page.getByTestId(`tool-${SLUG}`).locator('.tool-open').click();
    await expect(page.getByTestId('tester')).toBeVisible();
    await expect(page.locator('.monaco-editor').first()).toBeVisible();
    await at('tools-editor-tester');
    await screenshot(page, `a11y-${theme}-tools-editor`);

    // Inspect: each tab.
    await shell.open('inspect');
    for (const tab of INSPECT_TABS) {
      await page.getByTestId(`inspect-tab-${tab}`).click();
      await expect(page.getByTestId(`inspect-tab-${tab}`)).toHaveAttribute('aria-selected', 'true');
      await at(`inspect-${tab}`);
    }
    await screenshot(page, `a11y-${theme}-inspect`);

    // Settings: the page (every section), and the form of a new provider.
    await shell.open('settings');
    await expect(page.getByTestId('settings-nav')).toBeVisible();
    await at('settings');
    await screenshot(page, `a11y-${theme}-settings`);
    await page.getByTestId('provider-add').click();
    await expect(page.getByTestId('provider-form-name')).toBeVisible();
    await at('settings-provider-form');

    await fs.mkdir(ARTIFACTS, { recursive: true });
    await fs.writeFile(path.join(ARTIFACTS, `a11y-${theme}.json`), JSON.stringify({ counts, findings }, null, 2));
    expect(findings, `serious or critical violations (${theme} theme):\n${report(findings)}`).toEqual([]);
  });
}
