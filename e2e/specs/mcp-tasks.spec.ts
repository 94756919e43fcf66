/**
 * MCP tools that run only as tasks (MCP 2025-11-25), as a user meets them: a server added on
 * the Tools screen (Add → Program (stdio)) whose tools the server runs as tasks; one that never
 * ends, run from the tester, shows the task's status live as a progress bar and is cancelled by
 * keyboard (the server hears of it: its log says so); one that ends answers with its report. The
 * never-ending one is also run from the chat's `+` palette and called by a model (the scripted
 * model server), each cancelled while its progress shows.
 */
import path from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { addStdioServer, removeServers } from '../pages/mcp-servers';
import { callTool } from '../fixtures/model-steps';

const MODEL = 'mcp-tasks-e2e-model';
const ERA_SERVER = path.resolve(import.meta.dirname, '..', '..', 'electron', 'core', 'mcp-client', 'testing', 'era-server.mjs');
const SERVER = 'e2e-tasks';
/** What the progress bar says for a task that is still working: its polls so far and the server's status message. */
const WORKING = /\d+ so far — step \d+/;

let models: ScriptedModelServer;
test.beforeAll(async () => {
  models = await startScriptedModelServer();
  models.setModels([MODEL]);
});

// The server goes at the end: the specs of a worker share its data folder.
test.afterAll(async ({ host }) => {
  await models.close();
  if (host) await removeServers(host, [SERVER]);
});


test.describe('MCP task tools', () => {
  test.describe.configure({ mode: 'serial' });

  test('a task that never ends shows its status live in the tester, Escape cancels it on the server, and one that ends answers', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    const row = await addStdioServer(page, shell, host!, SERVER, [ERA_SERVER, 'tasks-legacy']);

    // Both task tools are brought in (none skipped for running only as a task).
    await expect(row.getByTestId('mcp-skipped')).toHaveCount(0);
    const bundle = page.getByTestId('bundle-list').getByTestId(`bundle-${SERVER}`);
    await bundle.getByRole('button').first().click();
    const list = page.getByTestId('tool-list');
    await expect(list.getByTestId('tool-research')).toBeVisible();
    await expect(list.getByTestId('tool-endless')).toBeVisible();

    // The server's log, opened by keyboard, stays open while the tools run.
    await row.getByTestId('mcp-log-toggle').focus();
    await page.keyboard.press('Enter');
    const log = row.getByTestId('mcp-log');
    await expect(log).toContainText('tools: 2 added');
    await expect(log).not.toContainText('cancelled');

    // endless: run by keyboard (Ctrl+Enter in its field), its task's status shows as a progress bar.
    await page.getByTestId('open-tool-endless').click();
    const tester = page.getByTestId('tester');
    const topic = tester.getByTestId('arg-topic');
    await topic.click();
    await page.keyboard.type('tide pools');
    await page.keyboard.press('ControlOrMeta+Enter');
    await expect(tester.getByTestId('tester-run')).toHaveText(/Running/);
    const result = tester.getByTestId('tester-result');
    const progress = result.getByTestId('invocation-progress');
    await expect(progress.locator('progress')).toBeVisible();
    await expect(progress.getByTestId('invocation-progress-text')).toHaveText(WORKING);
    // Live: each status the client gets from the server replaces the last (their count goes up).
    const first = await progress.getByTestId('invocation-progress-text').textContent();
    await expect(progress.getByTestId('invocation-progress-text')).not.toHaveText(first!);
    await expect(progress.getByTestId('invocation-progress-text')).toHaveText(WORKING);
    await screenshot(page, 'mcp-tasks-1-tester-progress');

    // Escape cancels the run: it ends as cancelled, the bar gone.
    await expect(topic).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(result.getByTestId('tester-error')).toContainText('CANCELLED');
    await expect(progress).toHaveCount(0);
    await expect(tester.getByTestId('tester-run')).toHaveText('Run');

    // The server was told: its log (its stderr), open since before the run, says the task was cancelled.
    await expect(log).toContainText(/task task-\d+ cancelled/);
    await screenshot(page, 'mcp-tasks-2-cancelled');

    // research: ends after a few polls with its report.
    await page.getByTestId('open-tool-research').click();
    await tester.getByTestId('arg-topic').fill('coral reefs');
    await tester.getByTestId('arg-topic').press('ControlOrMeta+Enter');
    await expect(result.getByTestId('tester-value')).toContainText('report on coral reefs');
    await expect(result.getByTestId('tester-error')).toHaveCount(0);
    await screenshot(page, 'mcp-tasks-3-research');
    expect(shell.consoleErrors).toEqual([]);
  });

  test('from the + palette and from a model, the task shows its progress and a cancel ends it as cancelled', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    // The server of the first test (the same data folder); added here when this test runs alone.
    await shell.open('tools');
    const panel = page.getByTestId('mcp-servers');
    if ((await panel.getByTestId(`mcp-server-${SERVER}`).count()) === 0) await addStdioServer(page, shell, host!, SERVER, [ERA_SERVER, 'tasks-legacy']);

    // 1. The `+` palette: its form shows the task's progress; Escape cancels the run.
    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    const composer = page.getByTestId('chat-composer');
    await composer.click();
    await composer.pressSequentially('+endles');
    const palette = page.getByTestId('palette');
    await expect(palette.getByTestId('palette-item-endless')).toBeVisible();
    await page.keyboard.press('Enter');
    const form = page.getByTestId('palette-form');
    await expect(form.getByTestId('arg-topic')).toBeFocused();
    await page.keyboard.type('sand dunes');
    await page.keyboard.press('Enter');
    await expect(form.getByTestId('invocation-progress-text')).toHaveText(WORKING);
    await expect(form.locator('progress')).toBeVisible();
    await screenshot(page, 'mcp-tasks-4-palette-progress');
    await page.keyboard.press('Escape');
    // The run ends as cancelled: its card in the conversation says so, the form is gone.
    const paletteCard = page.getByTestId('message-list').getByTestId('tool-card').filter({ hasText: '+endless' }).last();
    await expect(paletteCard).toHaveAttribute('data-status', 'cancelled');
    await expect(paletteCard.getByTestId('tool-card-status')).toHaveText('cancelled');
    await expect(paletteCard.getByTestId('tool-card-error')).toContainText('CANCELLED');
    await expect(form).toHaveCount(0);
    await expect(page.getByTestId('invocation-progress')).toHaveCount(0);

    // 2. A model calls it: the card shows the task's progress while it runs; stopping the turn ends it as cancelled.
    const provider = await shell.addProvider({ name: 'MCP tasks e2e models', url: models.url });
    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    await shell.pickModel(provider, MODEL);
    let calledAs = '';
    const step = callTool({
      name: 'endless',
      args: { topic: 'deep sea vents' },
      search: 'run as a task (endless)',
      onCall: (_req, name) => (calledAs = name),
      then: () => ({ kind: 'text', text: 'The task ended.' }),
    });
    models.script([step, step, step]);
    models.fallback(() => ({ kind: 'text', text: 'The task ended.' }));
    await composer.fill('Research deep sea vents with the endless task.');
    await composer.press('Enter');
    const card = page.getByTestId('message-list').getByTestId('tool-card').filter({ hasText: '+endless' }).last();
    await expect(card).toBeVisible({ timeout: 60_000 });
    expect(calledAs === 'endless' || calledAs.endsWith('__endless')).toBe(true);
    // A tool that says nothing of its effects waits for approval first.
    await expect(card).toHaveAttribute('data-status', 'awaiting-approval');
    await card.getByTestId('approval-card').getByTestId('approval-allow-once').click();
    await expect(card).toHaveAttribute('data-status', 'running');
    await expect(card.getByTestId('invocation-progress-text')).toHaveText(WORKING);
    await expect(card.locator('progress')).toBeVisible();
    await screenshot(page, 'mcp-tasks-5-model-progress');
    // Escape in the composer stops the turn (as Stop does), and the call with it.
    await expect(page.getByTestId('chat-stop')).toBeVisible();
    await composer.focus();
    await page.keyboard.press('Escape');
    await expect(card).toHaveAttribute('data-status', 'cancelled');
    await expect(card.getByTestId('tool-card-status')).toHaveText('cancelled');
    await expect(card.getByTestId('tool-card-error')).toContainText('CANCELLED');
    await expect(card.getByTestId('invocation-progress')).toHaveCount(0);
    await expect(page.getByTestId('chat-stop')).toHaveCount(0);
    await screenshot(page, 'mcp-tasks-6-model-cancelled');

    // Each cancel reached the server.
    await shell.open('tools');
    const row = panel.getByTestId(`mcp-server-${SERVER}`);
    const log = row.getByTestId('mcp-log');
    if (!(await log.isVisible())) await row.getByTestId('mcp-log-toggle').click();
    await expect(log).toContainText(/task task-\d+ cancelled[\s\S]*task task-\d+ cancelled/);
    expect(shell.consoleErrors).toEqual([]);
  });
});
