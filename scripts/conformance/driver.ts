/**
 * The client under test in the suite's client scenarios, which starts it once per scenario as
 * `<command> <server-url>` with MCP_CONFORMANCE_SCENARIO (and, for some auth scenarios,
 * MCP_CONFORMANCE_CONTEXT) set.
 *
 * It is Toolsmith's own MCP client, reached the way the app reaches it: a core on a temp data
 * folder, `mcpServers.add` with the URL (connect, tools/list into tool files), then each tool
 * brought in run through the dispatcher. Only the contract and the dispatcher are used, so what
 * passes here is what the app does. OAuth: the sign-in page is "opened" by following its
 * redirects to our loopback callback, as a browser that signs in at once would (the suite's
 * authorization server approves without asking).
 *
 * Runs on the app's Node (the one `npm run conformance` runs on), not the suite's.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../../electron/core/app';
import { elicitationDefaults } from '../../shared/model/elicitation';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const log = (...a: unknown[]) => console.log('[driver]', ...a);

/** What a scenario passes in MCP_CONFORMANCE_CONTEXT; only what the driver reads. */
interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  /** The arguments to call tools with, by the server's tool name (http-custom-headers). */
  toolCalls?: { name?: unknown; arguments?: unknown }[];
}

function context(): ScenarioContext {
  try {
    return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
  } catch {
    return {};
  }
}

async function openUrl(u: string): Promise<void> {
  log('open', u);
  let next = u;
  for (let i = 0; i < 5; i++) {
    const r = await fetch(next, { redirect: 'manual' });
    const location = r.headers.get('location');
    log('  ->', r.status, location ?? '');
    if (!location) return;
    next = new URL(location, next).toString();
  }
}

/**
 * Arguments for a tool the suite's servers offer: those the scenario names for it, else a value
 * of its type for each required property. A null the scenario gives is left out, as a form leaves
 * an empty field out: the dispatcher refuses a null where the tool's schema allows none.
 */
function argsFor(slug: string, serverTool: string | undefined, schemas: Map<string, unknown>, ctx: ScenarioContext): Record<string, unknown> {
  const given = ctx.toolCalls?.find((c) => c.name === serverTool)?.arguments;
  if (typeof given === 'object' && given !== null && !Array.isArray(given)) return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null));
  if (slug === 'add-numbers') return { a: 2, b: 3 };
  // json-schema-2020-12-preservation: the echo tool takes back the schema we keep for the other tool.
  if (slug === 'json-schema-echo') return { schema: schemas.get('json-schema-2020-12-tool') ?? {} };
  const schema = schemas.get(slug) as { properties?: Record<string, { type?: unknown; enum?: unknown[] }>; required?: string[] } | undefined;
  const args: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) args[name] = sampleOf(schema?.properties?.[name]);
  return args;
}

/** A value a property of this schema takes: its first enum value, else one of its type. */
function sampleOf(p: { type?: unknown; enum?: unknown[] } | undefined): unknown {
  if (p?.enum?.length) return p.enum[0];
  const type = Array.isArray(p?.type) ? p.type.find((t) => t !== 'null') : p?.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return 'x';
  }
}

async function main(): Promise<number> {
  if (!url) {
    console.error('usage: driver.ts <server-url>');
    return 2;
  }
  const ctx = context();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-conformance-'));
  // The suite ends a scenario that runs too long with SIGTERM: the data folder goes all the same.
  process.once('SIGTERM', () => {
    fs.rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(143));
  });
  let core: Awaited<ReturnType<typeof createCore>>;
  try {
    core = await createCore({ resourcesDir: path.resolve(import.meta.dirname, '..', '..', 'resources'), watch: false, dataDir, host: 'headless', mcpClient: { openUrl } });
  } catch (e) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  // A window that answers the servers' questions as a person who sends each form as shown (its defaults) would.
  core.attachWindow();
  core.events.on('mcpElicitations.changed', () => {
    void core.call('mcpElicitations.list', {}).then(async (r) => {
      for (const q of r.ok ? r.value : []) {
        log('question', q.mode, q.message.slice(0, 100));
        await core.call('mcpElicitations.respond', { id: q.id, action: 'accept', ...(q.fields ? { content: elicitationDefaults(q.fields) } : {}) });
      }
    });
  });
  try {
    // A client registered beforehand (the scenario offers one): its secret goes into the secret store, bound to the suite's hosts.
    let oauthClient: { clientId: string; clientSecret?: string } | undefined;
    if (ctx.client_id) {
      if (ctx.client_secret) {
        const set = await core.call('secrets.set', { name: 'CONFORMANCE_CLIENT_SECRET', value: ctx.client_secret, hosts: ['127.0.0.1', 'localhost', new URL(url).hostname] });
        if (!set.ok) throw new Error(`secrets.set: ${set.error.message}`);
      }
      oauthClient = { clientId: ctx.client_id, ...(ctx.client_secret ? { clientSecret: '${secret:CONFORMANCE_CLIENT_SECRET}' } : {}) };
      log('context: a client registered beforehand is used');
    }
    const added = await core.call('mcpServers.add', { server: { name: 'conformance', connection: { transport: 'http', url, headers: {}, ...(oauthClient ? { oauthClient } : {}) } } });
    if (!added.ok) throw new Error(`add: ${added.error.message}`);
    const { bundleId, status } = added.value;
    log('status', JSON.stringify(status));
    const listed = await core.call('tools.list', { bundleIds: [bundleId] });
    if (!listed.ok) throw new Error(`tools.list: ${listed.error.message}`);
    const tools = listed.value.items;
    log('tools', tools.map((t) => t.slug).join(', '));
    const schemas = new Map<string, unknown>(tools.map((t) => [t.slug, t.argSchema]));
    for (const t of tools) {
      const out = await core.dispatcher.invoke({ bundleId, slug: t.slug, version: t.version, args: argsFor(t.slug, t.mcp?.serverTool, schemas, ctx), source: 'api' });
      log('call', t.slug, JSON.stringify(out.ok ? out.value : out.error).slice(0, 300));
    }
    const servers = await core.call('mcpServers.list', {});
    if (servers.ok) log('final', JSON.stringify(servers.value.map((s) => s.status)));
    return 0;
  } catch (e) {
    log('error', e instanceof Error ? e.message : String(e));
    return 1;
  } finally {
    await core.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    log('scenario', scenario, 'done');
  }
}

process.exit(await main());
