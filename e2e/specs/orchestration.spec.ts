/**
 * Orchestration as a user meets it (docs/agents.md): the model delegates to the built-in
 * analyst; the analyst asks the user a question, which appears in the chat as a question card
 * and is answered there by keyboard; the analyst writes a file (its approval asked and given
 * on the delegation's card) and hands off; the delegation card folds out the task's
 * timeline; Inspect → Tasks draws the graph. A call two tasks down (analyst → writer) asks for
 * its approval on the same card, labelled with its task path.
 */
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from '../../electron/core/testing/scripted-model-server';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc } from '../fixtures/host';
import { lastToolResult, messagesOf } from '../fixtures/model-steps';

const MODEL = 'orchestration-model';
let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels([MODEL]);
});
test.afterAll(async () => {
  await server.close();
});

const system = (r: RecordedRequest) => String(messagesOf(r).find((m) => m.role === 'system')?.content ?? '');
const who = (r: RecordedRequest) => /You are the (\w+) agent/.exec(system(r))?.[1]?.toLowerCase() ?? 'root';
const tools = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });

test('the model delegates to the analyst, which asks the user and hands off; the chat nests its task; Inspect draws the graph', async ({ appPage: page }) => {
  test.setTimeout(120_000);
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'Orchestration server', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, MODEL);

  const queues: Record<string, ((r: RecordedRequest) => ScriptedReply)[]> = {
    root: [
      () => tools('route_to_analyst', { request: 'Work out the quarter’s total and write it to e2e-orch/total.md.' }),
      (r) => ({ kind: 'text', text: lastToolResult(r).startsWith('← result from analyst (task 1)') ? 'The total is 42; see e2e-orch/total.md.' : `unexpected: ${lastToolResult(r).slice(0, 80)}` }),
    ],
    analyst: [
      () => tools('ask_master', { question: 'Which quarter should I total?' }),
      (r) => tools('writefile', { path: 'e2e-orch/total.md', content: `# Total\n\n${lastToolResult(r).includes('Q3') ? 'Q3' : '?'}: 42\n`, mode: 'replace' }),
      () => tools('handoff', { result: 'Q3 total is 42.', documents: ['e2e-orch/total.md'] }),
    ],
  };
  // Each test answers from its own queues (the server is shared by the file's tests).
  server.fallback((r) => queues[who(r)]?.shift()?.(r) ?? { kind: 'text', text: 'end' });
  const composer = page.getByTestId('chat-composer');
  await composer.fill('What was the quarter’s total?');
  await composer.press('Enter');

  // The analyst's question, answered in place by keyboard.
  const question = page.getByTestId('question-answer');
  await expect(question).toContainText('Which quarter should I total?', { timeout: 30_000 });
  await question.getByTestId('question-answer-input').focus();
  await page.keyboard.type('Q3 2026');
  await screenshot(page, 'orchestration-1-question');
  await page.keyboard.press('Control+Enter');

  // The analyst's writefile asks for approval: on the delegation's card, labelled with the task; the nested timeline points there.
  // The delegation's card (its own header; the task's cards are nested inside it).
  const delegation = page.getByRole('article', { name: 'Tool Delegate to Analyst' });
  const nested = delegation.getByTestId('task-timeline');
  await expect(nested).toContainText('Task 1: analyst’s work');
  const asked = delegation.getByTestId('task-approval');
  const allow = asked.getByRole('button', { name: /Allow once/ });
  await expect(allow).toBeVisible({ timeout: 30_000 });
  await expect(asked.getByTestId('task-approval-path')).toContainText('analyst (task 1)');
  await expect(nested.getByTestId('approval-above')).toBeVisible();
  // The delegation's card says a call inside waits for the user.
  await expect(delegation.getByTestId('task-waiting')).toHaveText('waiting for your approval inside');
  await allow.click();

  await expect(page.getByTestId('message-list')).toContainText('The total is 42; see e2e-orch/total.md.', { timeout: 30_000 });
  const done = delegation;
  await expect(done.locator(':scope > header').getByTestId('tool-card-status')).toHaveText('ok');
  await expect(done.locator(':scope > [data-testid="tool-card-documents"]')).toContainText('e2e-orch/total.md');
  // Its timeline folds out: the question, the write and the handoff.
  const folded = done.getByTestId('task-timeline');
  if ((await folded.getAttribute('open')) === null) await folded.locator('summary').click();
  await expect(folded).toContainText('+ask_master');
  await expect(folded).toContainText('+writefile');
  await expect(folded).toContainText('+handoff');
  await done.scrollIntoViewIfNeeded();
  await screenshot(page, 'orchestration-2-nested');

  // Inspect → Tasks: the conversation, the analyst's task and its question, done.
  await shell.open('inspect');
  await page.getByTestId('inspect-tab-tasks').click();
  const graph = page.getByTestId('inspect-tasks');
  await expect(graph.getByTestId('task-node')).toHaveCount(3);
  await expect(graph.locator('[data-testid="task-node"][data-status="done"]')).toHaveCount(2);
  await graph.getByTestId('task-pick').first().click();
  await expect(page.getByTestId('task-detail')).toContainText('Q3 total is 42.');
  await expect(page.getByTestId('task-detail')).toContainText('e2e-orch/total.md');
  await screenshot(page, 'orchestration-3-graph');
});

test('a grandchild task’s approval reaches the root card, labelled with its task path, and is allowed there', async ({ appPage: page, host }) => {
  test.setTimeout(120_000);
  // The analyst delegates to the built-in writer: on a host shared with other specs, it is switched on whatever they left.
  if (host) await rpc(host, 'agents.setEnabled', { name: 'writer', enabled: true });
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'Orchestration depth server', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, MODEL);

  const queues: Record<string, ((r: RecordedRequest) => ScriptedReply)[]> = {
    root: [
      () => tools('route_to_analyst', { request: 'Have the figures written up in e2e-orch/deep.md.' }),
      (r) => ({ kind: 'text', text: lastToolResult(r).startsWith('← result from analyst') ? 'Written up in e2e-orch/deep.md.' : `unexpected: ${lastToolResult(r).slice(0, 80)}` }),
    ],
    analyst: [
      () => tools('route_to_writer', { request: 'Write “North 30, south 12” to e2e-orch/deep.md.' }),
      () => tools('handoff', { result: 'The writer wrote it.', documents: ['e2e-orch/deep.md'] }),
    ],
    writer: [
      () => tools('writefile', { path: 'e2e-orch/deep.md', content: '# Sales\n\nNorth 30, south 12.\n', mode: 'replace' }),
      () => tools('handoff', { result: 'Wrote e2e-orch/deep.md.', documents: ['e2e-orch/deep.md'] }),
    ],
  };
  // Each test answers from its own queues (the server is shared by the file's tests).
  server.fallback((r) => queues[who(r)]?.shift()?.(r) ?? { kind: 'text', text: 'end' });
  const composer = page.getByTestId('chat-composer');
  await composer.fill('Write up the sales figures.');
  await composer.press('Enter');

  // The root's delegation card (its own header; the tasks' cards are nested inside it).
  const delegation = page.getByRole('article', { name: 'Tool Delegate to Analyst' });
  // The writer's call, two tasks down, waits for the user: the root card says so and holds the approval, with the task path.
  const asked = delegation.getByTestId('task-approval');
  await expect(asked).toContainText('analyst → writer', { timeout: 30_000 });
  await expect(asked.getByTestId('task-approval-path')).toHaveText('waiting for you in analyst → writer (task 2)');
  await expect(asked).toContainText('+writefile');
  // The task's own timeline says it waits, and the writer's card in it points to the approval above.
  const timeline = delegation.locator(':scope > [data-testid="task-timeline"]');
  await expect(timeline.locator(':scope > summary').getByTestId('task-waiting')).toHaveText('waiting for your approval inside');
  await expect(timeline.getByTestId('approval-above')).toBeVisible();
  await expect(timeline.getByRole('button', { name: /Allow once/ })).toHaveCount(0);
  // Folding the task's timeline away leaves the approval in view.
  if ((await timeline.getAttribute('open')) !== null) await timeline.locator(':scope > summary').click();
  await expect(timeline).not.toHaveAttribute('open');
  await delegation.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await expect(asked.getByRole('button', { name: /Allow once/ })).toBeVisible();
  await screenshot(page, 'orchestration-4-grandchild-approval');
  await asked.getByRole('button', { name: /Allow once/ }).click();

  await expect(page.getByTestId('message-list')).toContainText('Written up in e2e-orch/deep.md.', { timeout: 30_000 });
  await expect(delegation.getByTestId('task-approval')).toHaveCount(0);
  await expect(delegation.locator(':scope > header').getByTestId('tool-card-status')).toHaveText('ok');
});
