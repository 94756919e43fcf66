/**
 * The chat as a new user meets it: an answer streaming while the page reloads keeps its
 * beginning; a call waiting for approval has one Deny, whose reason box is in view and sends
 * on Enter; a conversation a palette run starts is named by the argument the user gave; the
 * first provider added makes one of its models the model new conversations start with.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { callTool, lastToolResult } from '../fixtures/model-steps';
import { rpc, type RunningHost } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

test.use({ viewport: { width: 1440, height: 900 } });

/** A provider on the scripted server, saved and tested through the host's API; answers its name. */
async function addProvider(host: RunningHost, server: ScriptedModelServer, name: string): Promise<string> {
  const unique = `${name} ${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const saved = await rpc<{ id: string }>(host, 'providers.save', { provider: { name: unique, kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-defects-0123456789' } });
  await rpc(host, 'providers.test', { id: saved.id });
  return unique;
}

test.describe('chat defects', () => {
  let server: ScriptedModelServer;
  test.beforeAll(async () => {
    server = await startScriptedModelServer();
    server.setModels(['defects-model']);
  });
  test.afterAll(async () => {
    await server.close();
  });

  test('a reload while an answer streams shows the answer from its beginning', async ({ appPage: page, host }) => {
    test.skip(!host, 'adds its provider through the headless host’s API');
    test.setTimeout(120_000);
    const provider = await addProvider(host!, server, 'Streaming');
    const words = Array.from({ length: 40 }, (_, i) => `word${i + 1}`);
    server.fallback(undefined);
    server.script([{ kind: 'text', text: words.join(' '), chunks: 40, chunkDelayMs: 400 }]);

    await page.getByTestId('nav-chat').click();
    await page.getByTestId('conversation-new').click();
    await new AppShell(page).pickModel(provider, 'defects-model');
    const composer = page.getByTestId('chat-composer');
    await composer.fill('Count to forty, slowly');
    await composer.press('Enter');
    const streaming = page.getByTestId('message-streaming');
    await expect(streaming).toContainText('word3');

    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    // Still streaming (the row is not stored yet), and from its first word on.
    await expect(streaming).toContainText('word1 word2 word3');
    await expect(page.getByTestId('message-assistant')).toHaveCount(0);
    await screenshot(page, 'chat-defects-1-reload-streaming');
    // The whole answer streams for some seconds more, then is stored whole.
    await expect(page.getByTestId('message-assistant').last()).toContainText('word40', { timeout: 60_000 });
    await expect(page.getByTestId('message-assistant').last()).toContainText('word1 word2');
    await expect(streaming).toHaveCount(0);
  });

  test('deny with a reason: one Deny, its box in view, Enter sends, Escape goes back', async ({ appPage: page, host }) => {
    test.skip(!host, 'adds its provider through the headless host’s API');
    test.setTimeout(120_000);
    const provider = await addProvider(host!, server, 'Deny');
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('conversation-new').click();
    await new AppShell(page).pickModel(provider, 'defects-model');
    const composer = page.getByTestId('chat-composer');
    const approval = page.locator('[data-testid="tool-card"][data-status="awaiting-approval"]');

    // A long answer first: the messages fill their room, and the call's card comes at their foot.
    server.script([{ kind: 'text', text: Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a long answer.`).join('\n\n') }]);
    await composer.fill('Tell me something long');
    await composer.press('Enter');
    await expect(page.getByTestId('message-assistant').last()).toContainText('Paragraph 30');

    // First: Escape closes the box and nothing is answered; then Enter sends the reason.
    let told = '';
    server.fallback(
      callTool({
        name: 'writefile',
        args: { path: 'chat-defects/x.txt', content: 'x' },
        search: 'write text into a file in the workspace',
        then: (r) => {
          told = lastToolResult(r);
          return { kind: 'text', text: 'Understood, not there.' };
        },
      }),
    );
    await composer.fill('Write x somewhere');
    await composer.press('Enter');
    await expect(approval).toHaveCount(1);
    const deny = approval.getByRole('button', { name: /^Deny/ });
    await expect(deny).toHaveCount(1);
    await deny.click();
    const reason = approval.getByTestId('approval-deny-reason-input');
    await expect(reason).toBeFocused();
    const send = approval.getByTestId('approval-deny-reason-send');
    await expect(send).toBeInViewport({ ratio: 1 });
    // Nothing covers it (the composer below the messages least of all).
    const box = (await send.boundingBox())!;
    const hit = `document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest('[data-testid="approval-deny-reason-send"]') != null`;
    expect(await page.evaluate(hit)).toBe(true);
    await screenshot(page, 'chat-defects-2-deny-reason');

    await reason.press('Escape');
    await expect(reason).toHaveCount(0);
    await expect(approval.getByRole('button', { name: /^Deny/ })).toBeFocused();
    await expect(approval).toHaveCount(1);

    await approval.getByRole('button', { name: /^Deny/ }).click();
    await reason.fill('write to notes/ instead');
    await reason.press('Shift+Enter');
    await reason.pressSequentially('please');
    await expect(reason).toHaveValue('write to notes/ instead\nplease');
    await reason.press('Enter');
    await expect(page.getByTestId('message-list')).toContainText('Understood, not there.');
    await expect(page.getByTestId('tool-card-deny-reason').last()).toContainText('write to notes/ instead');
    expect(told).toContain('write to notes/ instead');
    server.fallback(undefined);
  });

  test('a conversation a palette run starts is named by the argument typed, not a default', async ({ appPage: page, host }) => {
    test.skip(!host, 'writes a workspace file next to the headless host');
    const workspace = path.join(host!.dataDir, 'workspace');
    await fs.mkdir(path.join(workspace, 'chat-defects'), { recursive: true });
    await fs.writeFile(path.join(workspace, 'chat-defects', 'notes.md'), 'hello\n');
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('conversation-new').click();
    const composer = page.getByTestId('chat-composer');
    await composer.click();
    await composer.pressSequentially('+readfile');
    const palette = page.getByTestId('palette');
    await expect(palette.getByTestId('palette-item-readfile').first()).toBeVisible();
    await page.keyboard.press('Enter');
    await palette.getByTestId('arg-path').fill('chat-defects/notes.md');
    await palette.getByTestId('palette-run').click();
    await expect(page.getByTestId('tool-card').filter({ hasText: '+readfile' }).last().getByTestId('tool-card-status')).toHaveText(/ok/);
    await expect(page.locator('.conversation-item.current .conversation-title')).toHaveText('Read file: chat-defects/notes.md');
    await screenshot(page, 'chat-defects-3-title');
  });

  test('the first provider added makes one of its models the model of new conversations', async ({ appPage: page, host }) => {
    test.skip(!host, 'clears the default model through the headless host’s API');
    await rpc(host!, 'settings.set', { defaultModel: null });
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    const name = await new AppShell(page).addProvider({ name: 'First', url: server.url });
    const item = page.getByTestId('provider-item').filter({ hasText: name });
    await expect(item.getByTestId('provider-verdict')).toHaveAttribute('data-ok', 'true');
    const select = page.getByTestId('default-model');
    await expect(select.locator('option:checked')).toHaveText('defects-model');
    await expect(select.locator('option:checked')).not.toHaveText(/not listed/);
    await expect(select.locator('option:checked').locator('xpath=..')).toHaveAttribute('label', name);
    await expect.poll(async () => (await rpc<{ defaultModel: { model: string } | null }>(host!, 'settings.get', {})).defaultModel?.model).toBe('defects-model');
    await select.scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-defects-4-default-model');

    // Once chosen, another provider leaves it alone.
    const before = (await rpc<{ defaultModel: unknown }>(host!, 'settings.get', {})).defaultModel;
    await new AppShell(page).addProvider({ name: 'Second', url: server.url });
    await expect(page.getByTestId('provider-verdict').last()).toHaveAttribute('data-ok', 'true');
    expect((await rpc<{ defaultModel: unknown }>(host!, 'settings.get', {})).defaultModel).toEqual(before);
  });
});
