/**
 * The findability report (./findability.ts): planted bad tools are flagged with the right kind,
 * severity and suggestion; a registry of well-described tools is clean; pairs the ranking
 * cannot tell apart are found; built-in tools are ranked but never reported on. On the
 * realistic registry (500 tools, and 600+ with two bundles imported twice) it prints its
 * figures and bounds its work by the searches it runs. Then the `tools.findability` operation
 * through a core on a temp data folder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { createCore, type Core } from '../app';
import { bundleBody, localToolBody, newId } from '../bundles/testing/fixtures';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { findability, searchedTools, TOP, type FindabilityTool, type ToolFinding } from './findability';
import { readRealRegistry, realTools } from './testing/real-registry';

const T = (bundle: string, slug: string, displayName: string, description: string, extra: Partial<FindabilityTool['tool']> = {}, report?: boolean): FindabilityTool => ({
  key: `${bundle}/${slug}`,
  bundleSlug: bundle,
  tool: { slug, displayName, description, tags: [], argSchema: { type: 'object', properties: {} }, ...extra },
  ...(report === undefined ? {} : { report }),
});

/** Twelve tools that each say what they do, in words of their own. */
const GOOD: FindabilityTool[] = [
  T('office', 'send-email', 'Send email', 'Sends an email to one or more recipients, with a subject and a plain-text or HTML body. Returns the message id.'),
  T('office', 'list-calendar-events', 'List calendar events', 'Lists the events on a calendar between two dates, with their title, time, place and attendees.'),
  T('office', 'create-calendar-event', 'Create calendar event', 'Schedules a new meeting on a calendar and invites the attendees by email.'),
  T('office', 'search-contacts', 'Search contacts', 'Finds people in the address book by name, company or phone number.'),
  T('office', 'upload-file', 'Upload file', 'Stores a document in the shared drive folder and returns a link to it.'),
  T('office', 'get-weather', 'Weather forecast', 'Tomorrow’s weather for a city: temperature, rain and wind, hour by hour.'),
  T('office', 'translate-text', 'Translate text', 'Translates a text into another language, detecting the source language when it is not given.'),
  T('office', 'convert-currency', 'Convert currency', 'Converts an amount of money from one currency to another at today’s exchange rate.'),
  T('office', 'create-invoice', 'Create invoice', 'Bills a customer: makes a draft invoice with line items and a due date, ready to send.'),
  T('office', 'list-open-issues', 'List open issues', 'Lists the open bugs and tasks of a project in the tracker, newest first, with their assignee.'),
  T('office', 'post-chat-message', 'Post chat message', 'Posts a message to a team chat channel, optionally in a thread.'),
  T('office', 'book-meeting-room', 'Book meeting room', 'Reserves a free meeting room in the office for a time slot and a number of people.'),
];

const about = (findings: readonly ToolFinding[], key: string) => findings.filter((f) => f.keys[0] === key);
const kinds = (findings: readonly ToolFinding[], key: string) => about(findings, key).map((f) => `${f.kind}/${f.severity}`);

describe('findability: planted bad tools', () => {
  it('flags an empty description, names that say nothing, a route for a name or a description, and proposes names', async () => {
    const planted = [
      T('mine', 'tool1', 'Tool 1', ''),
      T('mine', 'get', 'Get', 'Gets it.'),
      T('mine', 'do_it', 'Do it', 'Runs the thing the team uses every morning to check the nightly build status.'),
      T('mine', 'post-payouts-payout-cancel', 'PostPayoutsPayoutCancel', 'Cancels a payout that has not been paid out yet; the funds go back to the balance.', {
        http: { method: 'POST', urlTemplate: 'https://api.example.com/v1/payouts/${payout}/cancel' },
      } as Partial<FindabilityTool['tool']>),
      T('mine', 'get-guild', 'get_guild', 'get_guild: GET /guilds/{guild_id}', {
        http: { method: 'GET', urlTemplate: 'https://discord.com/api/v10/guilds/${guild_id}' },
      } as Partial<FindabilityTool['tool']>),
    ];
    const { findings } = await findability([...GOOD, ...planted]);

    expect(kinds(findings, 'mine/tool1')).toEqual(expect.arrayContaining(['empty-description/high', 'vague-name/medium']));
    expect(about(findings, 'mine/tool1').find((f) => f.kind === 'empty-description')!.suggestion).toMatch(/what it returns, and when to use it/);

    const get = about(findings, 'mine/get');
    expect(kinds(findings, 'mine/get')).toEqual(expect.arrayContaining(['vague-name/medium', 'short-description/low']));
    expect(get.find((f) => f.kind === 'vague-name')!.suggestion).toBe('Rename `get` to a verb and the thing it works on, e.g. `get-<thing>`.');

    // The proposed name comes from the description's own words.
    expect(about(findings, 'mine/do_it').find((f) => f.kind === 'vague-name')!.suggestion).toContain('`check-build-status`');

    const route = about(findings, 'mine/post-payouts-payout-cancel');
    expect(route.map((f) => `${f.kind}/${f.severity}`)).toEqual(['vague-name/low']);
    expect(route[0]!.message).toMatch(/named after its route/);
    expect(route[0]!.suggestion).toContain('`cancel-payout`');

    expect(kinds(findings, 'mine/get-guild')).toEqual(['short-description/medium']);
    expect(about(findings, 'mine/get-guild')[0]!.message).toContain('is only its name and route');

    // Most severe first.
    const order = { high: 0, medium: 1, low: 2 };
    expect(findings.map((f) => order[f.severity])).toEqual([...findings.map((f) => order[f.severity])].sort());
  });

  it('finds a tool that its own words do not bring into the top 5, naming the tools ranked before it', async () => {
    const w = (s: string) => T('meteo', `weather-${s}`, `Weather ${s}`, `Weather ${s}: the weather ${s} for a city, from the weather service.`, { tags: ['weather'] });
    const tools = [...GOOD, w('forecast'), w('alerts'), w('history'), w('radar'), w('stations'), w('warnings'), w('maps'), T('meteo', 'wx', 'Weather', '')];
    const { findings } = await findability(tools);
    const hard = about(findings, 'meteo/wx').find((f) => f.kind === 'hard-to-find')!;
    expect(hard.query).toBe('Weather');
    const rank = hard.rank ?? null;
    expect(rank === null || rank > TOP).toBe(true);
    expect(hard.severity).not.toBe('low');
    expect(hard.message).toMatch(/after `meteo\/weather-/);
    expect(hard.suggestion).toMatch(/^Say what it returns and when to use it instead of `meteo\/weather-/);
    // The tools it loses to are found by their own words.
    for (const t of tools.filter((x) => x.key.startsWith('meteo/weather-'))) expect(kinds(findings, t.key)).not.toContain('hard-to-find/medium');
  });

  it('finds pairs a search cannot tell apart: a copy in another bundle, one description for two tools, two tools worded alike', async () => {
    const tools = [
      ...GOOD,
      T('copy', 'send-email', 'Send email', GOOD[0]!.tool.description),
      T('mine', 'send-sms', 'Send SMS', 'Sends a text message to a phone number.'),
      T('mine', 'send-text', 'Send text', 'Sends a text message to a phone number.'),
      T('desk', 'list-open-tickets', 'List open tickets', 'Lists the open support tickets of the help desk, newest first.'),
      T('desk', 'list-open-support-tickets', 'List open support tickets', 'Lists the open tickets of the support help desk, newest first.'),
    ];
    const { findings } = await findability(tools);
    const collisions = findings.filter((f) => f.kind === 'collision');
    const pair = (a: string, b: string) => collisions.find((f) => f.keys.includes(a) && f.keys.includes(b));

    const copy = pair('copy/send-email', 'office/send-email')!;
    expect(copy.severity).toBe('high');
    expect(copy.message).toMatch(/same name and description/);
    expect(copy.suggestion).toMatch(/^Switch one off or delete it/);

    const same = pair('mine/send-sms', 'mine/send-text')!;
    expect(same.severity).toBe('medium');
    expect(same.message).toMatch(/have the same description/);
    expect(same.suggestion).toMatch(/Give each a description of its own/);

    const alike = pair('desk/list-open-tickets', 'desk/list-open-support-tickets')!;
    expect(alike.severity).toBe('medium');
    expect(alike.message).toMatch(/read alike to a search/);
    expect(alike.suggestion).toMatch(/when to use it instead of the other/);

    // Each pair once.
    expect(new Set(collisions.map((f) => [...f.keys].sort().join(' '))).size).toBe(collisions.length);
  });

  it('a registry of well-described tools is clean', async () => {
    const { findings, checked } = await findability(GOOD);
    expect(checked).toBe(GOOD.length);
    expect(findings).toEqual([]);
  });

  it('ranks built-in tools beside the user’s but never reports on them; a user’s copy of one is reported first', async () => {
    const builtIn = [T('files', 'tool1', 'Tool 1', '', {}, false), T('files', 'read-file', 'Read file', 'Reads a text file of the workspace and returns its lines.', {}, false)];
    const mine = T('mine', 'read-file', 'Read file', 'Reads a text file of the workspace and returns its lines.');
    const { findings, checked, ranked } = await findability([...GOOD, ...builtIn, mine]);
    expect([checked, ranked]).toEqual([GOOD.length + 1, GOOD.length + 3]);
    expect(findings.filter((f) => f.keys[0]!.startsWith('files/'))).toEqual([]);
    expect(findings.find((f) => f.kind === 'collision')!.keys).toEqual(['mine/read-file', 'files/read-file']);
  });

  it('picks one version of each tool, the highest, as a turn does; built-ins are not reported on', () => {
    const view = (slug: string, version: string, extra: Record<string, unknown> = {}) =>
      ({ id: `${slug}@${version}`, bundleId: 'b1', slug, version, displayName: slug, description: 'x', tags: [], argSchema: {}, type: 'local', isEnabled: true, isBuiltIn: false, createdAt: '', modifiedAt: '', ...extra }) as never;
    const picked = searchedTools([
      { tool: view('a', '1'), bundleSlug: 'b' },
      { tool: view('a', '10'), bundleSlug: 'b' },
      { tool: view('a', '9'), bundleSlug: 'b' },
      { tool: view('c', '1', { isBuiltIn: true }), bundleSlug: 'b' },
    ]);
    expect(picked.map((t) => [t.key, t.report])).toEqual([
      ['a@10', true],
      ['c@1', false],
    ]);
  });
});

describe('findability on the realistic registry', () => {
  const real = () => realTools(readRealRegistry()).map((t): FindabilityTool => ({ key: t.key, tool: t.tool, bundleSlug: t.bundleSlug }));
  const figures = (findings: readonly ToolFinding[]) => {
    const out: Record<string, number> = {};
    for (const f of findings) out[`${f.kind}/${f.severity}`] = (out[`${f.kind}/${f.severity}`] ?? 0) + 1;
    return Object.fromEntries(Object.entries(out).sort());
  };

  it('500 tools: finds the defects the documents have, with at most three searches a tool, the event loop free between slices', async () => {
    const tools = real();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const started = performance.now();
    const r = await findability(tools);
    const ms = performance.now() - started;
    clearInterval(timer);
    console.log(`findability, realistic registry: ${tools.length} tools, ${r.findings.length} findings, ${r.searches} searches, ${Math.round(ms)} ms`, figures(r.findings));

    expect(r.checked).toBe(tools.length);
    // Each tool: its own words, then naming its bundle or its name's words; plus the other side of a near pair.
    expect(r.searches).toBeLessThanOrEqual(3 * tools.length);
    expect(ticks).toBeGreaterThan(0);
    // The OpenAI document has the same operation twice (beta and not): a duplicate.
    const dup = r.findings.find((f) => f.kind === 'collision' && f.keys.includes('openai/beta-create-response') && f.keys.includes('openai/create-response'));
    expect(dup?.severity).toBe('high');
    // Discord's descriptions are its routes written out ("get_guild: GET /guilds/{guild_id}").
    const routes = tools.filter((t) => t.bundleSlug === 'discord' && /^\w+: (GET|POST|PUT|PATCH|DELETE) \//.test(t.tool.description));
    expect(routes.length).toBeGreaterThan(20);
    for (const t of routes) expect(kinds(r.findings, t.key), t.key).toContain('short-description/medium');
    // Stripe's POST operations are named after their routes.
    expect(kinds(r.findings, 'stripe/post-invoices')).toContain('vague-name/low');
    expect(about(r.findings, 'stripe/post-invoices')[0]!.suggestion).toContain('`create-invoice`');
    // Most tools are found by their own words.
    const hard = r.findings.filter((f) => f.kind === 'hard-to-find' && f.severity !== 'low');
    expect(hard.length).toBeLessThan(tools.length / 20);
  }, 120_000);

  it('600+ tools, two bundles imported twice: each copy is a duplicate of its original', async () => {
    const tools = real();
    const twice = tools.filter((t) => t.bundleSlug === 'discord' || t.bundleSlug === 'asana').map((t) => ({ ...t, key: `${t.key}#2`, bundleSlug: `${t.bundleSlug}-2` }));
    const all = [...tools, ...twice];
    expect(all.length).toBeGreaterThan(600);
    const started = performance.now();
    const r = await findability(all);
    console.log(`findability, ${all.length} tools: ${r.findings.length} findings, ${r.searches} searches, ${Math.round(performance.now() - started)} ms`, figures(r.findings));
    expect(r.searches).toBeLessThanOrEqual(3 * all.length);
    const dups = r.findings.filter((f) => f.kind === 'collision' && f.severity === 'high' && f.keys.some((k) => k.endsWith('#2')));
    const paired = new Set(dups.flatMap((f) => f.keys.filter((k) => k.endsWith('#2'))));
    // A copy whose description is shared by other tools of its bundle too may pair with one of them; every copy is flagged.
    expect(paired.size).toBeGreaterThanOrEqual(twice.length - 5);
  }, 180_000);
});

describe('tools.findability (the operation)', () => {
  const tempDir = useTempDirs();
  const cores: Core[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.close();
  });

  it('reports on the user’s usable tools only, ranks them with the built-ins, and keeps the report until a tool changes', async () => {
    const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
    cores.push(core);
    const call = async <N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> => {
      const r = await core.call(name, input);
      if (!r.ok) throw new Error(r.error.message);
      return r.value as OpOutput<N>;
    };
    const empty = await call('tools.findability', {});
    expect(empty.checked).toBe(0);
    expect(empty.ranked).toBeGreaterThan(0);
    expect(empty.findings).toEqual([]);

    const bundleId = newId();
    await call('bundles.put', { bundleId, body: bundleBody({ slug: 'mine', displayName: 'Mine' }) as OpInput<'bundles.put'>['body'] });
    const body = (over: Record<string, unknown>) => localToolBody({ local: { functionId: 'text.count' }, ...over }) as OpInput<'tools.put'>['body'];
    await call('tools.put', { bundleId, slug: 'tool1', version: '1', body: body({ displayName: 'Tool 1', description: '' }) });
    await call('tools.put', { bundleId, slug: 'count-words', version: '1', body: body({ displayName: 'Count words', description: 'Counts the words and lines of a text and returns both numbers.' }) });
    await call('tools.put', { bundleId, slug: 'off', version: '1', body: body({ displayName: 'Off', description: '', isEnabled: false }) });

    const report = await call('tools.findability', {});
    expect(report.checked).toBe(2);
    expect(report.ranked).toBe(empty.ranked + 2);
    expect(report.counts.high).toBeGreaterThanOrEqual(1);
    const first = report.findings[0]!;
    expect(first).toMatchObject({ kind: 'empty-description', severity: 'high' });
    expect(first.tools[0]).toMatchObject({ bundleId, bundleSlug: 'mine', slug: 'tool1', version: '1', displayName: 'Tool 1', isBuiltIn: false });
    expect(report.findings.some((f) => f.tools.some((t) => t.isBuiltIn && f.tools[0] === t))).toBe(false);
    expect(report.findings.some((f) => f.tools.some((t) => t.slug === 'off'))).toBe(false);
    // Kept: the same object until a tool changes.
    expect(await call('tools.findability', {})).toEqual(report);

    await call('tools.put', { bundleId, slug: 'tool1', version: '2', body: body({ displayName: 'Word count', description: 'Counts the words of a text, for a quick length check.' }) });
    const after = await call('tools.findability', {});
    expect(after.findings.some((f) => f.kind === 'empty-description')).toBe(false);

    // Limited to other bundles: nothing of `mine` is reported.
    const none = await call('tools.findability', { bundleIds: [newId()] });
    expect([none.checked, none.findings.length]).toEqual([0, 0]);
  }, 60_000);
});
