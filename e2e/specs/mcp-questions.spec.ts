/**
 * An MCP server's question to the user in the middle of a call (elicitation), as a user answers
 * it: a server added on the Tools screen (Add → Program (stdio)) whose `ask` tool asks "Who is
 * asking?" with a required Name of at least two characters. Run from the tester, the question
 * shows in a prompt; an answer too short is refused with why and the prompt stays; a fitting
 * one is sent and the tool says what came back. Declined, the tool hears `decline`; run from the
 * `+` palette in the chat, the same prompt shows there. A 2026-07-28 server asks the same with
 * a choice too.
 */
import type { Page } from '@playwright/test';
import path from 'node:path';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { addStdioServer, removeServers } from '../pages/mcp-servers';

const TESTING = path.resolve(import.meta.dirname, '..', '..', 'electron', 'core', 'mcp-client', 'testing');
const TEST_SERVER = path.join(TESTING, 'test-server.mjs');
const ERA_SERVER = path.join(TESTING, 'era-server.mjs');

const ELICIT = 'e2e-elicit';
const MODERN = 'e2e-ask-modern';

// The servers go at the end: the specs of a worker share its data folder, and these list tools
// that other specs look for by name (echo, add_numbers).
test.afterAll(async ({ host }) => {
  if (host) await removeServers(host, [ELICIT, MODERN]);
});


/** Opens a tool of a server's bundle in the tester. */
async function openTool(page: Page, bundleSlug: string, slug: string) {
  await page.getByTestId('bundle-list').getByTestId(`bundle-${bundleSlug}`).getByRole('button').first().click();
  await page.getByTestId(`open-tool-${slug}`).click();
  return page.getByTestId('tester');
}

test.describe('MCP servers ask the user', () => {
  test('the question of a server is answered in a prompt: too short is refused with why, a name is sent, a decline is heard', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP server is a program started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    await addStdioServer(page, shell, host!, ELICIT, [TEST_SERVER, 'elicit']);
    const tester = await openTool(page, ELICIT, 'ask');
    const result = tester.getByTestId('tester-result');

    // 1. Run: the server asks; the question shows in the tester, under the running call, the focus on it.
    await tester.getByTestId('tester-run').click();
    const question = page.getByTestId('mcp-question');
    await expect(question).toBeVisible();
    await expect(tester.getByTestId('mcp-question')).toBeVisible();
    await expect(question).toContainText('Who is asking?');
    await expect(question).toContainText(ELICIT);
    await expect(question.getByRole('heading')).toBeFocused();
    // Named and described for a screen reader: an alert dialog with the server's words.
    await expect(question).toHaveRole('alertdialog');
    await expect(question).toHaveAccessibleName('An MCP server asks you');
    await expect(question).toHaveAccessibleDescription(`${ELICIT} (while running ask) asks: Who is asking?`);
    await expect(tester.getByTestId('tester-run')).toHaveText(/Running/);

    // 2. A name of one character is refused with why; the prompt stays with what was typed.
    const name = question.getByLabel('Name');
    await name.focus();
    await page.keyboard.type('A');
    await question.getByTestId('mcp-question-send').click();
    await expect(question.getByTestId('mcp-question-error')).toHaveText('Name: at least 2 characters');
    await expect(question.getByRole('alert')).toHaveText('Name: at least 2 characters');
    await expect(question).toBeVisible();
    await expect(name).toHaveValue('A');
    await screenshot(page, 'mcp-questions-1-refused');

    // 3. A fitting name, sent by Enter: the prompt goes, the tool says what came back.
    await name.focus();
    await page.keyboard.type('da');
    await page.keyboard.press('Enter');
    await expect(question).toHaveCount(0);
    // The value is the tool's text, shown as JSON.
    await expect(result.getByTestId('tester-value')).toContainText(JSON.stringify('accept {"name":"Ada"}'));
    await screenshot(page, 'mcp-questions-2-accepted');

    // 4. Declined: the tool hears decline.
    await tester.getByTestId('tester-run').click();
    await expect(question).toBeVisible();
    await question.getByTestId('mcp-question-decline').click();
    await expect(question).toHaveCount(0);
    await expect(result.getByTestId('tester-value')).toContainText(JSON.stringify('decline'));

    // 5. Escape in the prompt cancels: the tool hears cancel.
    await tester.getByTestId('tester-run').click();
    await expect(question.getByRole('heading')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(question).toHaveCount(0);
    await expect(result.getByTestId('tester-value')).toContainText(JSON.stringify('cancel'));
    expect(shell.consoleErrors).toEqual([]);
  });

  test('the prompt shows over the chat for a tool run from the + palette, and a 2026-07-28 server asks with a choice', async ({ appPage: page, host }) => {
    test.skip(!host, 'the MCP servers are programs started next to the headless host');
    test.setTimeout(120_000);
    const shell = new AppShell(page);
    await addStdioServer(page, shell, host!, MODERN, [ERA_SERVER, 'modern']);

    await shell.open('chat');
    await page.getByTestId('conversation-new').click();
    const composer = page.getByTestId('chat-composer');
    await composer.click();
    await composer.pressSequentially('+ask');
    const palette = page.getByTestId('palette');
    // Both servers' `ask` may be listed: the one of this server, by its bundle.
    const item = palette.locator('[data-testid="palette-item-ask"]').filter({ hasText: MODERN });
    await expect(item.first()).toBeVisible();
    await item.first().click();
    // The focus is in its form: Ctrl+Enter runs it.
    await expect(page.getByTestId('palette-form').locator(':focus')).toHaveCount(1);
    await page.keyboard.press('ControlOrMeta+Enter');

    const question = page.getByTestId('mcp-question');
    await expect(question).toBeVisible();
    // In the palette, under the run that asks.
    await expect(page.getByTestId('palette-form').getByTestId('mcp-question')).toBeVisible();
    await expect(question).toContainText('Who is asking?');
    await expect(question).toContainText(MODERN);
    // The choice starts at the server's default.
    const size = question.getByRole('combobox');
    await expect(size).toHaveValue('l');
    await question.getByLabel('Name').fill('Grace');
    await size.selectOption('s');
    await screenshot(page, 'mcp-questions-3-palette-modern');
    await question.getByTestId('mcp-question-send').click();
    await expect(question).toHaveCount(0);
    const card = page.getByTestId('message-list').getByTestId('tool-card').filter({ hasText: '+ask' }).last();
    await expect(card).toHaveAttribute('data-status', 'ok');
    await expect(card).toContainText('accept');
    await expect(card).toContainText('"name":"Grace"');
    await expect(card).toContainText('"size":"s"');
    expect(shell.consoleErrors).toEqual([]);
  });
});
