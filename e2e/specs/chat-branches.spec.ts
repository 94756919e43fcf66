/**
 * A message edited and sent again keeps its old version: the old question and its answer stay
 * as version 1, the new ones are version 2 (shown, and what the model is given); ‹ › beside the
 * message switch between them from the keyboard, and a reload keeps the version shown.
 */
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { rpc, type RunningHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

test.use({ viewport: { width: 1440, height: 900 } });

async function addProvider(host: RunningHost, server: ScriptedModelServer, name: string): Promise<string> {
  const unique = `${name} ${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const saved = await rpc<{ id: string }>(host, 'providers.save', { provider: { name: unique, kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-branches-0123456789' } });
  await rpc(host, 'providers.test', { id: saved.id });
  return unique;
}

test.describe('versions of an edited message', () => {
  let server: ScriptedModelServer;
  test.beforeAll(async () => {
    server = await startScriptedModelServer();
    server.setModels(['branches-model']);
  });
  test.afterAll(async () => {
    await server.close();
  });

  test('edit keeps the old exchange as version 1; ‹ › switch; a reload keeps the version shown', async ({ appPage: page, host }) => {
    test.skip(!host, 'adds its provider through the headless host’s API');
    test.setTimeout(120_000);
    const provider = await addProvider(host!, server, 'Branches');
    server.fallback(undefined);
    server.script([
      { kind: 'text', text: 'Lyon is the third city of France.' },
      { kind: 'text', text: 'Marseille is the second city of France.' },
    ]);

    await page.getByTestId('nav-chat').click();
    await page.getByTestId('conversation-new').click();
    await new AppShell(page).pickModel(provider, 'branches-model');
    const composer = page.getByTestId('chat-composer');
    await composer.fill('Which is the third city of France?');
    await composer.press('Enter');
    const answer = page.getByTestId('message-assistant');
    await expect(answer.last()).toContainText('Lyon');
    await expect(page.getByTestId('message-branches')).toHaveCount(0);

    // Edit and resend: the new question and its answer are shown, as version 2 of 2.
    const user = page.getByTestId('message-user');
    await user.first().getByTestId('message-edit').click();
    const input = page.getByTestId('message-edit-input');
    await input.fill('Which is the second city of France?');
    await input.press('Enter');
    await expect(answer.last()).toContainText('Marseille');
    await expect(user).toHaveCount(1);
    await expect(user.first()).toContainText('second city');
    const position = page.getByTestId('branch-position');
    await expect(position).toHaveText('2/2');
    await expect(page.getByRole('button', { name: 'Next version' })).toBeDisabled();
    await screenshot(page, 'chat-branches-1-version-2');

    // The model was given the version shown only.
    const last = server.requests.at(-1)!;
    expect(JSON.stringify(last.body)).toContain('second city');
    expect(JSON.stringify(last.body)).not.toContain('third city');

    // Back to version 1 from the keyboard: the first question and its answer, announced.
    const previous = page.getByRole('button', { name: 'Previous version' });
    await expect(previous).toBeEnabled();
    await previous.focus();
    await page.keyboard.press('Enter');
    await expect(position).toHaveText('1/2');
    await expect(user.first()).toContainText('third city');
    await expect(answer).toHaveCount(1);
    await expect(answer.first()).toContainText('Lyon');
    await expect(page.getByTestId('branch-announce')).toHaveText('Version 1 of 2');
    // The focus stays on the versions of the message (Next now, Previous is disabled at 1).
    await expect(page.getByRole('button', { name: 'Next version' })).toBeFocused();
    await screenshot(page, 'chat-branches-2-version-1');

    // A reload shows the version that was shown.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await expect(position).toHaveText('1/2');
    await expect(answer.first()).toContainText('Lyon');
    await expect(page.getByText('Marseille')).toHaveCount(0);

    // And forward again.
    await page.getByRole('button', { name: 'Next version' }).click();
    await expect(position).toHaveText('2/2');
    await expect(answer.first()).toContainText('Marseille');
  });
});
