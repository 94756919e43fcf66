/**
 * Tool search in the agent loop (docs/tool-search.md): with many tools the model is given the
 * pinned and model-only tools and `tool_search`; a search loads the tools it finds, whose full
 * schemas are in the next step's request; a tool not loaded is refused with a hint; past the
 * provider's limit search is on whatever Settings say.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_MAX_TOOLS } from '../../../shared/model/tool-search';
import { useTempDirs } from '../testing/temp-dir';
import { call, harness, type Harness } from '../testing/agent-harness';
import { TOOL_SEARCH_NAME, definitionTokens, notLoadedError, type ToolSearchValue } from './deferred-tools';
import type { ModelRequest } from './types';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const MODEL = { providerId: 'p1', model: 'm1' };
const names = (r: ModelRequest) => r.tools.map((t) => t.name);

const SMS_SCHEMA = {
  type: 'object',
  properties: { to: { type: 'string', description: 'the phone number, in E.164 form' }, text: { type: 'string', maxLength: 20, description: 'what the message says' } },
  required: ['to', 'text'],
  additionalProperties: false,
};

/** Tools of an office: what each does, in its own words. */
const OFFICE: [string, string][] = [
  ['create-invoice', 'Create a draft invoice for a customer'],
  ['list-invoices', 'List the invoices of an account'],
  ['refund-payment', 'Refund a payment, in full or in part'],
  ['get-weather', 'Current weather and forecast for a city'],
  ['translate-text', 'Translate text into another language'],
  ['create-calendar-event', 'Add an event to a calendar'],
  ['list-calendar-events', 'List upcoming events of a calendar'],
  ['upload-file', 'Upload a file to cloud storage'],
  ['delete-file', 'Delete a file from cloud storage'],
  ['share-folder', 'Share a folder with a collaborator'],
  ['create-issue', 'Open a new issue in a repository'],
  ['close-issue', 'Close an issue'],
  ['merge-pull-request', 'Merge a pull request'],
  ['post-channel-message', 'Post a message to a chat channel'],
  ['list-channels', 'List the channels of a chat workspace'],
  ['invite-member', 'Invite a person to the workspace'],
  ['create-task', 'Create a task in a project'],
  ['complete-task', 'Mark a task as complete'],
  ['list-tasks', 'List the tasks of a project'],
  ['get-exchange-rate', 'Exchange rate between two currencies'],
  ['convert-units', 'Convert a quantity between units'],
  ['geocode-address', 'Latitude and longitude of a street address'],
  ['shorten-url', 'Make a short link for a long URL'],
  ['summarize-page', 'Summarise a web page'],
  ['create-contact', 'Add a contact to the address book'],
  ['find-contact', 'Find a contact by name or email'],
  ['send-email', 'Send an email message'],
  ['place-call', 'Place a voice call to a phone number'],
  ['list-calls', 'List recent voice calls'],
  ['create-coupon', 'Create a discount coupon'],
  ['list-products', 'List the products of the catalogue'],
  ['update-price', 'Change the price of a product'],
  ['create-subscription', 'Subscribe a customer to a plan'],
  ['cancel-subscription', 'Cancel a subscription'],
  ['transcribe-audio', 'Transcribe an audio recording into text'],
  ['generate-image', 'Generate an image from a description'],
  ['list-repositories', 'List the repositories of an organisation'],
  ['get-commit', 'Get one commit of a repository'],
];

async function setup(opts: { extra?: number; maxSteps?: number; schema?: object } = {}) {
  const h = await harness(await tempDir(), { maxSteps: opts.maxSteps ?? 6 });
  open.push(h);
  const put = (slug: string, description: string, argSchema: object = { type: 'object', properties: { text: { type: 'string', maxLength: 20 } } }) =>
    h.store.putTool(h.bundleId, slug, '1', { displayName: slug, description, tags: [], type: 'local', argSchema, outputSchema: { type: 'object' }, local: { functionId: 'test.echo' }, isEnabled: true });
  await put('send-sms', 'Send a text message (SMS) to a phone number', SMS_SCHEMA);
  for (const [slug, description] of OFFICE) await (opts.schema ? put(slug, description, opts.schema) : put(slug, description));
  for (let i = 0; i < (opts.extra ?? 0); i++) await put(`extra-${i}`, `Extra tool number ${i} of a large registry`);
  const c = h.conversations.create(undefined, MODEL);
  const send = async (text: string) => {
    await h.chat.send(c.id, text);
    await h.loop.settled(c.id);
  };
  const cards = () => h.conversations.messages(c.id).filter((m) => m.tool && m.tool.status !== 'running').map((m) => m.tool!);
  return { h, c, send, cards };
}

describe('tool search in the agent loop', () => {
  it('many tools: the model gets tool_search, finds the tool by a sentence, the next request carries its schema, and it is called', async () => {
    const { h, send, cards } = await setup();
    const total = OFFICE.length + 1 + 6;
    h.models.script = [
      { toolCalls: [call(TOOL_SEARCH_NAME, { query: 'send a text message to a customer' })] },
      (req) => {
        // The search's answer names the tool; its full schema is now in the request.
        const told = JSON.parse(req.messages.filter((m) => m.role === 'tool').at(-1)!.text) as ToolSearchValue;
        const found = told.tools[0]!.name;
        return { toolCalls: [call(found, { to: '+15550100', text: 'your order shipped' })] };
      },
      { text: 'sent' },
    ];
    await send('tell the customer their order shipped');

    const [first, second, third] = h.models.requests;
    expect(names(first!)).toEqual(['stop_and_think', 'plan_next_steps', TOOL_SEARCH_NAME]);
    expect(first!.tools.find((t) => t.name === TOOL_SEARCH_NAME)!.description).toContain(`${total} more tools are available`);
    expect(names(second!)).toContain('send-sms');
    expect(second!.tools.find((t) => t.name === 'send-sms')!.parameters).toEqual(SMS_SCHEMA);
    // Only what the search loaded came in: at most Settings' `results`.
    expect(second!.tools.length).toBeLessThanOrEqual(3 + h.settings.toolSearch.results);
    expect(names(third!)).toContain('send-sms');

    const [search, sms] = cards();
    expect(search).toMatchObject({ slug: TOOL_SEARCH_NAME, displayName: 'Tool search', status: 'ok', args: { query: 'send a text message to a customer' } });
    const value = search!.value as ToolSearchValue;
    expect(value.tools[0]).toMatchObject({ name: 'send-sms', arguments: 'to*: string, text*: string' });
    expect(value.loaded).toContain('send-sms');
    expect(value.why).toBe(`${total} tools are enabled, more than 30 (Settings → Tool search): the model searches for the ones it needs`);
    expect(sms).toMatchObject({ slug: 'send-sms', status: 'ok', value: { echo: 'your order shipped' } });
    expect(h.conversations.messages(h.conversations.list()[0]!.id).at(-1)).toMatchObject({ role: 'assistant', text: 'sent' });
  });

  it('a tool not loaded is refused with a hint to search, and nothing runs', async () => {
    const { h, send, cards } = await setup();
    h.models.script = [{ toolCalls: [call('send-sms', { to: '+1', text: 'x' })] }, { text: 'ok' }];
    await send('go');
    expect(cards()).toEqual([expect.objectContaining({ slug: 'send-sms', status: 'error', error: { code: 'NOT_FOUND', message: notLoadedError('send-sms') } })]);
    const told = h.models.requests[1]!.messages.filter((m) => m.role === 'tool').at(-1)!;
    expect(told).toMatchObject({ isError: true, text: notLoadedError('send-sms') });
  });

  it('pinned tools (Settings, and a message\'s @tools line) are always given; the rest waits', async () => {
    const { h, send } = await setup();
    h.settings.toolSearch = { ...h.settings.toolSearch, pinned: ['echo', 'tests/get-weather'] };
    h.models.script = [{ text: 'ok' }];
    await send('@tools rich\nhello');
    expect(names(h.models.requests[0]!).sort()).toEqual(['echo', 'get-weather', 'plan_next_steps', 'rich', 'stop_and_think', TOOL_SEARCH_NAME].sort());
  });

  it('under the thresholds, or with search off, every tool is given and no tool_search', async () => {
    const { h, send } = await setup();
    h.settings.toolSearch = { ...h.settings.toolSearch, maxTools: 100, maxSchemaPercent: 100 };
    h.models.script = [{ text: 'ok' }, { text: 'ok' }];
    await send('one');
    expect(names(h.models.requests[0]!)).not.toContain(TOOL_SEARCH_NAME);
    expect(names(h.models.requests[0]!)).toContain('send-sms');
    h.settings.toolSearch = { ...h.settings.toolSearch, mode: 'off', maxTools: 1 };
    await send('two');
    expect(names(h.models.requests[1]!)).not.toContain(TOOL_SEARCH_NAME);
  });

  it('definitions over the share of the window turn search on, and say so', async () => {
    const { h, send, cards } = await setup();
    h.settings.toolSearch = { ...h.settings.toolSearch, maxTools: 100, maxSchemaPercent: 5 };
    h.models.script = [{ toolCalls: [call(TOOL_SEARCH_NAME, { query: 'weather in Paris', limit: 1 })] }, { text: 'ok' }];
    await send('go');
    expect(names(h.models.requests[0]!)).toContain(TOOL_SEARCH_NAME);
    const value = cards()[0]!.value as ToolSearchValue;
    expect(value.why).toMatch(/^the tools' definitions take about \d+ tokens, more than 5% of the model's 32768-token window/);
    expect(value.tools.map((t) => t.name)).toEqual(['get-weather']);
    expect(names(h.models.requests[1]!)).toContain('get-weather');
  });

  it(`past ${PROVIDER_MAX_TOOLS} tools search is on even when Settings turn it off, and no request carries more`, async () => {
    const { h, send } = await setup({ extra: PROVIDER_MAX_TOOLS });
    h.settings.toolSearch = { ...h.settings.toolSearch, mode: 'off', results: 20 };
    h.models.script = [
      { toolCalls: [call(TOOL_SEARCH_NAME, { query: 'extra tool of a large registry', limit: 20 })] },
      { toolCalls: [call(TOOL_SEARCH_NAME, { query: 'a tool of the office', limit: 20 })] },
      { text: 'ok' },
    ];
    // 120 pinned: found tools fill the rest of the room (128 less tool_search and the model-only tools, tool_output among them).
    h.settings.toolSearch.pinned = h.store.allTools().slice(0, 120).map((t) => t.slug);
    await send('go');
    for (const r of h.models.requests) expect(r.tools.length).toBeLessThanOrEqual(PROVIDER_MAX_TOOLS);
    expect(names(h.models.requests[0]!)).toContain(TOOL_SEARCH_NAME);
    // The room filled up: a later search says what it could not add.
    const values = h.conversations.messages(h.conversations.list()[0]!.id).flatMap((m) => (m.tool?.slug === TOOL_SEARCH_NAME && m.tool.status === 'ok' ? [m.tool.value as ToolSearchValue] : []));
    expect(values.some((v) => v.notLoaded?.length)).toBe(true);
    // Full but for tool_output's place: it is offered once the conversation has a stored output.
    expect(h.models.requests.at(-1)!.tools.length).toBe(PROVIDER_MAX_TOOLS - 1);
  });

  it('bad arguments are answered with an error the model can act on', async () => {
    const { h, send, cards } = await setup();
    h.models.script = [{ toolCalls: [call(TOOL_SEARCH_NAME, { limit: 3 }), call(TOOL_SEARCH_NAME, { query: 'x', limit: 99 })] }, { text: 'ok' }];
    await send('go');
    expect(cards().map((c) => c.error?.message).sort()).toEqual(['"limit" must be a whole number from 1 to 20', 'tool_search needs a "query": what you need to do, in a sentence']);
  });

  it('a turn\'s searches load at most the budget of definition tokens; past it a search answers, loads nothing more and names the loaded tools', async () => {
    // Arguments with descriptions: some 150 tokens a tool.
    const described = (what: string) => ({ type: 'string', maxLength: 20, description: `the ${what} of the record, as the service names it in its own documents` });
    const schema = { type: 'object', properties: Object.fromEntries(['name', 'owner', 'state', 'label', 'note'].map((p) => [p, described(p)])), additionalProperties: false };
    const { h, send } = await setup({ maxSteps: 10, schema });
    h.settings.toolSearch = { ...h.settings.toolSearch, maxLoadedTokens: 1_000 };
    const queries = ['create an invoice', 'list the calendar events', 'upload a file to storage', 'merge a pull request', 'post a message to a channel', 'list the tasks of a project', 'refund a payment', 'translate text'];
    h.models.script = [...queries.map((query) => ({ toolCalls: [call(TOOL_SEARCH_NAME, { query, limit: 5 })] })), { text: 'done' }];
    await send('eight searches');
    const values = h.conversations.messages(h.conversations.list()[0]!.id).flatMap((m) => (m.tool?.slug === TOOL_SEARCH_NAME && m.tool.status === 'ok' ? [m.tool.value as ToolSearchValue] : []));
    expect(values).toHaveLength(8);
    // Every request's loaded definitions stay within the budget.
    const base = new Set(['stop_and_think', 'plan_next_steps', TOOL_SEARCH_NAME]);
    for (const r of h.models.requests) expect(definitionTokens(r.tools.filter((t) => !base.has(t.name)))).toBeLessThanOrEqual(1_000);
    const past = values.filter((v) => v.notLoaded?.length);
    expect(past.length).toBeGreaterThan(0);
    const last = values.at(-1)!;
    expect(last.budget!.max).toBe(1_000);
    expect(last.budget!.used).toBeLessThanOrEqual(1_000);
    expect(last.loaded).toEqual([]);
    expect(last.tools.length).toBeGreaterThan(0);
    expect(last.note).toMatch(/^\d+ of these were not loaded: this turn's searches have loaded \d+ tokens of tool definitions, and a turn loads at most 1000 \(Settings → Tool search\)\. .*the tools loaded in this turn are create-invoice, /);
    // A tool not loaded is named and described, without its arguments.
    const skipped = last.tools.find((t) => last.notLoaded!.includes(t.name))!;
    expect(skipped.description).not.toBe('');
    expect(skipped.arguments).toBeUndefined();
  });
});
