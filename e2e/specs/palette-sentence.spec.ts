/**
 * The `+` palette read as a sentence (issue "the palette accepts sentences"): a blank does not
 * close it, so "+show what is in a folder" is typed whole, and the sentence ranking lists the
 * built-in listdir first with the words it matched — a name search finds nothing for it.
 * Enter picks it, its form is filled and run from the keyboard, and the `+sentence` leaves the
 * composer. One word still searches names by prefix; Escape closes a sentence as it does a name.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { rpc } from '../fixtures/host';
import { expect, screenshot, test } from '../fixtures';

const FOLDER = 'e2e-palette-sentence';

test('a sentence typed after + finds its tool, which runs from the keyboard', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec writes workspace files next to the headless host');
  test.setTimeout(90_000);
  await fs.mkdir(path.join(host!.dataDir, 'workspace', FOLDER), { recursive: true });
  await fs.writeFile(path.join(host!.dataDir, 'workspace', FOLDER, 'alpha-notes.txt'), 'a');
  await fs.writeFile(path.join(host!.dataDir, 'workspace', FOLDER, 'beta-notes.txt'), 'b');
  const sentence = 'show what is in a folder';
  // The name search has nothing for the sentence: what the palette lists comes from the ranking.
  expect((await rpc<{ items: unknown[] }>(host!, 'tools.search', { q: sentence })).items).toEqual([]);

  await page.getByTestId('nav-chat').click();
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  const palette = page.getByTestId('palette');

  // 1. One word: the name search, by prefix.
  await composer.pressSequentially('+listd');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-testid', 'palette-item-listdir');
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  await composer.fill('');

  // 2. A sentence, after a word of the message: the palette stays open at each blank.
  await composer.pressSequentially('please +show ');
  await expect(palette).toBeVisible();
  await composer.pressSequentially(sentence.slice('show '.length));
  const first = palette.getByRole('option').first();
  await expect(first).toHaveAttribute('data-testid', 'palette-item-listdir');
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expect(first.getByTestId('palette-item-why')).toHaveText('matches show, folder');
  await expect(palette.getByRole('listbox')).toHaveAccessibleName(`Tools matching ${sentence}`);
  await expect(palette.getByTestId('palette-count')).toHaveText(/^The \d+ best matches, best first$/);
  await screenshot(page, 'palette-sentence-1-list');

  // 3. Escape closes it; typing on keeps it closed (the same +).
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  await composer.pressSequentially(' now');
  await expect(palette).toBeHidden();
  await composer.fill('');
  await composer.pressSequentially(`please +${sentence}`);
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-testid', 'palette-item-listdir');

  // 4. Enter picks it, the focus is in its first field, the keyboard runs it.
  await page.keyboard.press('Enter');
  const pathField = palette.getByTestId('arg-path');
  await expect(pathField).toBeFocused();
  // The field holds its default ('.'): typed over.
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(FOLDER);
  await expect(pathField).toHaveValue(FOLDER);
  // The path is a text box (Enter is a new line there): Ctrl/Cmd+Enter runs.
  await page.keyboard.press('ControlOrMeta+Enter');
  const card = page.getByTestId('tool-card').last();
  await expect(card).toContainText('listdir');
  await expect(card).toContainText('alpha-notes.txt');
  await expect(card).toContainText('beta-notes.txt');
  await expect(palette).toBeHidden();
  await expect(composer).toHaveValue('please');
  await expect(composer).toBeFocused();
  await screenshot(page, 'palette-sentence-2-card');
});
