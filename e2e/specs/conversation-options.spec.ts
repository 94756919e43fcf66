/**
 * A conversation's own settings, as a user sets them: a system prompt and a temperature typed in
 * the chat's side panel (Conversation settings), saved; a message to the scripted model server
 * carries both; after a reload they are still there. A value out of bounds is refused in place.
 */
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

test('a system prompt and a temperature set in Conversation settings reach the model and survive a reload', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'E2E options', url: server.url, apiKey: 'sk-e2e-options-key-123' });

  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'e2e-model');

  // Open the settings from the keyboard.
  const part = page.getByTestId('side-conversation-options');
  const disclosure = part.getByRole('button', { name: 'Conversation settings' });
  await disclosure.focus();
  await page.keyboard.press('Enter');
  const form = part.getByTestId('conversation-options');
  await expect(form).toBeVisible();

  // Out of bounds: refused in place, nothing saved.
  await form.getByLabel('Temperature').fill('3');
  await form.getByTestId('options-save').click();
  await expect(form.getByTestId('options-temperature-error')).toHaveText('temperature must be from 0 to 2');
  await expect(form.getByLabel('Temperature')).toHaveAttribute('aria-invalid', 'true');
  await screenshot(page, 'conversation-options-1-invalid');

  await form.getByLabel('System prompt').fill('Always answer like a pirate.');
  await form.getByLabel('Temperature').fill('0.4');
  await form.getByLabel('Temperature').press('Enter');
  await expect(form.getByTestId('options-saved')).toHaveText('Saved.');
  await expect(form.getByTestId('options-save')).toBeDisabled();
  await screenshot(page, 'conversation-options-2-saved');

  server.script([{ kind: 'text', text: 'Arr, hello there.' }]);
  const composer = page.getByTestId('chat-composer');
  await composer.fill('Say hello');
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('Arr, hello there.');

  const body = server.requests.filter((r) => r.api === 'openai').at(-1)!.body;
  const system = body.messages.find((m: { role: string }) => m.role === 'system');
  expect(system?.content).toContain('Always answer like a pirate.');
  expect(body.temperature).toBe(0.4);
  expect(body).not.toHaveProperty('max_tokens');
  expect(body).not.toHaveProperty('reasoning_effort');

  await page.reload();
  const again = page.getByTestId('side-conversation-options');
  await again.getByRole('button', { name: 'Conversation settings' }).click();
  await expect(again.getByLabel('System prompt')).toHaveValue('Always answer like a pirate.');
  await expect(again.getByLabel('Temperature')).toHaveValue('0.4');
  await expect(again.getByLabel('Max tokens')).toHaveValue('');
  await screenshot(page, 'conversation-options-3-reloaded');
});
