import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';


/** A bundle of its own (the host is shared with other specs): a tool that requires approval. */
async function servedBundle(host: RunningHost): Promise<string> {
  const bundleId = '019a0000-0000-7000-8000-00000000c5e1';
  await rpc(host, 'bundles.put', { bundleId, body: { slug: 'served-e2e', displayName: 'Served e2e', description: 'Served over MCP', isEnabled: true } });
  await rpc(host, 'tools.put', {
    bundleId,
    slug: 'guarded-count',
    version: '1',
    body: {
      displayName: 'Guarded count',
      description: 'Counts words; asks first',
      tags: [],
      type: 'local',
      argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: {},
      local: { functionId: 'text.count' },
      requiresApproval: true,
      isEnabled: true,
    },
  });
  return bundleId;
}

test.describe('Settings → MCP server', () => {
  test('a user serves a bundle, copies a snippet, and approves a served tool an MCP client calls', async ({ appPage, host }) => {
    test.skip(!host, 'the HTTP endpoint is the headless host’s');
    await servedBundle(host!);
    const shell = new AppShell(appPage);
    await shell.open('settings');
    const section = appPage.getByTestId('settings-mcp-server');
    await section.scrollIntoViewIfNeeded();

    await section.getByTestId('mcp-server-enabled').click();
    await section.locator('[data-bundle-slug="served-e2e"]').check();
    // Progressive discovery: on past 50 tools by default; here always, so the client searches.
    const mode = section.getByTestId('mcp-server-discovery-mode');
    await expect(mode).toHaveValue('auto');
    await expect(section.getByTestId('mcp-server-discovery-max-tools')).toHaveValue('50');
    await mode.selectOption('always');
    await expect(section.getByTestId('mcp-server-discovery-max-tools')).toBeDisabled();
    // With no window open, a client's own user is asked to confirm: on by default; off and back on is saved.
    const askClient = section.getByTestId('mcp-server-ask-client');
    await expect(askClient).toBeChecked();
    await askClient.uncheck();
    await section.getByTestId('mcp-server-save').click();
    await expect(section.getByTestId('mcp-server-save')).toBeDisabled();
    // Save is off while the save runs: the setting is read once it has landed.
    const askClientSaved = async () =>
      ((await (await appPage.request.post(`${host!.url}rpc/settings.get`, { headers: { Authorization: `Bearer ${host!.token}`, 'Content-Type': 'application/json' }, data: {} })).json()) as { value: { mcpServer: { askClient: boolean } } }).value.mcpServer.askClient;
    await expect.poll(askClientSaved).toBe(false);
    await askClient.check();
    await section.getByTestId('mcp-server-save').click();
    await expect.poll(askClientSaved).toBe(true);
    await expect(section.getByTestId('mcp-server-save')).toBeDisabled();

    // The stdio snippet starts toolsmith over this data folder; the HTTP one names /mcp and the MCP token, never the API token.
    await expect(section.getByTestId('mcp-snippet')).toContainText('--data-dir');
    await expect(section.getByTestId('mcp-snippet')).toContainText(host!.dataDir);
    await section.getByTestId('mcp-snippet-client-vscode').check();
    await section.getByTestId('mcp-snippet-transport-http').check();
    await expect(section.getByTestId('mcp-snippet')).toContainText(`${host!.url}mcp`);
    await expect(section.getByTestId('mcp-snippet')).toContainText('"type": "http"');
    expect(await section.getByTestId('mcp-snippet').textContent()).not.toContain(host!.token);
    const mcpToken = (await fs.readFile(path.join(host!.dataDir, 'mcp-token'), 'utf8')).trim();
    await expect(section.getByTestId('mcp-snippet')).toContainText(`Bearer ${mcpToken}`);
    await screenshot(appPage, 'settings-mcp-server');

    // An MCP client (the SDK's), configured as the snippet says (the MCP token), calls the served tool; the open window asks.
    const client = new Client({ name: 'Claude Desktop', version: '0.9.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${host!.url}mcp`), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['tool_output', 'tool_search', 'tool_usage']);
      const found = (await client.callTool({ name: 'tool_search', arguments: { query: 'count the words' } })) as CallToolResult;
      expect(found.structuredContent).toMatchObject({ tools: [{ name: 'guarded-count' }], added: ['guarded-count'] });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('guarded-count');
      const call = client.callTool({ name: 'guarded-count', arguments: { text: 'three little words' } });
      const prompt = appPage.getByTestId('mcp-approval');
      await expect(prompt).toBeVisible();
      await expect(prompt).toContainText('A client calling itself “Claude Desktop 0.9.0” asks to run');
      await expect(prompt).toContainText('This tool is set to ask before it runs.');
      await expect(prompt).toContainText('served-e2e/guarded-count');
      await expect(prompt).toContainText('three little words');
      await screenshot(appPage, 'mcp-approval-prompt');
      await prompt.getByTestId('mcp-approval-allow-once').click();
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ words: 3 });
      await expect(prompt).toBeHidden();

      // Deny: the client is told the user said no.
      const denied = client.callTool({ name: 'guarded-count', arguments: { text: 'no' } });
      await prompt.getByTestId('mcp-approval-deny').click();
      const d = (await denied) as CallToolResult;
      expect(d.isError).toBe(true);
      expect((d.content[0] as { text: string }).text).toContain('denied');
    } finally {
      await client.close();
      await rpc(host!, 'settings.set', { mcpServer: { enabled: false, bundleIds: [] } });
    }
    expect(shell.consoleErrors).toEqual([]);
  });
});
