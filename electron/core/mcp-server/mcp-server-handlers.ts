/** Settings → MCP server: where clients reach the served registry, its token, and the approvals it asks in the app. */
import path from 'node:path';
import type { Handler } from '../router';
import { needsApprovalNoWindow } from './call';
import type { McpServeService } from './service';
import { MCP_TOKEN_FILE, loadOrCreateTokenFile, rotateTokenFile } from '../lib/token-file';

type Ops = 'mcpServer.info' | 'mcpServer.approvals' | 'mcpServer.respond' | 'mcpServer.token' | 'mcpServer.rotateToken' | 'mcpServer.askApproval';

export function mcpServerHandlers(service: McpServeService): { [K in Ops]: Handler<K> } {
  const tokenFile = () => path.join(service.info().dataDir, MCP_TOKEN_FILE);
  return {
    'mcpServer.info': () => service.info(),
    'mcpServer.approvals': () => service.queue.list(),
    'mcpServer.respond': ({ id, decision }) => ({ accepted: service.queue.respond(id, decision) }),
    'mcpServer.token': async () => ({ token: await loadOrCreateTokenFile(tokenFile()), file: tokenFile() }),
    'mcpServer.rotateToken': async () => ({ token: await rotateTokenFile(tokenFile()), file: tokenFile() }),
    // `toolsmith mcp` runs in a process of its own: it asks here, where the window is. A caller that goes away cancels its request.
    'mcpServer.askApproval': (req, ctx) =>
      service.queue.windowOpen() ? service.queue.ask(req, ctx.signal) : { refused: needsApprovalNoWindow(req.toolName) },
  };
}
