/**
 * Memory as a user meets it (docs/memory.md): a block made in Inspect → Memory with the
 * Human permission; a model's block-edit on it shows a consent card in the chat with the
 * change as a diff; allowed, the edit is applied and Inspect → Memory shows it with its
 * history, a diff between versions, undo and redo; a second edit denied changes nothing;
 * both answers are on Inspect → Timeline.
 */
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from '../../electron/core/testing/scripted-model-server';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { callTool, lastToolResult } from '../fixtures/model-steps';

const MODEL = 'memory-model';
let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels([MODEL]);
});
test.afterAll(async () => {
  await server.close();
});


/**
 * A model that calls block_edit with `args`, then answers with `reply`. With many tools in the
 * data folder (other specs add hundreds) it may be given tool_search instead of every tool:
 * it then searches for block_edit first, as a model would.
 */
function editThen(args: unknown, reply: (r: RecordedRequest) => ScriptedReply): (r: RecordedRequest) => ScriptedReply {
  return callTool({ name: 'block_edit', args, search: 'edit a memory block: replace or append text (block_edit)', then: reply });
}

test('a model edit of a Human block waits for consent: allowed it applies and shows in Inspect → Memory; denied it does not', async ({ appPage: page }) => {
  test.setTimeout(120_000);
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'Memory server', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, MODEL);

  // A Human block in this conversation's memory, made in Inspect → Memory.
  await shell.open('inspect');
  await page.getByTestId('inspect-tab-memory').click();
  const tab = page.getByTestId('memory-tab');
  await tab.getByTestId('memory-new-open').click();
  await tab.getByTestId('memory-new-label').fill('persona');
  await tab.getByTestId('memory-new-permission').selectOption('Human');
  await tab.getByTestId('memory-new-content').fill('Name: Ada\nLikes: tea');
  await tab.getByTestId('memory-new-save').click();
  await expect(tab.getByTestId('memory-block-row').filter({ hasText: 'persona' })).toContainText('Human');

  // The model edits it: the consent card shows the change and the call waits.
  // Every request of this exchange is answered by the step (however many searches it takes).
  server.fallback(
    editThen({ op: 'replace', label: 'persona', old: 'Name: Ada', new: 'Name: Ada Lovelace' }, (r) => ({
      kind: 'text',
      text: lastToolResult(r).includes('holds') ? 'I noted your full name.' : `unexpected: ${lastToolResult(r).slice(0, 120)}`,
    })),
  );
  await shell.open('chat');
  const composer = page.getByTestId('chat-composer');
  await composer.fill('My full name is Ada Lovelace.');
  await composer.press('Enter');
  const card = page.getByTestId('consent-card');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card.getByTestId('consent-what')).toContainText('block_edit replace on block “persona” (permission Human)');
  const diff = card.getByTestId('consent-diff');
  await expect(diff.locator('[data-kind="remove"]')).toHaveText('-Name: Ada');
  await expect(diff.locator('[data-kind="add"]')).toHaveText('+Name: Ada Lovelace');
  await expect(page.getByTestId('tool-card').filter({ has: card }).getByTestId('tool-card-status')).toHaveText('waiting for approval');
  await screenshot(page, 'memory-1-consent-card');
  // By keyboard: the first answer is Allow once.
  await card.getByTestId('consent-allow-once').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('I noted your full name.', { timeout: 30_000 });
  await expect(card).toHaveCount(0);
  const answered = page.getByTestId('consent-answered').last();
  await expect(answered).toHaveAttribute('data-answer', 'allow-once');
  await expect(answered).toContainText('consent: allowed once');

  // Inspect → Memory: the edit, its history, the diff between the versions, undo and redo.
  await shell.open('inspect');
  await page.getByTestId('inspect-tab-memory').click();
  await tab.getByTestId('memory-block-row').filter({ hasText: 'persona' }).getByTestId('memory-block-pick').click();
  await expect(tab.getByTestId('memory-block-content')).toHaveText('Name: Ada Lovelace\nLikes: tea');
  const versions = tab.getByTestId('memory-version');
  await expect(versions).toHaveCount(2);
  await expect(versions.nth(0)).toContainText('create');
  await expect(versions.nth(1)).toContainText('replace');
  await expect(versions.nth(1)).toHaveAttribute('data-current', 'true');
  await expect(tab.getByTestId('memory-diff-lines').locator('[data-kind="add"]')).toHaveText('+Name: Ada Lovelace');
  await tab.getByTestId('memory-recall-query').fill('anything');
  await tab.getByTestId('memory-recall-search').click();
  await expect(tab.getByTestId('memory-recall-none')).toBeVisible();
  await screenshot(page, 'memory-2-inspect');
  await tab.getByTestId('memory-undo').click();
  await expect(tab.getByTestId('memory-block-content')).toHaveText('Name: Ada\nLikes: tea');
  await expect(versions.nth(1)).toHaveAttribute('data-undone', 'true');
  await tab.getByTestId('memory-redo').click();
  await expect(tab.getByTestId('memory-block-content')).toHaveText('Name: Ada Lovelace\nLikes: tea');

  // A second edit, denied: nothing changes, and the model is told.
  // Every request of this exchange is answered by the step (however many searches it takes).
  server.fallback(
    editThen({ op: 'append', label: 'persona', content: 'Likes: coffee' }, (r) => ({
      kind: 'text',
      text: lastToolResult(r).includes('refused by human consent: the user denied') ? 'Understood, I left it.' : `unexpected: ${lastToolResult(r).slice(0, 120)}`,
    })),
  );
  await shell.open('chat');
  await composer.fill('Also note that I like coffee.');
  await composer.press('Enter');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card.getByTestId('consent-diff').locator('[data-kind="add"]')).toContainText(['+Likes: coffee']);
  await card.getByTestId('consent-deny').click();
  await expect(page.getByTestId('message-list')).toContainText('Understood, I left it.', { timeout: 30_000 });
  await expect(page.getByTestId('consent-answered').last()).toHaveAttribute('data-answer', 'deny');

  await shell.open('inspect');
  await page.getByTestId('inspect-tab-memory').click();
  await tab.getByTestId('memory-block-row').filter({ hasText: 'persona' }).getByTestId('memory-block-pick').click();
  await expect(tab.getByTestId('memory-block-content')).toHaveText('Name: Ada Lovelace\nLikes: tea');
  await expect(tab.getByTestId('memory-version')).toHaveCount(2);

  // Both answers on the timeline.
  await page.getByTestId('inspect-tab-timeline').click();
  const consentRows = page.locator('[data-testid="timeline-row"][data-kind="consent"]');
  await expect(consentRows).toHaveCount(4);
  await expect(consentRows.nth(1)).toContainText("consent allow-once: block_edit replace on block 'persona' (Human)");
  await expect(consentRows.nth(3)).toContainText("consent deny: block_edit append on block 'persona' (Human)");
});
