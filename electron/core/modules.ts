/**
 * The core's feature modules, started in this order on the platform (platform/feature-module.ts).
 * The order says three things: a module reaches only the ones listed before it; close() stops
 * them in reverse order (each cancels its work at once, then they settle together); and then
 * closes them in reverse order. A new feature is a folder with a `module.ts` and one line here.
 */
import { agentModule } from './agent/module';
import { providersModule } from './agent/providers/module';
import { agentProfilesModule } from './agent-profiles/module';
import { chatModule } from './chat/module';
import { documentsModule } from './documents/module';
import { evalsModule } from './evals/module';
import { invokeModule } from './invoke/module';
import { mcpAppsModule } from './mcp-apps/module';
import { mcpClientModule } from './mcp-client/module';
import { mcpServerModule } from './mcp-server/module';
import { memoryModule } from './memory/module';
import { appModule } from './platform/app-module';
import { registryModule } from './registry/module';
import { routingModule } from './routing/module';
import { scriptToolsModule } from './script-tools/module';
import { secretsModule } from './secrets/module';
import { testcasesModule } from './testcases/module';
import { toolSearchModule } from './tool-search/module';
import { toolOutputModule } from './tool-output/module';
import { transferModule } from './transfer/module';
import { usageModule } from './usage/module';
import { workflowsModule } from './workflows/module';

export const MODULES = [
  appModule,
  registryModule,
  secretsModule,
  routingModule,
  providersModule,
  // Before the agent: turns search with its semantic search.
  toolSearchModule,
  toolOutputModule,
  invokeModule,
  scriptToolsModule,
  documentsModule,
  mcpClientModule,
  agentProfilesModule,
  agentModule,
  workflowsModule,
  chatModule,
  mcpServerModule,
  mcpAppsModule,
  testcasesModule,
  // Before transfer: a bundle's ZIP carries its eval cases.
  evalsModule,
  transferModule,
  usageModule,
  // Last: on close it stops first, so its consent questions are answered deny before any turn
  // (a chat's, a task's, a workflow step's) is stopped. No module uses it.
  memoryModule,
] as const;
