/**
 * A model in the chat, as a new user meets it: a provider added in Settings (a scripted
 * OpenAI-compatible server on 127.0.0.1, real HTTP and SSE), a model picked, a question that
 * makes the model call a built-in tool that requires approval (writefile), the approval,
 * the streamed answer and the tool card; after a reload the conversation is intact.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels(['e2e-model', 'e2e-other']);
});
test.afterAll(async () => {
  await server.close();
});

test('a new user adds a provider, picks a model, approves its tool call and reads the streamed answer', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec checks workspace files next to the headless host');
  test.setTimeout(90_000);
  const workspace = path.join(host!.dataDir, 'workspace');

  // 1. Settings → Models: add the provider, test the connection.
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'E2E local', url: server.url, apiKey: 'sk-e2e-secret-key-123' });
  const item = page.getByTestId('provider-item').filter({ hasText: provider });
  await expect(item).toBeVisible();
  await item.getByTestId('provider-test').click();
  await expect(item.getByTestId('provider-verdict')).toContainText('Connected: 2 models');
  await expect(page.locator('body')).not.toContainText('sk-e2e-secret-key-123');
  await screenshot(page, 'agent-1-provider');

  // 2. Chat: a new conversation, the model picked.
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'e2e-model');

  // 3. The model calls writefile (which requires approval), then answers, streamed.
  server.script([
    { kind: 'tools', calls: [{ name: 'writefile', arguments: { path: 'e2e-agent/hello.txt', content: 'hello from the model' } }], usage: { input: 100, output: 8 } },
    { kind: 'text', text: 'I wrote **e2e-agent/hello.txt** for you.', chunks: 6, chunkDelayMs: 80, usage: { input: 120, output: 12 } },
  ]);
  const composer = page.getByTestId('chat-composer');
  await composer.fill('Please write hello into e2e-agent/hello.txt');
  await composer.press('Enter');

  const approval = page.getByTestId('approval-card');
  await expect(approval).toBeVisible();
  await expect(approval.getByTestId('approval-args')).toHaveValue(/hello from the model/);
  await screenshot(page, 'agent-2-approval');
  expect(await fs.stat(path.join(workspace, 'e2e-agent', 'hello.txt')).catch(() => null)).toBeNull();
  // Edited arguments that do not fit writefile's schema stay on the card with what is wrong.
  const args = approval.getByTestId('approval-args');
  const original = await args.inputValue();
  // They are checked against the schema as typed: the issue is named by its field and Allow
  // stays off, saying why (the core refuses such arguments too: approval-edit.test.ts).
  await args.fill('{"path": 5, "content": "x"}');
  await expect(approval.getByTestId('approval-args-issues')).toContainText('path must be string');
  await expect(approval.getByTestId('approval-allow-once')).toBeDisabled();
  await expect(approval.getByTestId('approval-allow-always')).toBeDisabled();
  await expect(approval.getByTestId('approval-deny')).toBeEnabled();
  await screenshot(page, 'agent-2b-approval-invalid');
  await expect(approval).toBeVisible();
  expect(await fs.stat(path.join(workspace, 'e2e-agent', 'hello.txt')).catch(() => null)).toBeNull();
  await args.fill(original);
  await approval.getByTestId('approval-allow-once').click();

  await expect(page.getByTestId('message-list')).toContainText('I wrote e2e-agent/hello.txt for you.');
  await expect(page.getByTestId('message-list').locator('strong', { hasText: 'e2e-agent/hello.txt' })).toBeVisible();
  await expect(page.getByTestId('tool-card').filter({ hasText: 'writefile' }).last()).toContainText('ok');
  // Both steps of the turn: 100 + 120 in, 8 + 12 out.
  await expect(page.getByTestId('turn-usage').last()).toContainText('220 in · 20 out · 2 steps');
  expect(await fs.readFile(path.join(workspace, 'e2e-agent', 'hello.txt'), 'utf8')).toBe('hello from the model');
  await screenshot(page, 'agent-3-answer');

  // What the model was given: the tool's whole schema; never the key.
  const first = server.requests.find((r) => r.api === 'openai' && r.body?.tools);
  const writefile = first!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'writefile');
  expect(writefile.function.parameters.properties.path.maxLength).toBe(4096);
  expect(server.requests.every((r) => !JSON.stringify(r.body ?? '').includes('sk-e2e-secret-key-123'))).toBe(true);

  // 4. A reload finds the conversation intact.
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  await page.getByTestId('nav-chat').click();
  await expect(page.getByTestId('message-list')).toContainText('Please write hello into e2e-agent/hello.txt');
  await expect(page.getByTestId('message-list')).toContainText('I wrote e2e-agent/hello.txt for you.');
  await expect(page.getByTestId('tool-card').filter({ hasText: 'writefile' }).last()).toContainText('ok');
  await screenshot(page, 'agent-4-reload');

  // 5. Inspect → Timeline lists every event of the turn, in order.
  await page.getByTestId('nav-inspect').click();
  await page.getByRole('tab', { name: 'Timeline' }).click();
  const kinds = await page.getByTestId('timeline-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')));
  expect(kinds).toEqual(['user', 'model text', 'tool call', 'approval', 'tool result', 'model text']);
  await page.getByTestId('timeline-row').nth(3).getByRole('button').click();
  await expect(page.getByTestId('timeline-details')).toContainText('"decision": "allow-once"');
  await screenshot(page, 'agent-5-timeline');
});
