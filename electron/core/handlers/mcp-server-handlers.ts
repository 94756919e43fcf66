/** Settings → MCP server: where clients reach the served registry, and the approvals it asks in the app. */
import type { Handler } from '../router';
import type { McpServeService } from '../mcp-server/service';

type Ops = 'mcpServer.info' | 'mcpServer.approvals' | 'mcpServer.respond';

export function mcpServerHandlers(service: McpServeService): { [K in Ops]: Handler<K> } {
  return {
    'mcpServer.info': () => service.info(),
    'mcpServer.approvals': () => service.queue.list(),
    'mcpServer.respond': ({ id, decision }) => ({ accepted: service.queue.respond(id, decision) }),
  };
}
