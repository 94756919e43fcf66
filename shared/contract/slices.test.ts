/**
 * The composed contract is exactly its slices: the slices below share out the composed
 * tables' names with none left over, no name is defined by two slices (a spread would keep the
 * later schema without a word), and each name keeps its slice's schema. A slice added to
 * shared/contract.ts and not here (or here and not there) fails too.
 */
import { describe, expect, it } from 'vitest';
import { events, operations } from '../contract';
import * as agent from './agent';
import * as agentProfiles from './agent-profiles';
import * as app from './app';
import * as chat from './chat';
import * as documents from './documents';
import * as evals from './evals';
import * as invoke from './invoke';
import * as mcpApps from './mcp-apps';
import * as mcpClient from './mcp-client';
import * as mcpServer from './mcp-server';
import * as memory from './memory';
import * as providers from './providers';
import * as registry from './registry';
import * as routing from './routing';
import * as scriptTools from './script-tools';
import * as secrets from './secrets';
import * as tasks from './tasks';
import * as testcases from './testcases';
import * as toolOutputs from './tool-outputs';
import * as toolSearch from './tool-search';
import * as transfer from './transfer';
import * as usage from './usage';
import * as workflows from './workflows';

type Table = Record<string, unknown>;

const SLICES: Record<string, Record<string, unknown>> = {
  agent,
  agentProfiles,
  app,
  chat,
  documents,
  evals,
  invoke,
  mcpApps,
  mcpClient,
  mcpServer,
  memory,
  providers,
  registry,
  routing,
  scriptTools,
  secrets,
  tasks,
  testcases,
  toolOutputs,
  toolSearch,
  transfer,
  usage,
  workflows,
};

/** Each slice's one table whose export name ends in `suffix` (appOperations, appEvents). */
function tables(suffix: 'Operations' | 'Events'): { slice: string; table: Table }[] {
  return Object.entries(SLICES).map(([slice, mod]) => {
    const found = Object.keys(mod).filter((k) => k.endsWith(suffix));
    expect(found, `${slice} exports ${slice}${suffix}`).toEqual([`${slice}${suffix}`]);
    return { slice, table: mod[found[0]!] as Table };
  });
}

describe('the contract slices', () => {
  it.each([
    ['Operations', operations],
    ['Events', events],
  ] as const)('share out the composed %s, each name once and with its schema', (suffix, composed: Table) => {
    const all = tables(suffix);
    const owners = new Map<string, string[]>();
    for (const { slice, table } of all) for (const name of Object.keys(table)) owners.set(name, [...(owners.get(name) ?? []), slice]);
    expect([...owners].filter(([, slices]) => slices.length > 1)).toEqual([]);
    expect(Object.keys(composed).sort()).toEqual([...owners.keys()].sort());
    for (const { table } of all) for (const [name, def] of Object.entries(table)) expect(composed[name], name).toBe(def);
  });
});
