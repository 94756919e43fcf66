/**
 * Saved test cases run as a suite from the Tools screen: a bundle's cases, then every
 * bundle's, in one report with pass/fail per case, timings, and for a failure the expected
 * and actual value as a diff; a long suite shows its progress and is cancelled with Esc.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';


const BUNDLE_ID = '019a0000-0000-7000-8000-00000005e701';
const BUNDLE_SLUG = 'suite-e2e';
const SLUG = 'suite-count';
const SLOW_BUNDLE_ID = '019a0000-0000-7000-8000-00000005e702';
const SLOW_BUNDLE_SLUG = 'suite-slow-e2e';

/** A bundle of this spec's own, its tool (the built-in word count, no network) switched on, and exactly these cases. */
async function setUp(host: RunningHost, bundleId: string, slug: string, name: string, tool: { slug: string; body: unknown }, cases: { name: string; args: unknown; assertions: unknown[] }[]): Promise<void> {
  await rpc(host, 'bundles.put', { bundleId, body: { slug, displayName: name, description: 'Test cases run as a suite', isEnabled: true } });
  const made = await rpc<{ items: { slug: string }[] }>(host, 'tools.list', { bundleIds: [bundleId], includeDisabled: true, pageSize: 100 });
  if (!made.items.some((t) => t.slug === tool.slug)) await rpc(host, 'tools.put', { bundleId, slug: tool.slug, version: '1', body: tool.body });
  for (const old of await rpc<{ id: string }[]>(host, 'testcases.list', { bundleId, slug: tool.slug })) await rpc(host, 'testcases.delete', { bundleId, slug: tool.slug, id: old.id });
  for (const c of cases) await rpc(host, 'testcases.save', { bundleId, slug: tool.slug, testCase: c });
}

const COUNT_TOOL = {
  slug: SLUG,
  body: {
    displayName: 'Suite count',
    description: 'Counts words',
    tags: ['e2e'],
    type: 'local',
    argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object' },
    local: { functionId: 'text.count' },
    isEnabled: true,
  },
};

/** Answers nothing until the test lets it (the suite's cases wait), so the suite can be seen running and cancelled. */
let server: http.Server;
let origin = '';
const held: http.ServerResponse[] = [];

test.beforeAll(async () => {
  server = http.createServer((_req, res) => {
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  for (const res of held.splice(0)) res.end('{}');
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The slow bundle: one HTTP tool that waits on this spec's server, three cases (its host allowed). */
async function setUpWaitingBundle(host: RunningHost): Promise<void> {
  const settings = await rpc<{ allowedHosts: string[] }>(host, 'settings.get', {});
  const hostPort = origin.replace('http://', '');
  if (!settings.allowedHosts.includes(hostPort)) await rpc(host, 'settings.set', { allowedHosts: [...settings.allowedHosts, hostPort] });
  const waitTool = {
    slug: 'suite-wait',
    body: {
      displayName: 'Suite wait',
      description: 'Answers when the test lets it',
      tags: ['e2e'],
      type: 'http',
      argSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      outputSchema: {},
      http: { method: 'GET', urlTemplate: `${origin}/wait?n=\${n}` },
      isEnabled: true,
    },
  };
  await setUp(host, SLOW_BUNDLE_ID, SLOW_BUNDLE_SLUG, 'Suite slow e2e', waitTool, [
    { name: 'first', args: { n: 1 }, assertions: [] },
    { name: 'second', args: { n: 2 }, assertions: [] },
    { name: 'third', args: { n: 3 }, assertions: [] },
  ]);
}

/** Tools → the slow bundle → "Run test cases". */
async function startWaitingSuite(page: Page, shell: AppShell): Promise<void> {
  await shell.open('tools');
  await page.getByTestId('bundle-list').getByTestId(`bundle-${SLOW_BUNDLE_SLUG}`).getByRole('button', { name: /Suite slow e2e/ }).click();
  await page.getByTestId('suite-run-bundle').click();
}

test.describe('test cases as a suite', () => {
  test("a bundle's cases, then every bundle's: one report with pass/fail, timings and a diff for a failure", async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    test.setTimeout(180_000);
    await setUp(host!, BUNDLE_ID, BUNDLE_SLUG, 'Suite e2e', COUNT_TOOL, [
      { name: 'counts two words', args: { text: 'a b' }, assertions: [{ kind: 'jsonPathEquals', path: '$.words', value: 2 }] },
      { name: 'expects three words', args: { text: 'a b' }, assertions: [{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$', value: { characters: 5, words: 3, lines: 1, bytes: 5 } }] },
    ]);
    await page.setViewportSize({ width: 1440, height: 900 });
    const shell = new AppShell(page);
    await shell.open('tools');
    await page.getByTestId('bundle-list').getByTestId(`bundle-${BUNDLE_SLUG}`).getByRole('button', { name: /Suite e2e/ }).click();

    // From the keyboard: the bundle's "Run test cases".
    await page.getByTestId('suite-run-bundle').focus();
    await page.keyboard.press('Enter');
    const report = page.getByTestId('suite-report');
    await expect(report).toHaveAttribute('data-status', 'done');
    // The focus went to the report, so the keyboard carries on from there.
    expect(await shell.focusMatches('[data-testid="suite-report"] h2')).toBe(true);
    await expect(report.getByTestId('suite-scope')).toHaveText('Bundle “Suite e2e”');
    await expect(report.getByTestId('suite-status')).toHaveText(/^2 cases in 1 tool: 1 passed, 1 failed, 0 skipped \(\d+\.\d\d s\)$/);
    await expect(report.getByTestId('suite-progress')).toHaveAttribute('value', '2');

    const tool = report.locator(`[data-tool="${BUNDLE_SLUG}/${SLUG}"]`);
    await expect(tool.locator('h3')).toHaveText(`${BUNDLE_SLUG}/${SLUG}@1`);
    const pass = tool.locator('[data-case="counts two words"]');
    const fail = tool.locator('[data-case="expects three words"]');
    await expect(pass).toHaveAttribute('data-passed', 'true');
    await expect(fail).toHaveAttribute('data-passed', 'false');
    await expect(pass.getByTestId('suite-case-time')).toHaveText(/^\d+(\.\d)? ms$/);
    await expect(fail.getByTestId('suite-case-time')).toHaveText(/^\d+(\.\d)? ms$/);
    await expect(pass.getByTestId('case-failures')).toHaveCount(0);
    // The failure: its message, and the expected and actual value as a diff (the ok check passed and is not listed).
    await expect(fail.getByTestId('case-failure-message')).toHaveCount(1);
    await expect(fail.getByTestId('case-failure-message')).toContainText('expected $ to equal {"characters":5,"words":3,"lines":1,"bytes":5}, got {"characters":3,"words":2');
    const diff = fail.getByTestId('case-diff');
    await expect(diff.locator('.diff-remove')).toHaveText(['-  "bytes": 5,', '-  "characters": 5,', '-  "words": 3']);
    await expect(diff.locator('.diff-add')).toHaveText(['+  "bytes": 3,', '+  "characters": 3,', '+  "words": 2']);
    await expect(diff).toHaveAttribute('aria-label', /Expected and actual value of \$/);
    await diff.scrollIntoViewIfNeeded();
    // The picture without the focus ring on the heading.
    await report.getByTestId('suite-status').click();
    await screenshot(page, 'test-suite-report');

    // Only the failed cases, from the keyboard.
    await page.getByTestId('suite-only-failed').focus();
    await page.keyboard.press('Space');
    await expect(tool.getByTestId('suite-case')).toHaveCount(1);
    await expect(tool.getByTestId('suite-case')).toHaveAttribute('data-case', 'expects three words');
    await page.keyboard.press('Space');
    await expect(tool.getByTestId('suite-case')).toHaveCount(2);

    // Every bundle switched on: this bundle's tool is in the one report with the same outcome.
    await page.getByTestId('suite-run-all').click();
    await expect(report.getByTestId('suite-scope')).toHaveText('All bundles switched on');
    await expect(report).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
    await expect(report.getByTestId('suite-status')).toHaveText(/cases? in \d+ tools?: \d+ passed, [1-9]\d* failed/);
    const again = report.locator(`[data-tool="${BUNDLE_SLUG}/${SLUG}"]`);
    await expect(again.locator('[data-case="counts two words"]')).toHaveAttribute('data-passed', 'true');
    await expect(again.locator('[data-case="expects three words"]')).toHaveAttribute('data-passed', 'false');

    // A tool of the report opens in the editor and tester.
    await again.getByTestId('suite-open-tool').click();
    await expect(page.getByTestId('tool-form-slug')).toHaveValue(SLUG);
    await expect(page.getByTestId('tester').getByTestId('testcase-row')).toHaveCount(2);
    expect(shell.consoleErrors).toEqual([]);
  });

  test('a long suite shows its progress and stops on Esc, the cases not reached reported as not run', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    test.setTimeout(120_000);
    await setUpWaitingBundle(host!);
    const shell = new AppShell(page);
    await startWaitingSuite(page, shell);
    const report = page.getByTestId('suite-report');
    await expect(report).toHaveAttribute('data-status', 'running');
    await expect(report.getByTestId('suite-case-running')).toHaveText('Running “first”…');
    await expect(report.getByTestId('suite-status')).toHaveText('Running: 0 of 3 cases done…');
    await expect(report.getByTestId('suite-progress')).toHaveAttribute('max', '3');
    await expect.poll(() => held.length).toBeGreaterThan(0);
    // Let the first case answer: the report moves on to the second.
    held.shift()!.end('{"ok": true}');
    await expect(report.getByTestId('suite-case-running')).toHaveText('Running “second”…');
    await expect(report.getByTestId('suite-status')).toHaveText('Running: 1 of 3 cases done…');
    await expect(report.locator('[data-case="first"]')).toHaveAttribute('data-passed', 'true');
    await screenshot(page, 'test-suite-running');

    // Esc anywhere in the report cancels: the running case is cancelled, the last not run.
    await report.getByTestId('suite-only-failed').focus();
    await page.keyboard.press('Escape');
    await expect(report).toHaveAttribute('data-status', 'done');
    await expect(report).toContainText('Cancelled: the cases not reached were not run.');
    await expect(report.getByTestId('suite-status')).toHaveText(/^3 cases in 1 tool: 1 passed, 2 failed, 0 skipped/);
    await expect(report.locator('[data-case="second"]').getByTestId('case-failure-message')).toContainText('CANCELLED');
    await expect(report.locator('[data-case="third"]').getByTestId('case-failure-message')).toHaveText('not run: the test run was cancelled');
    // Switched off, so no later "Run all" in this data folder waits on this server.
    await rpc(host!, 'bundles.patch', { bundleId: SLOW_BUNDLE_ID, isEnabled: false });
    expect(shell.consoleErrors).toEqual([]);
  });

  test('a suite goes on through a reload: the reloaded window finds its report, follows it and cancels it', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    test.setTimeout(120_000);
    for (const res of held.splice(0)) res.end('{}');
    await setUpWaitingBundle(host!);
    const shell = new AppShell(page);
    await startWaitingSuite(page, shell);
    const report = page.getByTestId('suite-report');
    await expect(report.getByTestId('suite-case-running')).toHaveText('Running “first”…');
    await expect.poll(() => held.length).toBeGreaterThan(0);

    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await shell.open('tools');
    // The report is back as it was, without starting anything.
    await expect(report).toHaveAttribute('data-status', 'running');
    await expect(report.getByTestId('suite-scope')).toHaveText('Bundle “Suite slow e2e”');
    await expect(report.getByTestId('suite-status')).toHaveText('Running: 0 of 3 cases done…');
    await expect(report.getByTestId('suite-case-running')).toHaveText('Running “first”…');
    expect((await rpc<{ suites: unknown[] }>(host!, 'testcases.runningSuites', {})).suites).toHaveLength(1);
    // It follows the suite on: the first case answers.
    held.shift()!.end('{"ok": true}');
    await expect(report.locator('[data-case="first"]')).toHaveAttribute('data-passed', 'true');
    await expect(report.getByTestId('suite-case-running')).toHaveText('Running “second”…');
    await expect(report.getByTestId('suite-status')).toHaveText('Running: 1 of 3 cases done…');
    await screenshot(page, 'test-suite-after-reload');
    // The two buttons show this report instead of starting a second suite.
    await expect(page.getByTestId('suite-run-all')).toHaveAttribute('title', 'Tests are running: show their report');
    // And Cancel still stops it.
    await report.getByTestId('suite-cancel').click();
    await expect(report).toHaveAttribute('data-status', 'done');
    await expect(report).toContainText('Cancelled: the cases not reached were not run.');
    await expect(report.getByTestId('suite-status')).toHaveText(/^3 cases in 1 tool: 1 passed, 2 failed, 0 skipped/);
    expect((await rpc<{ suites: unknown[] }>(host!, 'testcases.runningSuites', {})).suites).toEqual([]);
    await rpc(host!, 'bundles.patch', { bundleId: SLOW_BUNDLE_ID, isEnabled: false });
    expect(shell.consoleErrors).toEqual([]);
  });
});
