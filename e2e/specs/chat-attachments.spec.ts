/**
 * Files attached to a message, as a user attaches them: a PNG and a Markdown file picked with
 * Attach, shown in the composer (a thumbnail, a chip), sent to the scripted model server (the
 * request carries the image as an image part and the file as text), and shown on the message,
 * also after a reload. A file of the wrong kind is refused in place with a sentence naming it.
 */
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { expect, screenshot, test } from '../fixtures';
import { AppShell } from '../pages/app-page';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  // A model name known to take images.
  server.setModels(['gpt-4o']);
});
test.afterAll(async () => {
  await server.close();
});

test('a PNG and a Markdown file attached to a message reach the model and stay on the message after a reload', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const shell = new AppShell(page);
  const provider = await shell.addProvider({ name: 'E2E attachments', url: server.url, apiKey: 'sk-e2e-attach-key-123' });
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, 'gpt-4o');

  const input = page.getByTestId('composer-file-input');
  // Wrong kind: refused in place, nothing attached.
  await input.setInputFiles({ name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0xff, 0xfe]) });
  await expect(page.getByTestId('composer-attach-errors')).toContainText('tool.exe is not a UTF-8 text file');
  await expect(page.getByTestId('composer-attachment')).toHaveCount(0);

  await input.setInputFiles([
    { name: 'pixel.png', mimeType: 'image/png', buffer: PNG },
    { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Release notes\n\n- attachments work\n') },
  ]);
  const tray = page.getByTestId('composer-attachments');
  await expect(tray.getByTestId('composer-attachment')).toHaveCount(2);
  await expect(tray.getByRole('img', { name: 'Attached image pixel.png' })).toBeVisible();
  await expect(tray).toContainText('notes.md');
  await expect(page.getByTestId('composer-attach-errors')).toHaveCount(0);
  // Keyboard: the Attach button is reachable and each file has its Remove button.
  await expect(page.getByTestId('composer-attach')).toBeEnabled();
  await expect(tray.getByRole('button', { name: 'Remove notes.md' })).toBeVisible();
  await screenshot(page, 'chat-attachments-1-composer');

  server.script([{ kind: 'text', text: 'A single pixel and your release notes.' }]);
  const composer = page.getByTestId('chat-composer');
  await composer.fill('What did I attach?');
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('A single pixel and your release notes.');
  await expect(page.getByTestId('composer-attachment')).toHaveCount(0);

  const body = server.requests.filter((r) => r.api === 'openai').at(-1)!.body;
  const user = body.messages.find((m: { role: string }) => m.role === 'user');
  const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
  expect(parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)).toEqual([`data:image/png;base64,${PNG.toString('base64')}`]);
  const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  expect(text).toContain('What did I attach?');
  expect(text).toContain('Attached file notes.md:\n```\n# Release notes\n\n- attachments work\n```');

  const shown = page.getByTestId('message-attachments');
  await expect(shown.getByTestId('message-attachment')).toHaveCount(2);
  await screenshot(page, 'chat-attachments-2-sent');

  await page.reload();
  const again = page.getByTestId('message-attachments');
  await expect(again.getByTestId('message-attachment')).toHaveCount(2);
  await expect(again.getByRole('img', { name: 'Attached image pixel.png' })).toBeVisible();
  await expect(again).toContainText('notes.md');
  await screenshot(page, 'chat-attachments-3-reloaded');

  // Edited and sent again: the new version keeps both files, and the model is given them again.
  server.script([{ kind: 'text', text: 'Still a pixel and your notes.' }]);
  const asked = server.requests.filter((r) => r.api === 'openai').length;
  await page.getByTestId('message-user').first().getByTestId('message-edit').click();
  const edit = page.getByTestId('message-edit-input');
  await edit.fill('And now, what did I attach?');
  await edit.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('Still a pixel and your notes.');
  await expect(page.getByTestId('branch-position')).toHaveText('2/2');
  const edited = page.getByTestId('message-attachments');
  await expect(edited.getByTestId('message-attachment')).toHaveCount(2);
  await expect(edited.getByRole('img', { name: 'Attached image pixel.png' })).toBeVisible();
  const resent = server.requests.filter((r) => r.api === 'openai');
  expect(resent.length).toBeGreaterThan(asked);
  expect(JSON.stringify(resent.at(-1)!.body)).toContain(`data:image/png;base64,${PNG.toString('base64')}`);

  // Exported as JSON and imported back: the copy shows the image and the file.
  const list = page.getByTestId('conversation-list');
  const current = list.locator('.conversation-item.current');
  await current.hover();
  await current.getByTestId('conversation-export').click();
  await page.keyboard.press('ArrowDown');
  await expect(list.getByTestId('conversation-export-json')).toBeFocused();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const originalId = await current.getAttribute('data-conversation-id');
  await list.getByTestId('conversation-import-file').setInputFiles((await download.path())!);
  await expect(list.getByTestId('conversation-imported')).toContainText('Imported');
  await expect(list.getByTestId('conversation-imported')).not.toContainText('not brought back');
  await expect.poll(() => current.getAttribute('data-conversation-id')).not.toBe(originalId);
  const copied = page.getByTestId('message-attachments');
  await expect(copied.getByTestId('message-attachment')).toHaveCount(2);
  await expect(copied.getByRole('img', { name: 'Attached image pixel.png' })).toBeVisible();
  await expect(copied).toContainText('notes.md');
  await screenshot(page, 'chat-attachments-4-imported');
});
