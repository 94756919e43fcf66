/** MCP Apps brought in (docs/mcp.md, "Apps"): a tool's own page, framed by the hosts, its requests checked here. */
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { mcpClientModule } from '../mcp-client/module';
import { mcpServerModule } from '../mcp-server/module';
import { mcpAppsHandlers } from './mcp-apps-handlers';
import { McpAppsService } from './service';

export const mcpAppsModule = defineModule({
  name: 'mcp-apps',
  start: ({ registry, dispatcher, events, use }) => {
    const servers = use(mcpClientModule);
    const { approvals } = use(agentModule);
    const { queue } = use(mcpServerModule);
    const apps = new McpAppsService({
      store: registry.store,
      servers,
      dispatcher,
      approvals,
      queue,
      onClosed: (viewId, reason) => events.emit('mcpApps.closed', { viewId, reason }),
    });
    return { api: apps, handlers: mcpAppsHandlers(apps) };
  },
});
