/**
 * Oversized tool outputs as a new user meets them (docs/large-outputs.md): a provider pointing
 * at the scripted model server, a model that reads a 5 MB workspace file with readfile; the
 * card shows the gate (size, lines, tokens, share of the window, "stored as handle"); the
 * model calls tool_output and its read-grep sub-agent answers; Inspect → Stored outputs
 * shows the handle and its lines; the card's menu (by keyboard) routes the result to a
 * buffer and the manifest appears; the timeline records the handle, the extraction and the
 * change of choice.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from '../../electron/core/testing/scripted-model-server';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { callTool, lastToolResult, messagesOf } from '../fixtures/model-steps';

const MODEL = 'large-outputs-model';
const LINES = 80_000;
const ERROR_LINE = 61_234;

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels([MODEL]);
});
test.afterAll(async () => {
  await server.close();
});

const system = (r: RecordedRequest) => String(messagesOf(r).find((m) => m.role === 'system')?.content ?? '');
const isExtraction = (r: RecordedRequest) => String(messagesOf(r)[0]?.content ?? '').startsWith('You are an internal extraction agent');
/** The nonce of an extraction prompt: its final report must be wrapped in <ai-agent-NONCE-FINAL format="text">. */
function nonceOf(r: RecordedRequest): string {
  const m = /<ai-agent-([0-9a-f]+)-FINAL/.exec(system(r));
  if (!m) throw new Error('no nonce in the extraction prompt');
  return m[1]!;
}

function bigLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= LINES; i++) lines.push(i === ERROR_LINE ? 'ERROR order 77 failed: stock exhausted' : `INFO line ${String(i).padStart(6, '0')} all is well, nothing to see here ${'.'.repeat(20)}`);
  return lines.join('\n') + '\n';
}

test('a 5 MB result is stored behind a handle, extracted by the model, inspected, and routed to a buffer from its card', async ({ appPage: page, host }) => {
  test.skip(!host, 'the spec writes the 5 MB file into the headless host’s workspace');
  test.setTimeout(120_000);
  const shell = new AppShell(page);
  const text = bigLog();
  expect(Buffer.byteLength(text)).toBeGreaterThan(5_000_000);
  await fs.mkdir(path.join(host!.dataDir, 'workspace', 'e2e-large'), { recursive: true });
  await fs.writeFile(path.join(host!.dataDir, 'workspace', 'e2e-large', 'big.log'), text);

  // 1. A provider for the scripted server; a new conversation with its model.
  await shell.open('settings');
  await expect(page.getByTestId('settings-tool-outputs')).toBeVisible();
  await expect(page.getByTestId('tool-outputs-maxResultKiB')).toHaveValue('256');
  const provider = await shell.addProvider({ name: 'Large outputs server', url: server.url });
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(provider, MODEL);

  // 2. The model reads the file whole, gets the handle, extracts, answers.
  let handle = '';
  // With many tools in the data folder (other specs add them) the model may be given tool_search
  // instead of every tool: it then searches for readfile first, as a model would.
  const rest: ((req: RecordedRequest) => ScriptedReply)[] = [
    (req) => {
      handle = /handle = "([0-9a-f-]{36})"/.exec(lastToolResult(req))?.[1] ?? 'no-handle';
      return { kind: 'tools', calls: [{ name: 'tool_output', arguments: { handle, extract: 'the ERROR line and the order it names' } }] };
    },
    // The read-grep sub-agent: one Grep, then its final report in the nonce's wrapper.
    (req) => (isExtraction(req) ? { kind: 'tools', calls: [{ name: 'Grep', arguments: { file: handle, pattern: 'ERROR' } }] } : { kind: 'text', text: 'not the sub-agent' }),
    (req) => ({ kind: 'text', text: `<ai-agent-${nonceOf(req)}-FINAL format="text">line ${ERROR_LINE}: ERROR order 77 failed: stock exhausted</ai-agent-${nonceOf(req)}-FINAL>` }),
    () => ({ kind: 'text', text: 'Order 77 failed: stock exhausted.' }),
  ];
  const next = callTool({
    name: 'readfile',
    args: { path: 'e2e-large/big.log', maxBytes: 10_485_760 },
    search: 'read a file from the workspace (readfile)',
    then: (req) => rest.shift()?.(req) ?? { kind: 'text', text: 'end' },
  });
  server.script([next, next, next, next, next]);
  server.fallback(next);
  const composer = page.getByTestId('chat-composer');
  await composer.fill('What failed in e2e-large/big.log?');
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('Order 77 failed: stock exhausted.', { timeout: 60_000 });

  // The model was given the exact message, not 5 MB; the sub-agent's prompt named the handle.
  const main = server.requests.filter((r) => r.api === 'openai' && r.body?.messages && !isExtraction(r));
  const afterRead = main.find((r) => /^Tool output is too large/.test(lastToolResult(r)));
  expect(lastToolResult(afterRead!)).toMatch(/^Tool output is too large \(\d+ bytes, 80000 lines, \d+ tokens\)\.\nCall tool_output\(handle = "[0-9a-f-]{36}", extract = "what to extract"\)\./);
  expect(server.requests.filter(isExtraction)).toHaveLength(2);

  // 3. The readfile card shows the gate.
  const readCard = page.getByTestId('tool-card').filter({ hasText: '+readfile' });
  const gate = readCard.getByTestId('stored-gate');
  await expect(gate).toHaveAttribute('data-choice', 'handle');
  await expect(gate.getByTestId('stored-figures')).toContainText(/5\.\d MiB · 80,000 lines · ≈[\d,]+ tokens/);
  await expect(gate.getByTestId('stored-share')).toContainText(/% of the model’s 32,768-token window/);
  await expect(gate.getByTestId('stored-state')).toContainText(`stored as handle ${handle}`);
  // The card keeps a preview, not the 5 MB.
  await expect(readCard.getByTestId('tool-value')).toContainText('INFO line 000001');
  // The tool_output card shows its extraction.
  const extraction = page.getByTestId('tool-card').filter({ hasText: 'tool_output' }).getByTestId('extraction');
  await expect(extraction.getByTestId('extraction-strategy')).toHaveText('read-grep');
  await expect(extraction.getByTestId('extraction-calls')).toHaveText('2');
  await expect(extraction.getByTestId('extraction-tokens')).toContainText(/[\d,]+ in · [\d,]+ out/);
  await readCard.scrollIntoViewIfNeeded();
  await screenshot(page, 'large-1-gate');

  // 4. The handle's link opens Inspect → Stored outputs on it: its figures and its lines.
  await gate.getByTestId('stored-handle-link').click();
  await expect(page.getByRole('tab', { name: 'Stored outputs' })).toHaveAttribute('aria-selected', 'true');
  const item = page.getByTestId('output-item').filter({ hasText: handle });
  await expect(item).toHaveAttribute('aria-selected', 'true');
  await expect(item).toContainText('readfile');
  await expect(item).toContainText('80,000 lines');
  const details = page.getByTestId('output-details');
  await expect(details.getByTestId('output-handle')).toHaveText(handle);
  await expect(details.getByTestId('output-figures')).toContainText(/5\.\d MiB · 80,000 lines/);
  const viewer = details.getByTestId('output-viewer');
  await expect(viewer.getByTestId('buffer-line-1')).toContainText('INFO line 000001 all is well');
  // Scrolled near the error line, the viewer reads that page only.
  await viewer.evaluate((el, line) => {
    el.scrollTop = (line - 5) * 20;
  }, ERROR_LINE);
  await expect(viewer.getByTestId(`buffer-line-${ERROR_LINE}`)).toContainText('ERROR order 77 failed: stock exhausted');
  await screenshot(page, 'large-2-stored-outputs');

  // An extraction by hand, forcing truncate (no model call): its strategy and result.
  await details.getByTestId('output-extract-input').fill('the first and last lines');
  await details.getByTestId('output-extract-mode').selectOption('truncate');
  await details.getByTestId('output-extract-run').click();
  const result = details.getByTestId('output-extract-result');
  await expect(result.getByTestId('extraction-strategy')).toContainText('truncate');
  await expect(result.getByTestId('output-extract-text')).toContainText(`STRATEGY:truncate`);
  await result.scrollIntoViewIfNeeded();
  await screenshot(page, 'large-3-extract-by-hand');

  // 5. Back on the card: the menu, by keyboard, routes the result to a buffer (remembered for readfile).
  await shell.open('chat');
  const button = readCard.getByTestId('stored-choice-button');
  await button.focus();
  await page.keyboard.press('Enter');
  const menu = readCard.getByTestId('stored-choice-menu');
  await expect(menu).toBeVisible();
  await expect(readCard.getByTestId('stored-choice-handle')).toBeFocused();
  await expect(readCard.getByTestId('stored-choice-handle')).toHaveAttribute('aria-checked', 'true');
  // Escape closes and gives the focus back to the button.
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu).toBeVisible();
  await page.keyboard.press('End');
  await expect(readCard.getByTestId('stored-choice-remember')).toBeFocused();
  await page.keyboard.press(' ');
  await expect(readCard.getByTestId('stored-choice-remember')).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(readCard.getByTestId('stored-choice-buffer')).toBeFocused();
  await screenshot(page, 'large-4-menu');
  await page.keyboard.press('Enter');
  await expect(menu).toBeHidden();
  await expect(gate).toHaveAttribute('data-choice', 'buffer');
  await expect(gate.getByTestId('stored-state')).toHaveText('routed to a buffer');
  await expect(readCard.getByTestId('manifest')).toContainText('[tool routed] readfile -> variable:readfile-output');
  await screenshot(page, 'large-5-buffer');

  // The manifest's link opens the buffer: the whole file, all its lines.
  await readCard.getByTestId('manifest-link').click();
  await expect(page.getByTestId('buffer-item-readfile-output')).toContainText('80,000 lines');

  // 6. Settings → Tool outputs lists the remembered choice; forgetting it saves.
  await shell.open('settings');
  const rule = page.getByTestId('tool-outputs-rule');
  await expect(rule).toHaveCount(1);
  await expect(rule).toContainText('+readfile');
  await expect(rule.getByTestId('tool-outputs-rule-choice')).toHaveValue('buffer');
  await page.getByTestId('settings-tool-outputs').scrollIntoViewIfNeeded();
  await screenshot(page, 'large-6-settings');
  // A value out of bounds is refused on its field; what was typed stays.
  const chunks = page.getByTestId('tool-outputs-maxChunksForFullMode');
  await chunks.fill('0');
  await page.getByTestId('tool-outputs-save').click();
  await expect(chunks).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('settings-tool-outputs').getByRole('alert')).toContainText(/>=\s*1/);
  await expect(chunks).toHaveValue('0');
  await chunks.fill('1');
  await rule.getByTestId('tool-outputs-rule-forget').click();
  await page.getByTestId('tool-outputs-save').click();
  await expect(page.getByTestId('tool-outputs-saved')).toBeVisible();
  await expect(rule).toHaveCount(0);

  // 7. The timeline records the handle, the extraction and the change of choice.
  await shell.open('inspect');
  await page.getByRole('tab', { name: 'Timeline' }).click();
  const rows = page.getByTestId('timeline-row');
  await expect(rows.filter({ hasText: `stored as ${handle}` })).toHaveAttribute('data-kind', 'oversized');
  await expect(rows.filter({ hasText: 'tool_output' }).last()).toHaveAttribute('data-kind', 'extraction');
  await expect(rows.filter({ hasText: 'tool_output' }).last()).toContainText('read-grep · 2 model calls');
  await expect(rows.filter({ hasText: 'Route to a buffer' })).toHaveAttribute('data-kind', 'output choice');
  await screenshot(page, 'large-7-timeline');
  expect(shell.consoleErrors).toEqual([]);
});

test("a conversation's extraction thresholds: set in the chat by keyboard, checked, kept after a reload, cleared", async ({ appPage: page }) => {
  const shell = new AppShell(page);
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  const button = page.getByTestId('extraction-button');
  await expect(button).toContainText('Settings’');
  await button.click();
  const dialog = page.getByRole('dialog', { name: /Extraction thresholds/ });
  // Empty fields show Settings' values as placeholders; the first is focused.
  const chunks = page.getByTestId('extraction-maxChunksForFullMode');
  await expect(chunks).toBeFocused();
  await expect(chunks).toHaveAttribute('placeholder', 'Settings: 1');
  await expect(page.getByTestId('extraction-avgLineBytesForFullMode')).toHaveAttribute('placeholder', 'Settings: 1,000');

  // A value out of range is refused on its field, nothing saved.
  await page.keyboard.type('0');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('Chunks for full-chunked mode: between 1 and 1,000');
  await expect(chunks).toHaveAttribute('aria-invalid', 'true');

  await chunks.fill('4');
  await page.getByTestId('extraction-overlapPercent').fill('20');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('status')).toHaveText('Saved');
  await expect(button).toContainText('this conversation’s');
  await screenshot(page, 'large-4-conversation-thresholds');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(button).toBeFocused();

  // Kept after a reload.
  await page.reload();
  await expect(page.getByTestId('extraction-button')).toContainText('this conversation’s');
  await page.getByTestId('extraction-button').click();
  await expect(page.getByTestId('extraction-maxChunksForFullMode')).toHaveValue('4');
  await expect(page.getByTestId('extraction-overlapPercent')).toHaveValue('20');
  await expect(page.getByTestId('extraction-avgLineBytesForFullMode')).toHaveValue('');

  // Back to Settings'.
  await page.getByTestId('extraction-use-settings').click();
  await expect(page.getByTestId('extraction-maxChunksForFullMode')).toHaveValue('');
  await expect(page.getByTestId('extraction-button')).toContainText('Settings’');
});
