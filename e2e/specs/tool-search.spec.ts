/**
 * Tool search as a user meets it: Settings → Tool search set to always, a provider (a scripted
 * OpenAI-compatible server on 127.0.0.1), a question; the model is given tool_search instead of
 * every tool, searches in a sentence, the chat shows the search's card with the tools it
 * loaded and why, the found tool's schema is in the next request and the model calls it.
 * Semantic search is off by default, and its Test says plainly when a server has no embeddings.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels(['e2e-model']);
});
test.afterAll(async () => {
  await server.close();
});

const toolNames = (body: { tools?: { function: { name: string } }[] }) => (body.tools ?? []).map((t) => t.function.name);

test('with tool search on, the model finds readfile by a sentence; the chat shows the search and what it loaded', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec puts a file in the headless host\'s workspace');
  test.setTimeout(90_000);
  await fs.mkdir(path.join(host!.dataDir, 'workspace'), { recursive: true });
  await fs.writeFile(path.join(host!.dataDir, 'workspace', 'notes.md'), 'the notes say 42');

  // 1. Settings → Tool search: always; Settings → Models: the provider.
  await page.getByTestId('nav-settings').click();
  const section = page.getByTestId('settings-tool-search');
  await section.scrollIntoViewIfNeeded();
  await expect(page.getByTestId('tool-search-maxTools')).toHaveValue('30');
  await page.getByTestId('tool-search-mode').selectOption('always');
  await expect(page.getByTestId('tool-search-maxTools')).toBeDisabled();
  await page.getByTestId('tool-search-results').fill('3');
  await page.getByTestId('tool-search-save').click();
  await expect(page.getByTestId('tool-search-saved')).toBeVisible();
  await screenshot(page, 'tool-search-1-settings');

  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'E2E local', url: server.url });

  // Semantic search: off by default; its Test against a server without /embeddings says so.
  await expect(page.getByTestId('tool-search-maxLoadedTokens')).toHaveValue('32000');
  await expect(page.getByTestId('tool-search-semantic-enabled')).not.toBeChecked();
  await page.getByTestId('tool-search-semantic-provider').selectOption({ label: `${provider} (${server.url.replace(/\/+$/, '')})` });
  await page.getByTestId('tool-search-semantic-model').fill('nomic-embed-text');
  await page.getByTestId('tool-search-semantic-test').click();
  const verdict = page.getByTestId('tool-search-semantic-verdict');
  await expect(verdict).toHaveAttribute('data-ok', 'false');
  await expect(verdict).toContainText("no embeddings here, or no model 'nomic-embed-text' (404)");
  await screenshot(page, 'tool-search-1b-semantic-test');

  // 2. Chat: the model searches, then calls what it found, then answers.
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'e2e-model');
  server.script([
    { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'read the contents of a file in the workspace' } }] },
    (req) => {
      const found = JSON.parse(req.body.messages.at(-1).content) as { tools: { name: string }[] };
      return { kind: 'tools', calls: [{ name: found.tools[0]!.name, arguments: { path: 'notes.md' } }] };
    },
    (req) => ({ kind: 'text', text: `The notes say: ${String(req.body.messages.at(-1).content).includes('42') ? '42' : '?'}` }),
  ]);
  const composer = page.getByTestId('chat-composer');
  await composer.fill('What do my notes say?');
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('The notes say: 42');

  const search = page.getByTestId('tool-card').filter({ hasText: 'Tool search' }).last();
  await expect(search).toContainText('ok');
  await expect(search).toContainText('loaded');
  await expect(search).toContainText('readfile');
  await expect(search).toContainText('tool search is always on (Settings → Tool search)');
  await expect(page.getByTestId('tool-card').filter({ hasText: 'readfile' }).last()).toContainText('ok');
  await screenshot(page, 'tool-search-2-chat');

  // What the model was given: no readfile before the search, its whole schema after.
  const asked = server.requests.filter((r) => r.api === 'openai' && r.body?.messages);
  const [first, second] = asked.slice(-3);
  expect(toolNames(first!.body)).toContain('tool_search');
  expect(toolNames(first!.body)).not.toContain('readfile');
  const readfile = second!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'readfile');
  expect(readfile.function.parameters.properties.path.maxLength).toBe(4096);
  expect(toolNames(second!.body).length).toBeLessThanOrEqual(toolNames(first!.body).length + 3);
});
