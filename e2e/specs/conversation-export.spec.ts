/**
 * A conversation as a file and back: one with a tool card and a message is exported as JSON
 * from its row's Export menu (the download captured), imported back with Import…, and the copy
 * opens with the same card and message; the list's search finds a word only a message body
 * holds, and says in which message.
 */
import fs from 'node:fs/promises';
import { expect, screenshot, test } from '../fixtures';

test('a conversation exported as JSON imports back as a copy, and the search finds a word in a message body', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  await page.getByTestId('nav-chat').click();
  // Its own conversation: the specs of a worker share a data folder, and others leave theirs.
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await expect(composer).toBeVisible();

  // A tool run (it names the conversation) and a message with a word found nowhere else.
  await composer.click();
  await composer.pressSequentially('+now');
  const palette = page.getByTestId('palette');
  await expect(palette.getByTestId('palette-item-now')).toBeVisible();
  await page.keyboard.press('Enter');
  await palette.getByTestId('palette-run').click();
  await expect(page.getByTestId('tool-card')).toHaveCount(1);
  await composer.click();
  await composer.fill('Keep the word zanzibarine for later');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-list').getByText('Keep the word zanzibarine for later')).toBeVisible();

  const list = page.getByTestId('conversation-list');
  const items = list.getByTestId('conversation-item');
  const current = list.locator('.conversation-item.current');
  await expect(current).toHaveCount(1);
  const before = await items.count();
  const originalId = await current.getAttribute('data-conversation-id');
  const title = (await current.locator('.conversation-title').textContent())!;
  expect(title).not.toContain('zanzibarine');

  // Export as JSON: a download of the conversation file with its card.
  await current.hover();
  await current.getByTestId('conversation-export').click();
  await expect(list.getByTestId('conversation-export-markdown')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(list.getByTestId('conversation-export-json')).toBeFocused();
  await screenshot(page, 'conversation-export-1-menu');
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(download.suggestedFilename()).toMatch(/\.json$/);
  const file = (await download.path())!;
  const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { format: string; version: number; messages: { role: string; text: string; tool?: { slug: string } }[] };
  expect(doc).toMatchObject({ format: 'toolsmith-conversation', version: 2 });
  expect(doc.messages.some((m) => m.role === 'tool' && m.tool?.slug === 'now')).toBe(true);
  expect(doc.messages.some((m) => m.text.includes('zanzibarine'))).toBe(true);

  // A file that is not one is refused, naming why; nothing is added.
  await list.getByTestId('conversation-import-file').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await expect(list.getByTestId('conversation-import-error')).toContainText('not a Toolsmith conversation file');
  await expect(items).toHaveCount(before);

  // Import it back: a second conversation, opened, with the card and the message.
  await list.getByTestId('conversation-import-file').setInputFiles(file);
  await expect(list.getByTestId('conversation-imported')).toContainText(`Imported “${title}”`);
  await expect(items).toHaveCount(before + 1);
  await expect(current).toHaveCount(1);
  expect(await current.getAttribute('data-conversation-id')).not.toBe(originalId);
  await expect(page.getByTestId('tool-card')).toHaveCount(1);
  await expect(page.getByTestId('message-list').getByText('Keep the word zanzibarine for later')).toBeVisible();
  await screenshot(page, 'conversation-export-2-imported');

  // A third conversation without the word; the search finds the two by their message body.
  await page.getByTestId('conversation-new').click();
  await expect(items).toHaveCount(before + 2);
  await expect(list.getByTestId('conversation-imported')).toHaveCount(0);
  await list.getByTestId('conversation-search').fill('ZANZIBAR');
  await expect(items).toHaveCount(2);
  for (const match of await list.getByTestId('conversation-match').all()) await expect(match).toContainText('You: Keep the word zanzibarine for later');
  await screenshot(page, 'conversation-export-3-search');
  await list.getByTestId('conversation-search').fill('no such word anywhere');
  await expect(items).toHaveCount(0);
  await expect(list).toContainText('No conversation has “no such word anywhere” in its title or messages.');
});

test('a conversation found by a word deep in it opens at that message', async ({ appPage: page }) => {
  await page.getByTestId('nav-chat').click();
  const list = page.getByTestId('conversation-list');
  // A long conversation, imported: 80 messages, the word only in the 6th.
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  const messages = Array.from({ length: 80 }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 === 0 ? 'user' : 'assistant',
    createdAt: at(i),
    text: i === 5 ? 'The answer hides the word quetzalcoatlite right here.' : `Line ${i} of a long talk about nothing in particular.\n\nWith a second paragraph to take some room.`,
  }));
  const file = { format: 'toolsmith-conversation', version: 1, conversation: { title: 'A long talk' }, messages };
  await list.getByTestId('conversation-import-file').setInputFiles({ name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
  await expect(list.getByTestId('conversation-imported')).toContainText('Imported “A long talk” (80 messages)');
  await page.getByTestId('conversation-new').click();

  await list.getByTestId('conversation-search').fill('quetzalcoatlite');
  const found = list.getByTestId('conversation-item');
  await expect(found).toHaveCount(1);
  await found.first().click();
  const target = page.getByTestId('message-list').getByText('The answer hides the word quetzalcoatlite right here.');
  await expect(target).toBeInViewport();
  // The newest message is out of view: the chat did not jump to the bottom.
  await expect(page.getByTestId('message-list').getByText('Line 79 of a long talk')).not.toBeInViewport();
  await screenshot(page, 'conversation-export-4-found-message');
});
