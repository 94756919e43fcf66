/**
 * Memory sources as a user meets them: Settings → Memory sources adds a FileSource (a folder
 * and a rule); a bad rule is named by its line and nothing typed is lost; then in the chat the
 * `file` tool, run from the + palette, loads a file of that folder and the card shows its text.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

test('memory sources: a FileSource added in Settings, then file load from the + palette shows the file', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-e2e-notes-'));
  await fs.writeFile(path.join(folder, 'todo.md'), '- buy milk\n- call Ada\n');
  const id = `e2e-notes-${Date.now().toString(36)}`;
  const shell = new AppShell(page);

  // 1. Settings → Memory sources: a rule with a typo is named by its line; fixed, the source is saved.
  await shell.open('settings');
  const section = page.getByTestId('memory-sources');
  await section.scrollIntoViewIfNeeded();
  await section.getByTestId('memory-source-id').fill(id);
  await section.getByTestId('memory-source-folder').fill(folder);
  await section.getByTestId('memory-source-rules').fill('*.md ReadWrit');
  await section.getByTestId('memory-source-save').click();
  await expect(section.getByTestId('memory-source-error')).toHaveText('Rule on line 1 (*.md ReadWrit): write a glob, a space, then one of ReadOnly, Partner, Human, Append, ReadWrite, Admin.');
  await expect(section.getByTestId('memory-source-folder')).toHaveValue(folder);
  await section.getByTestId('memory-source-rules').fill('*.md ReadWrite\n** ReadOnly');
  await section.getByTestId('memory-source-save').click();
  await expect(section.getByTestId('memory-source-saved')).toHaveText(`Source ${id} saved.`);
  const row = section.getByTestId(`memory-source-${id}`);
  await expect(row).toContainText('*.md → ReadWrite, ** → ReadOnly');
  await expect(section.getByTestId(`memory-source-state-${id}`)).toHaveText('active');
  await row.scrollIntoViewIfNeeded();
  await screenshot(page, 'memory-sources-1-settings');

  // 2. The chat: + palette → file, op load, path todo.md; the card shows the file's text.
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially('+file');
  const palette = page.getByTestId('palette');
  await palette.getByTestId('palette-item-file').click();
  await palette.getByTestId('arg-op').selectOption('load');
  await palette.getByTestId('arg-path').fill('todo.md');
  await palette.getByTestId('arg-source_id').fill(id);
  await palette.getByTestId('palette-run').click();
  const card = page.getByTestId('tool-card').last();
  await expect(card).toContainText('- buy milk');
  await expect(card).toContainText("'todo.md' loaded into block 'file:");
  await screenshot(page, 'memory-sources-2-file-load');
  expect(shell.consoleErrors).toEqual([]);

  // Leave the shared data folder as it was.
  await shell.open('settings');
  await page.getByTestId('memory-sources').getByRole('button', { name: `Remove source ${id}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId(`memory-source-${id}`)).toHaveCount(0);
  await fs.rm(folder, { recursive: true, force: true });
});

test('a folder watcher stopped by an error offers Resume in Inspect → Memory, and resuming watches again', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-e2e-watch-'));
  const id = `e2e-watch-${Date.now().toString(36)}`;
  const shell = new AppShell(page);

  await shell.open('settings');
  const section = page.getByTestId('memory-sources');
  await section.scrollIntoViewIfNeeded();
  await section.getByTestId('memory-source-kind').selectOption('watch');
  await section.getByTestId('memory-source-id').fill(id);
  await section.getByTestId('memory-source-folder').fill(folder);
  await section.getByTestId('memory-source-save').click();
  await expect(section.getByTestId(`memory-source-state-${id}`)).toHaveText('watching');

  // The folder goes away while paused: resuming fails, and the watcher is in error.
  await shell.open('inspect');
  await page.getByTestId('inspect-tab-memory').click();
  const row = page.getByTestId('memory-source').filter({ hasText: id });
  await expect(row).toHaveAttribute('data-state', 'watching');
  await row.getByRole('button', { name: 'Pause' }).click();
  await expect(row).toHaveAttribute('data-state', 'paused');
  await fs.rm(folder, { recursive: true, force: true });
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(row).toHaveAttribute('data-state', 'error');
  await expect(row).toContainText('does not exist');
  // In error, the button tries again (Resume), not Pause.
  await expect(row.getByRole('button', { name: 'Pause' })).toHaveCount(0);
  await fs.mkdir(folder, { recursive: true });
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(row).toHaveAttribute('data-state', 'watching');
  expect(shell.consoleErrors).toEqual([]);

  await shell.open('settings');
  await page.getByTestId('memory-sources').getByRole('button', { name: `Remove source ${id}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId(`memory-source-${id}`)).toHaveCount(0);
  await fs.rm(folder, { recursive: true, force: true });
});
