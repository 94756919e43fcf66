/** MCP Apps: open a tool's app, and what its page asks (calls, logs), each naming its view. */
import type { Handler } from '../router';
import type { McpAppsService } from './service';

type McpAppsOps = 'mcpApps.open' | 'mcpApps.callTool' | 'mcpApps.log' | 'mcpApps.close' | 'mcpApps.setTrust';

export function mcpAppsHandlers(apps: McpAppsService): { [N in McpAppsOps]: Handler<N> } {
  return {
    'mcpApps.open': ({ toolId, consent }) => apps.open(toolId, consent),
    'mcpApps.callTool': ({ viewId, name, arguments: args }) => apps.callTool(viewId, name, args),
    'mcpApps.log': ({ viewId, level, data }) => {
      apps.log(viewId, level, data);
      return {};
    },
    'mcpApps.close': ({ viewId }) => ({ closed: apps.close(viewId) }),
    'mcpApps.setTrust': ({ bundleId, apps: trust }) => apps.setTrust(bundleId, trust),
  };
}
