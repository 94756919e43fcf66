/**
 * Agent profiles and documents as a user meets them (issue 15): Settings → Agents — a profile
 * created by keyboard (the core's refusal shown on each wrong field, nothing typed lost, a
 * draft kept across screens), a built-in duplicated, one disabled and the warning on a profile
 * that delegates to it; Inspect → Documents — files written with `+writefile` listed with
 * their versions, tags edited, the list filtered by a tag, the file opened in Files; with a
 * summary model picked in Settings → Models, a written file's summary comes from that model.
 */
import type { Page } from '@playwright/test';
import { startScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 1024, height: 768 };

/** No element of the page is wider than the window (a clipped form or an overflowing list is). */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
  });
  expect(overflow, 'the page scrolls sideways').toBeLessThanOrEqual(0);
}

/** Writes a file with `+writefile` from the chat's palette (the chat is open). */
async function writeFromPalette(page: Page, path: string, content: string, mode: 'create' | 'replace' = 'create'): Promise<void> {
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially('+writefile');
  const palette = page.getByTestId('palette');
  await expect(palette.getByTestId('palette-item-writefile')).toBeVisible();
  await page.keyboard.press('Enter');
  await palette.getByTestId('arg-path').fill(path);
  await palette.getByTestId('arg-content').fill(content);
  if (mode === 'replace') await palette.getByTestId('arg-mode').selectOption('replace');
  await palette.getByTestId('palette-run').click();
  await expect(page.getByTestId('tool-card').last()).toContainText(path);
}

test('agents: a profile made by keyboard, field errors from the core, a built-in duplicated, a disabled delegate warned about', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(WIDE);
  const shell = new AppShell(page);
  await shell.open('settings');
  const section = page.getByTestId('settings-agents');
  const item = (name: string) => section.locator(`[data-testid="agent-item"][data-agent="${name}"]`);
  await expect(item('analyst')).toContainText('built-in');
  await expect(item('writer')).toBeVisible();
  await expect(item('researcher')).toBeVisible();
  // Built-ins are viewed, duplicated and switched off, never edited or deleted.
  await expect(item('writer').getByTestId('agent-edit')).toHaveCount(0);
  await expect(item('writer').getByTestId('agent-delete')).toHaveCount(0);

  // 1. A new profile by keyboard: a bad name and a step limit that is no number.
  await section.getByTestId('agent-add').focus();
  await page.keyboard.press('Enter');
  const form = section.getByTestId('agent-form');
  await expect(form.getByTestId('agent-form-name')).toBeFocused();
  await page.keyboard.type('Notes Keeper');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Notes keeper');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Keeps the notes of a task in the workspace.');
  await page.keyboard.press('Tab');
  await page.keyboard.type('You keep notes.');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Write them to notes/.');
  await shell.tabToTestId('agent-form-delegate-writer');
  await page.keyboard.press('Space');
  await expect(form.getByTestId('agent-form-delegate-writer')).toBeChecked();
  await shell.tabToTestId('agent-form-maxSteps');
  await shell.retype('lots');
  await shell.tabToTestId('agent-form-save');
  await page.keyboard.press('Enter');

  // The core's refusal lands on each field, the first gets the focus; nothing typed is lost.
  await expect(form.getByTestId('agent-form-name-error')).toContainText('starts with a letter');
  await expect(form.getByTestId('agent-form-maxSteps-error')).toHaveText('“lots” is not a whole number: type one from 1 to 200');
  await expect(form.getByTestId('agent-form-name')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByTestId('agent-form-name')).toBeFocused();
  await expect(form.getByTestId('agent-form-systemPrompt')).toHaveValue('You keep notes.\nWrite them to notes/.');
  await expect(form.getByTestId('agent-form-description')).toHaveValue('Keeps the notes of a task in the workspace.');
  await form.scrollIntoViewIfNeeded();
  await screenshot(page, 'agents-1-field-errors');

  // Fixing a field clears its message only.
  await shell.retype('notes_keeper');
  await expect(form.getByTestId('agent-form-name-error')).toHaveCount(0);
  await expect(form.getByTestId('agent-form-maxSteps-error')).toBeVisible();
  await shell.tabToTestId('agent-form-maxSteps');
  await shell.retype('8');
  // What is typed survives a visit to another screen.
  await shell.open('chat');
  await shell.open('settings');
  await expect(form.getByTestId('agent-form-name')).toHaveValue('notes_keeper');
  await expect(form.getByTestId('agent-form-maxSteps')).toHaveValue('8');
  await form.getByTestId('agent-form-save').focus();
  await page.keyboard.press('Enter');
  await expect(section.getByTestId('agent-notice')).toContainText('Agent “Notes keeper” saved.');
  // The focus lands on the saved agent, not on the page.
  await expect(item('notes_keeper').getByTestId('agent-edit')).toBeFocused();
  await expect(item('notes_keeper')).toContainText('delegates to writer');
  await expect(item('notes_keeper')).toContainText('at most 8 steps');
  await expect(item('notes_keeper').getByTestId('agent-warning')).toHaveCount(0);

  // A second profile under a name in use is refused on the name field before it replaces anything.
  await section.getByTestId('agent-add').click();
  await form.getByTestId('agent-form-name').fill('notes_keeper');
  await form.getByTestId('agent-form-description').fill('Another one.');
  await form.getByTestId('agent-form-save').click();
  await expect(form.getByTestId('agent-form-name-error')).toContainText("an agent named 'notes_keeper' exists already");
  // Cancel asks before it drops what was typed; Escape is Cancel; the focus goes back to "New agent".
  const unsaved = page.getByRole('alertdialog', { name: 'Discard unsaved changes?' });
  await page.keyboard.press('Escape');
  await expect(unsaved).toBeVisible();
  await expect(unsaved).toContainText('The changes typed in the agent form are lost.');
  // Escape in the question keeps editing.
  await page.keyboard.press('Escape');
  await expect(unsaved).toHaveCount(0);
  await expect(form.getByTestId('agent-form-description')).toHaveValue('Another one.');
  await form.getByTestId('agent-form-cancel').click();
  await unsaved.getByTestId('unsaved-discard').click();
  await expect(form).toHaveCount(0);
  await expect(section.getByTestId('agent-add')).toBeFocused();

  // 2. A built-in: viewed read-only, duplicated into an editable copy.
  await item('writer').getByTestId('agent-view').click();
  const view = item('writer').getByTestId('agent-form');
  await expect(view).toHaveAttribute('data-readonly', 'true');
  await expect(view.getByTestId('agent-form-description')).toBeDisabled();
  await expect(view.getByTestId('agent-form-close')).toBeFocused();
  await view.getByTestId('agent-form-duplicate').click();
  await expect(form.getByTestId('agent-form-name')).toHaveValue('writer_copy');
  await expect(form.getByTestId('agent-form-displayName')).toHaveValue('Writer (copy)');
  await expect(form.getByTestId('agent-form-tools-chosen')).toBeChecked();
  await form.getByTestId('agent-form-save').click();
  await expect(item('writer_copy')).toBeVisible();
  await expect(item('writer_copy')).not.toContainText('built-in');
  await expect(item('writer_copy').getByTestId('agent-edit')).toBeVisible();

  // 3. Writer switched off (by keyboard): the profiles that delegate to it say so.
  const writerSwitch = item('writer').getByTestId('agent-enabled');
  await writerSwitch.focus();
  await page.keyboard.press('Space');
  await expect(writerSwitch).toHaveAttribute('aria-checked', 'false');
  await expect(item('writer').getByTestId('agent-disabled-badge')).toBeVisible();
  await expect(item('notes_keeper').getByTestId('agent-warning')).toHaveText("⚠ delegates to 'writer', which is disabled");
  await expect(item('analyst').getByTestId('agent-warning')).toHaveText("⚠ delegates to 'writer', which is disabled");
  await item('notes_keeper').scrollIntoViewIfNeeded();
  await expectNoSidewaysScroll(page);
  await screenshot(page, 'agents-2-list-1440');

  // Deleting the copy that is not delegated to leaves no warning behind; deleting writer_copy is asked first.
  await item('writer_copy').getByTestId('agent-delete').click();
  const ask = page.getByRole('alertdialog', { name: 'Delete the agent “Writer (copy)”? Agents that delegate to it will show a warning.' });
  await expect(ask.getByTestId('agent-delete-confirm')).toBeFocused();
  await screenshot(page, 'agents-2-delete-confirm');
  await ask.getByTestId('agent-delete-confirm').click();
  await expect(item('writer_copy')).toHaveCount(0);

  // 4. At 1024 wide, the list and the form fit.
  await page.setViewportSize(NARROW);
  await item('analyst').scrollIntoViewIfNeeded();
  await expectNoSidewaysScroll(page);
  await screenshot(page, 'agents-3-list-1024');
  await expect(item('notes_keeper').getByTestId('agent-tools')).toHaveText('no registry tools');
  await item('notes_keeper').getByTestId('agent-edit').click();
  const edit = item('notes_keeper').getByTestId('agent-form');
  await expect(edit.getByTestId('agent-form-name')).toHaveAttribute('readonly', '');
  await expect(edit.getByTestId('agent-form-displayName')).toBeFocused();
  // Tools by keyboard: the mode, then a bundle ticked with Space.
  await shell.tabToTestId('agent-form-tools-none');
  await page.keyboard.press('ArrowRight');
  await expect(edit.getByTestId('agent-form-tools-chosen')).toBeChecked();
  await shell.tabToTestId('agent-form-bundle-files');
  await page.keyboard.press('Space');
  await expect(edit.getByTestId('agent-form-bundle-files')).toBeChecked();
  await expect(edit.getByTestId('agent-form-tools-chosen').locator('..')).toContainText('1 bundle, 0 tools ticked');
  await edit.scrollIntoViewIfNeeded();
  await expectNoSidewaysScroll(page);
  await screenshot(page, 'agents-4-edit-1024');
  await edit.getByTestId('agent-form-save').click();
  await expect(item('notes_keeper').getByTestId('agent-tools')).toHaveText('Files');
  await expect(item('analyst').getByTestId('agent-tools')).toContainText('Files');

  // 5. Writer switched on again: the warnings go (the host is shared by later specs, which delegate to it).
  await item('writer').getByTestId('agent-enabled').click();
  await expect(item('writer').getByTestId('agent-enabled')).toHaveAttribute('aria-checked', 'true');
  await expect(item('writer').getByTestId('agent-disabled-badge')).toHaveCount(0);
  await expect(item('analyst').getByTestId('agent-warning')).toHaveCount(0);
  await expect(item('notes_keeper').getByTestId('agent-warning')).toHaveCount(0);
  expect(shell.consoleErrors).toEqual([]);
});

test('documents: files written by +writefile are listed with versions, tagged, filtered by a tag, opened in Files', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(WIDE);
  const shell = new AppShell(page);

  const writeFile = (path: string, content: string, mode: 'create' | 'replace' = 'create') => writeFromPalette(page, path, content, mode);

  // 1. Two files written from the chat's + palette, the report twice.
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await writeFile('e2e-docs/report.md', '# Sales report\nQ3 sales rose 12 %.\n');
  await writeFile('e2e-docs/notes.txt', 'loose notes\n');
  await writeFile('e2e-docs/report.md', '# Sales report\nQ3 sales rose 12 %.\nQ4 looks flat.\n', 'replace');

  // 2. Inspect → Documents lists both, newest change first; the report has two versions.
  await shell.open('inspect');
  await page.getByTestId('inspect-tab-documents').click();
  const tab = page.getByTestId('documents-tab');
  const item = (path: string) => tab.locator(`[data-testid="document-item"][data-path="${path}"]`);
  await expect(item('e2e-docs/report.md')).toBeVisible();
  await expect(item('e2e-docs/notes.txt')).toBeVisible();
  await expect(tab.getByTestId('document-item').first()).toHaveAttribute('data-path', 'e2e-docs/report.md');
  await expect(item('e2e-docs/report.md')).toContainText('text/markdown');
  // By keyboard: the list is one Tab stop, Enter opens the focused document.
  await item('e2e-docs/report.md').focus();
  await page.keyboard.press('Enter');
  await expect(item('e2e-docs/report.md')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(item('e2e-docs/notes.txt')).toHaveAttribute('aria-selected', 'true');
  await expect(item('e2e-docs/notes.txt')).toBeFocused();
  await expect(tab.getByTestId('document-path')).toHaveText('e2e-docs/notes.txt');
  await page.keyboard.press('Home');
  await expect(item('e2e-docs/report.md')).toHaveAttribute('aria-selected', 'true');
  const details = tab.getByTestId('document-details');
  await expect(details.getByTestId('document-path')).toHaveText('e2e-docs/report.md');
  await expect(details.getByTestId('document-summary')).toContainText('# Sales report');
  const versions = details.getByTestId('document-version');
  await expect(versions).toHaveCount(2);
  // Newest first: #2, its size, a short hash.
  await expect(versions.first().locator('td').first()).toHaveText('2');
  await expect(versions.last().locator('td').first()).toHaveText('1');
  await expect(versions.first()).toContainText('50 B');
  await expect(versions.first().locator('code').last()).toHaveText(/^[0-9a-f]{10}$/);
  await expect(versions.last()).toContainText('35 B');

  // 3. Tags and a description, saved; what is typed survives a visit to another tab.
  await details.getByTestId('document-tags').fill('report, q3');
  await page.getByTestId('inspect-tab-files').click();
  await page.getByTestId('inspect-tab-documents').click();
  await expect(details.getByTestId('document-tags')).toHaveValue('report, q3');
  await details.getByTestId('document-description').fill('The quarterly sales report.');
  await details.getByTestId('document-describe-save').click();
  await expect(details.getByTestId('document-describe-saved')).toBeVisible();
  await expect(item('e2e-docs/report.md').getByTestId('document-item-tags')).toHaveText(/report\s*q3/);
  await screenshot(page, 'documents-1-details-1440');

  // 4. Filtered by the tag (typed, then by its chip): only the report; cleared: both again.
  await tab.getByTestId('documents-filter-tags').fill('q3');
  await expect(tab.getByTestId('document-item')).toHaveCount(1);
  await expect(item('e2e-docs/report.md')).toBeVisible();
  await tab.getByTestId('documents-filter-clear').click();
  // Both of this spec's documents again (other specs of the worker may have written their own).
  await expect(tab.getByTestId('document-item').filter({ hasText: 'e2e-docs/' })).toHaveCount(2);
  await tab.getByTestId('documents-tag-chip-report').click();
  await expect(tab.getByTestId('documents-filter-tags')).toHaveValue('report');
  await expect(tab.getByTestId('document-item')).toHaveCount(1);
  // A tag no document has: the list says so.
  await tab.getByTestId('documents-filter-tags').fill('nothing-has-this');
  await expect(tab.getByTestId('documents-empty')).toHaveText('No document matches these filters.');
  await tab.getByTestId('documents-filter-tags').fill('q3');
  await expect(tab.getByTestId('document-item')).toHaveCount(1);
  await tab.getByTestId('documents-filter-type').selectOption('text/markdown');
  await expect(tab.getByTestId('document-item')).toHaveCount(1);
  await expectNoSidewaysScroll(page);
  await screenshot(page, 'documents-2-filtered-1440');

  await page.setViewportSize(NARROW);
  await tab.getByTestId('documents-filter-clear').click();
  // Both of this spec's documents again (other specs of the worker may have written their own).
  await expect(tab.getByTestId('document-item').filter({ hasText: 'e2e-docs/' })).toHaveCount(2);
  await expectNoSidewaysScroll(page);
  await screenshot(page, 'documents-3-1024');

  // 5. Open in Files: the Files tab, with the file's content.
  await details.getByTestId('document-open-file').click();
  await expect(page.getByTestId('inspect-tab-files')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('screen-inspect')).toContainText('Q4 looks flat.');
  expect(shell.consoleErrors).toEqual([]);
});

test('documents: with a summary model picked in Settings, a written file gets its summary from that model', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(WIDE);
  const MODEL = 'summary-model';
  const summary = 'Regional sales for Q3: north leads with 30, south trails with 12.';
  const server = await startScriptedModelServer();
  server.setModels([MODEL]);
  server.fallback(() => ({ kind: 'text', text: summary }));
  const shell = new AppShell(page);
  const picker = page.getByTestId('document-summary-model');
  try {
    // 1. Settings → Models: the model for document summaries, saved as it is picked.
    const provider = await shell.addProvider({ name: 'Summaries server', url: server.url });
    await expect(picker.locator('option').first()).toHaveText('None: the first lines');
    const option = picker.locator(`optgroup[label=${JSON.stringify(provider)}] > option`).filter({ hasText: new RegExp(`^${MODEL}$`) });
    await option.waitFor({ state: 'attached' });
    await picker.selectOption({ value: (await option.getAttribute('value'))! });
    await expect(page.getByTestId('document-summary-model-saved')).toBeVisible();
    await picker.scrollIntoViewIfNeeded();
    await screenshot(page, 'documents-4-summary-model-setting');
    // Kept: read again after a visit to another screen.
    await shell.open('chat');
    await shell.open('settings');
    await expect(picker.locator('option:checked')).toHaveText(MODEL);

    // 2. A file written from the palette: its summary is the model's, for its version.
    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    await writeFromPalette(page, 'e2e-summary/sales.md', '# Sales by region\nnorth 30\nsouth 12\n');
    await shell.open('inspect');
    await page.getByTestId('inspect-tab-documents').click();
    const tab = page.getByTestId('documents-tab');
    await tab.locator('[data-testid="document-item"][data-path="e2e-summary/sales.md"]').click();
    const details = tab.getByTestId('document-details');
    await expect(details.getByTestId('document-summary')).toHaveText(summary, { timeout: 30_000 });
    await expect(details.getByTestId('document-summary-source')).toHaveText(`Written by ${MODEL} (${provider}) for version 1.`);
    const asked = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0]!.body.messages)).toContain('Document: e2e-summary/sales.md (text/markdown');
    await screenshot(page, 'documents-5-model-summary');
    expect(shell.consoleErrors).toEqual([]);
  } finally {
    // The data folder is shared with the worker's other specs: no summary model after this one.
    await shell.open('settings');
    await picker.selectOption({ value: '' });
    await expect(picker.locator('option:checked')).toHaveText('None: the first lines');
    await server.close();
  }
});
