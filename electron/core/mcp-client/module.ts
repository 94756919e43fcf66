/** MCP servers as bundles (docs/mcp.md): configs read at start, a server started when a tool of its is called. */
import pkg from '../../../package.json';
import { mcpClientHandlers } from './mcp-client-handlers';
import { defineModule } from '../platform/feature-module';
import { McpClientManager } from './manager';

export const mcpClientModule = defineModule({
  name: 'mcp-client',
  start: async ({ dataDir, registry, secrets, now, workspaceDir, config, events, problems, backends }) => {
    const mcpClient = new McpClientManager({
      dataDir,
      store: registry.store,
      secrets,
      now,
      workspaceDir,
      clientVersion: pkg.version,
      ...config.mcpClient,
      onChange: (bundleId) => events.emit('mcpServers.changed', { bundleId }),
      onElicitationsChange: () => events.emit('mcpElicitations.changed', {}),
      onProblem: (p) => problems.report({ kind: 'io-error', path: p.path, message: p.message }),
    });
    await mcpClient.open();
    backends.mcp = mcpClient.backend();
    // No MCP server process outlives the app.
    return { api: mcpClient, handlers: mcpClientHandlers(mcpClient), close: () => mcpClient.close() };
  },
});
