/**
 * The chat as a new user meets it (issue "Chat with the + palette"): a built-in tool found
 * with `+` and a prefix, its form filled and run, the card; a run routed to
 * `variable:results`, its manifest opened in the inspector, searched, exported to a file
 * that is then opened; a two-step workflow with `@model none`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, screenshot, test } from '../fixtures';

test('a new user runs tools from the + palette, routes one to a buffer, inspects it, and runs a workflow', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec writes workspace files next to the headless host');
  test.setTimeout(90_000);
  const workspace = path.join(host!.dataDir, 'workspace');
  const lines = Array.from({ length: 400 }, (_, i) => (i % 50 === 7 ? `line ${i + 1}: TODO check the needle` : `line ${i + 1}: hay`));
  await fs.mkdir(path.join(workspace, 'e2e-chat'), { recursive: true });
  await fs.writeFile(path.join(workspace, 'e2e-chat', 'notes.txt'), lines.join('\n') + '\n');
  await fs.mkdir(path.join(workspace, 'workflows'), { recursive: true });
  await fs.writeFile(
    path.join(workspace, 'workflows', 'e2e-two-step.md'),
    [
      '# Two steps',
      '',
      '## Gather the notes',
      '@input file:e2e-chat/notes.txt (output=variable:gathered)',
      '@model none',
      '',
      '## Archive them',
      '@input variable:gathered (output=file:e2e-chat/archive-{today}.md, write-mode=replace)',
      '@model none',
      '',
    ].join('\n'),
  );

  await page.getByTestId('nav-chat').click();
  const composer = page.getByTestId('chat-composer');
  await expect(composer).toBeVisible();

  // 1. `+` and a prefix find the built-in readfile; its form runs it; the card shows the value.
  await composer.click();
  await composer.pressSequentially('+readf');
  const palette = page.getByTestId('palette');
  await expect(palette.getByTestId('palette-item-readfile')).toBeVisible();
  await page.keyboard.press('Enter');
  await palette.getByTestId('arg-path').fill('e2e-chat/notes.txt');
  await screenshot(page, 'chat-1-palette');
  await palette.getByTestId('palette-run').click();
  const firstCard = page.getByTestId('tool-card').last();
  await expect(firstCard).toContainText('line 8: TODO check the needle');
  await screenshot(page, 'chat-2-card');

  // 2. The same tool routed to variable:results: the card holds the manifest, not the text.
  await composer.click();
  await composer.pressSequentially('+readfile');
  await expect(palette.getByTestId('palette-item-readfile')).toBeVisible();
  await page.keyboard.press('Enter');
  await palette.getByTestId('arg-path').fill('e2e-chat/notes.txt');
  await palette.getByTestId('palette-output').fill('variable:results');
  await palette.getByTestId('palette-run').click();
  const routedCard = page.getByTestId('tool-card').last();
  await expect(routedCard).toContainText('[tool routed] readfile -> variable:results');
  await expect(routedCard).not.toContainText('line 8: TODO');
  await screenshot(page, 'chat-3-manifest');

  // 3. The manifest opens the buffer in the inspector; a search highlights the matches.
  await routedCard.getByTestId('manifest-link').click();
  await expect(page.getByTestId('screen-inspect')).toBeVisible();
  const viewer = page.getByTestId('buffer-viewer');
  await expect(viewer).toContainText('line 1: hay');
  await page.getByTestId('buffer-search-input').fill('needle');
  await page.getByTestId('buffer-search-input').press('Enter');
  // readfile's `content` is what was routed: one buffer line per file line, 8 of them with the word.
  await expect(page.getByTestId('buffer-search-result')).toHaveCount(8);
  await expect(page.getByTestId('buffer-search-result').nth(1)).toContainText('line 58: TODO check the needle');
  await expect(page.getByTestId('buffer-search-result').first().locator('mark')).toHaveText('needle');
  await screenshot(page, 'chat-4-buffer-search');

  // 4. Export it to a workspace file and open that file.
  await page.getByTestId('buffer-export-path').fill('e2e-chat/exported.md');
  await page.getByTestId('buffer-export-submit').click();
  await page.getByTestId('buffer-export-open').click();
  await expect(page.getByTestId('file-viewer')).toContainText('line 400: hay');
  expect(await fs.readFile(path.join(workspace, 'e2e-chat', 'exported.md'), 'utf8')).toBe(lines.join('\n') + '\n');
  await screenshot(page, 'chat-5-file');

  // 5. A two-step workflow with @model none, from the chat's side panel.
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('workflow-run-e2e-two-step.md').click();
  const progress = page.getByTestId('workflow-progress');
  await expect(progress).toContainText('Archive them');
  await expect(progress.getByText(/done/i).first()).toBeVisible();
  await expect
    .poll(async () => (await fs.readdir(path.join(workspace, 'e2e-chat'))).filter((f) => f.startsWith('archive-')).length)
    .toBe(1);
  const archive = (await fs.readdir(path.join(workspace, 'e2e-chat'))).find((f) => f.startsWith('archive-'))!;
  expect(await fs.readFile(path.join(workspace, 'e2e-chat', archive), 'utf8')).toBe(lines.join('\n') + '\n');
  await screenshot(page, 'chat-6-workflow');
});
