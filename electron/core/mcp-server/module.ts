/**
 * The registry served over MCP (docs/mcp.md): the hosts connect transports to it; tool_output
 * extracts with Settings' default model, if one is set; tool_usage reads the invocation log and
 * its page from the resources folder.
 */
import pkg from '../../../package.json';
import { mcpServerHandlers } from './mcp-server-handlers';
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { providersModule } from '../agent/providers/module';
import { toolOutputModule } from '../tool-output/module';
import { McpServeService } from './service';
import { usageFromLog } from './tool-usage';

export const mcpServerModule = defineModule({
  name: 'mcp-server',
  start: ({ registry, dispatcher, settings, events, now, dataDir, config, log, use }) => {
    const toolOutputs = use(toolOutputModule);
    const { approvals } = use(agentModule);
    const { clients } = use(providersModule);
    const mcpServer = new McpServeService({
      store: registry.store,
      dispatcher,
      toolOutputs,
      approvals,
      settings: () => settings.get().mcpServer,
      toolSearch: () => settings.get().toolSearch,
      events,
      now,
      version: pkg.version,
      dataDir,
      maxResultBytes: () => settings.get().toolOutputs.maxResultBytes,
      usageStats: usageFromLog(log, now),
      resourcesDir: config.resourcesDir,
      extractionModel: () => {
        const model = settings.get().defaultModel;
        if (!model) return undefined;
        try {
          return toolOutputs.extractionModel(clients.forProvider(model.providerId), model);
        } catch {
          return undefined;
        }
      },
    });
    return { api: mcpServer, handlers: mcpServerHandlers(mcpServer) };
  },
});
