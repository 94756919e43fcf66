/**
 * Settings and Inspect as a new user meets them: Settings' section links (one click or key
 * away, the focus on the section's heading, at 1440 and 1024 px); Inspect naming the
 * conversation it shows and letting the user pick another; Memory naming its memories by
 * title; and a run that fails for a missing secret or a host not allowed offering the fix.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';

const BUNDLE_ID = '019a0000-0000-7000-8000-0000000e3001';
const SECRET = 'E2E_FIXIT_TOKEN';

let server: http.Server;
let origin = '';

test.beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A section link moves the view to its section and puts the focus on its heading. */
async function sectionLinks(page: Page, width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  const shell = new AppShell(page);
  await shell.open('settings');
  const nav = page.getByTestId('settings-nav');
  await expect(nav).toBeVisible();
  // Every link leads to a heading of the page.
  for (const href of await nav.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))) {
    await expect(page.locator(href)).toHaveCount(1);
  }

  // By mouse: the Secrets section, far down the page.
  const secrets = nav.getByRole('link', { name: 'Secrets' });
  await secrets.click();
  const heading = page.locator('#secrets-title');
  await expect(heading).toBeFocused();
  await expect(heading).toBeInViewport();
  await expect(secrets).toHaveAttribute('aria-current', 'location');
  // The links stay at hand while the page scrolls.
  await expect(nav).toBeInViewport();
  await screenshot(page, `settings-nav-${width}`);

  // By keyboard: Tab to a link, Enter.
  const approvals = nav.getByRole('link', { name: 'Approvals' });
  await approvals.focus();
  await page.keyboard.press('Enter');
  const approvalsHeading = page.locator('#approvals-title');
  await expect(approvalsHeading).toBeFocused();
  await expect(approvalsHeading).toBeInViewport();
  await expect(approvals).toHaveAttribute('aria-current', 'location');
  await expect(nav).toBeInViewport();
  // The screen is still Settings (the links do not change the app's address).
  await expect(page.getByTestId('screen-settings')).toBeVisible();
}

test.describe('Settings section links', () => {
  test('1440: a section link brings its section into view with the focus on its heading', async ({ appPage: page }) => {
    await sectionLinks(page, 1440, 900);
  });
  test('1024: a section link brings its section into view with the focus on its heading', async ({ appPage: page }) => {
    await sectionLinks(page, 1024, 768);
  });
});

/** Two conversations: one with a buffer and a memory block, one with nothing. */
async function twoConversations(host: RunningHost): Promise<{ full: { id: string; title: string }; empty: { id: string; title: string } }> {
  const stamp = Date.now().toString(36);
  await fs.mkdir(path.join(host.dataDir, 'workspace', 'e2e-i30'), { recursive: true });
  await fs.writeFile(path.join(host.dataDir, 'workspace', 'e2e-i30', 'notes.txt'), 'one\ntwo\nthree\n');
  const full = await rpc<{ id: string; title: string }>(host, 'conversations.create', { title: `Alpha notes ${stamp}` });
  await rpc(host, 'chat.send', { conversationId: full.id, text: '@input file:e2e-i30/notes.txt (output=variable:gathered)\n@model none' });
  await rpc(host, 'memory.blocks.create', { owner: `conversation:${full.id}`, label: 'persona', content: 'A careful tester.' });
  const empty = await rpc<{ id: string; title: string }>(host, 'conversations.create', { title: `Empty beta ${stamp}` });
  return { full, empty };
}

test.describe('Inspect names its conversation', () => {
  test('the panels say which conversation they show, and another can be picked', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec makes its conversations over the headless host');
    await page.setViewportSize({ width: 1440, height: 900 });
    const { full, empty } = await twoConversations(host!);
    const shell = new AppShell(page);
    await shell.open('chat');
    await page.locator(`[data-testid="conversation-item"][data-conversation-id="${empty.id}"] button`).first().click();

    await shell.open('inspect');
    const picker = page.getByTestId('inspect-conversation');
    await expect(picker).toBeVisible();
    await expect(picker.locator('option:checked')).toHaveText(empty.title);
    await expect(page.getByTestId('inspect-empty-buffers')).toHaveText(`No buffers in “${empty.title}”. Route a tool’s output to a buffer with output=variable:NAME and it appears here.`);
    await screenshot(page, 'inspect-buffers-empty-named');

    // Another conversation, picked here: its buffer is listed.
    await picker.selectOption(full.id);
    await expect(page.getByTestId('buffer-item-gathered')).toBeVisible();
    await screenshot(page, 'inspect-buffers-picked');

    // Stored outputs and the timeline name it too.
    await page.getByTestId('inspect-tab-timeline').click();
    await expect(page.getByTestId('inspect-conversation').locator('option:checked')).toHaveText(full.title);
    await page.getByTestId('inspect-tab-outputs').click();
    await expect(page.getByTestId('inspect-conversation').locator('option:checked')).toHaveText(full.title);

    // Memory: the memory is named by its conversation's title, the id kept in a tooltip.
    await page.getByTestId('inspect-tab-memory').click();
    const owner = page.getByTestId('memory-owner');
    await expect(owner.locator('option:checked')).toContainText(full.title);
    await expect(owner.locator('option:checked')).not.toContainText(full.id);
    await expect(owner).toHaveAttribute('title', `conversation:${full.id}`);
    await expect(page.getByTestId('memory-block-row')).toHaveCount(1);
    await screenshot(page, 'inspect-memory-named');

    // Back to the empty one: Memory says whose memory is empty.
    await page.getByTestId('inspect-conversation').selectOption(empty.id);
    await expect(owner.locator('option:checked')).toContainText(empty.title);
    await expect(page.getByTestId('memory-no-blocks')).toContainText(`No blocks in “${empty.title}”`);
  });
});

async function httpTool(host: RunningHost, slug: string, url: string, headers: Record<string, string> = {}): Promise<void> {
  await rpc(host, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: 'fixit-e2e', displayName: 'Fix-it e2e', description: 'Tools that fail for want of a secret or a host', isEnabled: true } });
  const made = await rpc<{ items: { slug: string }[] }>(host, 'tools.list', { bundleIds: [BUNDLE_ID], includeDisabled: true, pageSize: 100 });
  if (made.items.some((t) => t.slug === slug)) return;
  await rpc(host, 'tools.put', {
    bundleId: BUNDLE_ID,
    slug,
    version: '1',
    body: {
      displayName: slug,
      description: 'A tool that cannot run yet',
      tags: [],
      type: 'http',
      argSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: {},
      http: { method: 'GET', urlTemplate: url, headers },
      isEnabled: true,
    },
  });
}

async function runInTester(page: Page, slug: string): Promise<void> {
  const shell = new AppShell(page);
  await shell.open('tools');
  await page.getByTestId('bundle-list').getByTestId('bundle-fixit-e2e').getByRole('button', { name: /Fix-it e2e/ }).click();
  await page.getByTestId(`tool-${slug}`).locator('.tool-open').click();
  const tester = page.getByTestId('tester');
  await expect(tester).toBeVisible();
  await tester.getByTestId('tester-run').click();
  await expect(tester.getByTestId('tester-error')).toBeVisible();
}

test.describe('a failed run offers its fix', () => {
  test('a secret that is not set: the button opens Secrets with its name filled in', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec makes its tools over the headless host');
    await page.setViewportSize({ width: 1440, height: 900 });
    const settings = await rpc<{ allowedHosts: string[] }>(host!, 'settings.get', {});
    const hostPort = origin.replace('http://', '');
    if (!settings.allowedHosts.includes(hostPort)) await rpc(host!, 'settings.set', { allowedHosts: [...settings.allowedHosts, hostPort] });
    await httpTool(host!, 'needs-secret', `${origin}/data`, { Authorization: `Bearer \${secret:${SECRET}}` });
    await runInTester(page, 'needs-secret');
    const fix = page.getByTestId('tester').getByTestId('fix-it');
    await expect(fix).toHaveText(`Set the secret ${SECRET}`);
    await screenshot(page, 'fixit-secret-button');
    await fix.click();
    await expect(page.getByTestId('screen-settings')).toBeVisible();
    await expect(page.getByTestId('secret-name')).toHaveValue(SECRET);
    await expect(page.getByTestId('secret-value')).toBeFocused();
    await expect(page.getByTestId('secret-value')).toBeInViewport();
    await screenshot(page, 'fixit-secret-settings');
  });

  test('a host not allowed: the button opens the allowed hosts with the host added', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec makes its tools over the headless host');
    await page.setViewportSize({ width: 1440, height: 900 });
    await httpTool(host!, 'needs-host', 'http://not-allowed.e2e.example/data');
    await runInTester(page, 'needs-host');
    const fix = page.getByTestId('tester').getByTestId('fix-it');
    await expect(fix).toHaveText('Allow the host not-allowed.e2e.example');
    await fix.click();
    await expect(page.getByTestId('screen-settings')).toBeVisible();
    const hosts = page.getByTestId('settings-allowed-hosts');
    await expect(hosts).toBeFocused();
    expect((await hosts.inputValue()).split('\n').map((l) => l.trim())).toContain('not-allowed.e2e.example');
    // Added, not saved: Save is the user's.
    await expect(page.getByTestId('settings-save')).toBeEnabled();
    await screenshot(page, 'fixit-host-settings');
  });
});
