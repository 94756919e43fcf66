/** The MCP servers panel (Tools → MCP servers) as the e2e specs drive it. */
import type { Page } from '@playwright/test';
import { expect } from '../fixtures';
import { rpc } from '../fixtures/host';
import type { AppShell } from './app-page';

/**
 * Tools → MCP servers → Add, as a program started over stdio; answers the server's row once it
 * is connected. A server of that name added before (a retried test) is removed first.
 */
export async function addStdioServer(page: Page, shell: AppShell, host: Parameters<typeof rpc>[0], name: string, args: string[]) {
  await removeServers(host, [name]);
  await shell.open('tools');
  const panel = page.getByTestId('mcp-servers');
  await panel.getByTestId('mcp-add-open').click();
  const form = panel.getByTestId('mcp-add-form');
  await form.getByTestId('mcp-mode-stdio').check();
  await form.getByTestId('mcp-form-name').fill(name);
  await form.getByTestId('mcp-form-command').fill(process.execPath);
  await form.getByTestId('mcp-form-args').fill(args.join('\n'));
  await form.getByTestId('mcp-add-submit').click();
  await expect(form.getByTestId('mcp-add-message')).toContainText(name);
  const row = panel.getByTestId(`mcp-server-${name}`);
  await expect(row.locator('[data-testid^="mcp-state-"]')).toHaveText('connected');
  return row;
}

/** Removes the servers of these names (the specs of a worker share its data folder). */
export async function removeServers(host: Parameters<typeof rpc>[0], names: readonly string[]): Promise<void> {
  for (const s of await rpc<{ name: string; bundleId: string }[]>(host, 'mcpServers.list', {})) {
    if (names.includes(s.name)) await rpc(host, 'mcpServers.remove', { bundleId: s.bundleId });
  }
}
