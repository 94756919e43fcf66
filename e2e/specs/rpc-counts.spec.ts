/**
 * What the renderer asks the core for, counted: every RPC call the page sends (WebSocket
 * frames with a name, and POST /rpc/NAME over HTTP) while (a) one `+` palette run and
 * (b) one model turn with two tool calls happen in an open conversation. Events carry the
 * rows they announce, so neither should refetch the conversation or the list per row.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { rpc } from '../fixtures/host';
import { expect, test } from '../fixtures';

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels(['rpc-model']);
});
test.afterAll(async () => {
  await server.close();
});

/** Every RPC call the page sends, by name, in order (connects before the page loads again). */
async function countCalls(page: Page): Promise<string[]> {
  const calls: string[] = [];
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      if (typeof f.payload !== 'string') return;
      try {
        const msg = JSON.parse(f.payload) as { name?: unknown };
        if (typeof msg.name === 'string') calls.push(msg.name);
      } catch {
        // Not a call.
      }
    });
  });
  page.on('request', (r) => {
    const m = /\/rpc\/([^/?#]+)$/.exec(new URL(r.url()).pathname);
    if (m && r.method() === 'POST') calls.push(decodeURIComponent(m[1]!));
  });
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  return calls;
}

/** Waits until no call was sent for a while (the page has done what the change made it do). */
async function quiet(page: Page, calls: string[]): Promise<void> {
  for (;;) {
    const n = calls.length;
    await page.waitForTimeout(1000);
    if (calls.length === n) return;
  }
}

const tally = (names: string[]) => names.reduce<Record<string, number>>((t, n) => ({ ...t, [n]: (t[n] ?? 0) + 1 }), {});


async function openConversation(page: Page, title: string): Promise<void> {
  await page.getByTestId('nav-chat').click();
  await page.getByTestId('conversation-item').filter({ hasText: title }).locator('button.conversation-open').click();
  await expect(page.getByTestId('message-list')).toBeVisible();
}

test('one + palette run and one model turn with two tool calls ask for little besides the work itself', async ({ appPage: page, host }, testInfo) => {
  test.skip(!host, 'the spec counts the calls the page sends to the headless host');
  test.setTimeout(90_000);
  const workspace = path.join(host!.dataDir, 'workspace');
  await fs.mkdir(path.join(workspace, 'e2e-rpc'), { recursive: true });
  await fs.writeFile(path.join(workspace, 'e2e-rpc', 'a.txt'), 'alpha\n');
  await fs.writeFile(path.join(workspace, 'e2e-rpc', 'b.txt'), 'beta\n');

  const calls = await countCalls(page);

  // (a) A `+` palette run in an open conversation.
  await rpc(host!, 'conversations.create', { title: 'RPC counts palette' });
  await openConversation(page, 'RPC counts palette');
  const composer = page.getByTestId('chat-composer');
  await composer.click();
  await composer.pressSequentially('+readf');
  const palette = page.getByTestId('palette');
  await expect(palette.getByTestId('palette-item-readfile')).toBeVisible();
  await page.keyboard.press('Enter');
  await palette.getByTestId('arg-path').fill('e2e-rpc/a.txt');
  await quiet(page, calls);
  const paletteFrom = calls.length;
  await palette.getByTestId('palette-run').click();
  await expect(page.getByTestId('tool-card').last()).toContainText('alpha');
  await quiet(page, calls);
  const paletteCalls = calls.slice(paletteFrom);

  // (b) A model turn that calls two tools, then answers.
  const provider = await rpc<{ id: string }>(host!, 'providers.save', {
    provider: { name: 'RPC counts', kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-rpc-counts' },
  });
  await rpc(host!, 'providers.test', { id: provider.id });
  const conversation = await rpc<{ id: string }>(host!, 'conversations.create', { title: 'RPC counts turn' });
  await rpc(host!, 'conversations.setModel', { id: conversation.id, model: { providerId: provider.id, model: 'rpc-model' } });
  await openConversation(page, 'RPC counts turn');
  server.script([
    {
      kind: 'tools',
      calls: [
        { name: 'readfile', arguments: { path: 'e2e-rpc/a.txt' } },
        { name: 'readfile', arguments: { path: 'e2e-rpc/b.txt' } },
      ],
      usage: { input: 50, output: 5 },
    },
    { kind: 'text', text: 'Read alpha and beta.', chunks: 3, usage: { input: 60, output: 6 } },
  ]);
  await composer.fill('Read both files');
  await quiet(page, calls);
  const turnFrom = calls.length;
  await composer.press('Enter');
  const list = page.getByTestId('message-list');
  await expect(list).toContainText('Read alpha and beta.');
  await expect(page.getByTestId('tool-card')).toHaveCount(2);
  await expect(page.getByTestId('turn-usage').last()).toContainText('2 steps');
  await quiet(page, calls);
  const turnCalls = calls.slice(turnFrom);

  const figures = { palette: { total: paletteCalls.length, ...tally(paletteCalls) }, turn: { total: turnCalls.length, ...tally(turnCalls) } };
  testInfo.annotations.push({ type: 'rpc-calls', description: JSON.stringify(figures) });
  console.log('rpc-calls', JSON.stringify(figures));

  // The work itself (the run; the message), and at most one read of the conversation and of
  // the list per turn. Before events carried their rows: 5 calls for the run (the conversation
  // and the list twice each), 19 for the turn (10 reads of the conversation, 8 of the list).
  const reads = (names: string[], op: string) => names.filter((n) => n === op).length;
  expect(reads(paletteCalls, 'chat.runTool')).toBe(1);
  expect(reads(paletteCalls, 'conversations.get') + reads(paletteCalls, 'conversations.list')).toBe(0);
  expect(paletteCalls.length).toBeLessThanOrEqual(2);
  expect(reads(turnCalls, 'chat.send')).toBe(1);
  expect(reads(turnCalls, 'conversations.get')).toBeLessThanOrEqual(1);
  expect(reads(turnCalls, 'conversations.list')).toBeLessThanOrEqual(1);
  expect(turnCalls.length).toBeLessThanOrEqual(3);

  // What the events carried is what the core holds: every row, and the list's count.
  const stored = await rpc<{ messages: { id: string }[] }>(host!, 'conversations.get', { id: conversation.id });
  const shown = await page.locator('[data-message-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-message-id')));
  expect(shown.every((id) => stored.messages.some((m) => m.id === id))).toBe(true);
  const item = page.getByTestId('conversation-item').filter({ hasText: 'RPC counts turn' });
  await expect(item).toContainText(`${stored.messages.length} messages`);
});
