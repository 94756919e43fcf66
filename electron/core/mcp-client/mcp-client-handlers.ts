/** MCP servers brought in as bundles: add, change, import, list with status, log, restart, remove, read a resource; their questions to the user. */
import type { McpClientManager } from './manager';
import type { Handler } from '../router';

type McpClientOps =
  | 'mcpServers.list'
  | 'mcpServers.readResource'
  | 'mcpServers.add'
  | 'mcpServers.update'
  | 'mcpServers.import'
  | 'mcpServers.log'
  | 'mcpServers.restart'
  | 'mcpServers.setTrust'
  | 'mcpServers.remove'
  | 'mcpElicitations.list'
  | 'mcpElicitations.respond';

export function mcpClientHandlers(mcp: McpClientManager): { [N in McpClientOps]: Handler<N> } {
  return {
    'mcpServers.list': () => mcp.list(),
    'mcpServers.readResource': async ({ bundleId, uri }) => ({ contents: await mcp.readLinkedResource(bundleId, uri) }),
    'mcpServers.add': ({ server, enabled }) => mcp.add(server, { enabled }),
    'mcpServers.update': ({ bundleId, server }) => mcp.update(bundleId, server),
    'mcpServers.import': ({ text, skipExisting }) => mcp.importJson(text, { skipExisting }),
    'mcpServers.log': ({ bundleId }) => mcp.log(bundleId),
    'mcpServers.restart': ({ bundleId }) => mcp.restart(bundleId),
    'mcpServers.setTrust': ({ bundleId, trustUnannotatedTools }) => mcp.setTrust(bundleId, trustUnannotatedTools),
    'mcpServers.remove': async ({ bundleId }) => {
      await mcp.remove(bundleId);
      return { removed: true as const };
    },
    'mcpElicitations.list': () => mcp.elicitations.list(),
    'mcpElicitations.respond': ({ id, action, content }) => ({ accepted: mcp.elicitations.respond(id, { action, ...(content ? { content } : {}) }) }),
  };
}
