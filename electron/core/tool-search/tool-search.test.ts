import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolView } from '../../../shared/model/tool';
import { needAction, needScope, toolAction, toolScope } from './action';
import { searchableTool, toolFields, type SearchableTool } from './document';
import { ToolRanker, queryTerms } from './ranker';
import { argsSummary, shortDescription } from './summary';
import { terms, words } from './text';
import { buildRealRegistry } from './testing/build-real-registry';
import { readRealRegistry } from './testing/real-registry';

type T = Pick<ToolView, 'slug' | 'displayName' | 'description' | 'tags' | 'argSchema'> & { http?: ToolView['http'] };
const tool = (slug: string, description: string, extra: Partial<T> = {}): T => ({
  slug,
  displayName: slug.replace(/-/g, ' '),
  description,
  tags: [],
  argSchema: { type: 'object', properties: {} },
  ...extra,
});
const ranker = (tools: T[], bundle = 'office', opts = {}) => new ToolRanker(tools.map((t) => searchableTool(t.slug, { tool: t, bundleSlug: bundle })), opts);
const top = (r: ToolRanker, q: string, n = 3) => r.rank(q, n).map((h) => h.key);

describe('text', () => {
  it('drops markup, splits a tool text at case changes (keeping the word whole), stems, drops stop words', () => {
    expect(terms('<p>Retrieves the [balance](https://x.example/b) of the account.</p>')).toEqual(['retriev', 'balanc', 'account']);
    expect(terms('GetBalanceTransactions', true)).toEqual(['getbalancetransact', 'get', 'balanc', 'transact']);
    // A need names a service whole, as it is written.
    expect(terms('on GitHub')).toEqual(['github']);
    expect(terms('sending messages')).toEqual(terms('Send a message'));
  });

  it('words Porter would fold into another word keep their own stem', () => {
    expect(terms('news')).not.toEqual(terms('new'));
    expect(terms('marketing')).not.toEqual(terms('market'));
    expect(terms('general')).not.toEqual(terms('generate'));
    expect(terms('an assistant')).not.toEqual(terms('assist me'));
    expect(terms('the latest news')).toEqual(terms('latest News'));
    expect(terms('universities')).toEqual(terms('university'));
  });

  it('joins phrases on both sides', () => {
    expect(words('who is logged in')).toEqual(['who', 'is', 'login']);
    expect(terms('Get rid of the label')).toEqual(['remov', 'label']);
    expect(terms('List incoming phone numbers')).toEqual(['list', 'incom', 'phonenumb']);
  });
});

describe('action and scope', () => {
  it('a need says its action with its first verb, a tool with its name or method', () => {
    expect(needAction('please get rid of the old label')).toBe('delete');
    expect(needAction('which branches are there')).toBe('read');
    expect(needAction('put a user into a group')).toBe('create');
    expect(needAction('the quarterly report')).toBeUndefined();
    expect(toolAction('GetBalance', 'get-balance', 'GET')).toBe('read');
    expect(toolAction('Add user to group', 'post-group-memberships', 'POST')).toBe('create');
    expect(toolAction('unban_user_from_guild', 'unban-user-from-guild', 'DELETE')).toBe('delete');
  });

  it('a read gives one thing or a list', () => {
    expect(needScope('list every open issue')).toBe('many');
    expect(needScope('fetch a single invoice by its id')).toBe('one');
    expect(toolScope('Get a task', 'get-task', 'GET', 'https://app.asana.com/api/1.0/tasks/{task_gid}')).toBe('one');
    expect(toolScope('Get tasks', 'get-tasks', 'GET', 'https://app.asana.com/api/1.0/tasks?x=1')).toBe('many');
    expect(toolScope('List branches', 'repos-list-branches', 'GET', 'https://api.github.com/repos/{owner}/{repo}/branches/{branch}')).toBe('many');
  });
});

describe('the ranking', () => {
  const office = [
    tool('send-sms', 'Send an SMS to a phone number', { argSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } } } }),
    tool('send-email', 'Send an email message to an address'),
    tool('list-messages', 'List the messages of a mailbox', { http: { method: 'GET', urlTemplate: 'https://m.example/messages' } as ToolView['http'] }),
    tool('get-message', 'Get one message of a mailbox', { http: { method: 'GET', urlTemplate: 'https://m.example/messages/{id}' } as ToolView['http'] }),
    tool('delete-issue', 'Delete an issue from the tracker'),
    tool('remove-tag', 'Remove a tag from a task'),
    tool('weather', 'Weather forecast for a city', { argSchema: { type: 'object', properties: { city: { type: 'string', description: 'the city to send the forecast for' } } } }),
  ];
  const r = ranker(office);

  it('finds a tool for a sentence', () => {
    expect(top(r, 'send a text message to a customer', 1)).toEqual(['send-sms']);
    expect(top(r, 'email the report to my manager', 1)).toEqual(['send-email']);
  });

  it('a word in the name or description counts more than in an argument\'s description', () => {
    const two = ranker([
      tool('a-export', 'Export a table', { argSchema: { type: 'object', properties: { q: { type: 'string', description: 'the invoice to export' } } } }),
      tool('b-invoice', 'Make a document'),
    ]);
    expect(top(two, 'invoice', 2)).toEqual(['b-invoice', 'a-export']);
  });

  it('synonyms find what other words name; without them the same need finds nothing', () => {
    expect(top(r, 'erase a ticket', 1)).toEqual(['delete-issue']);
    expect(ranker(office, 'office', { expand: false }).rank('erase a ticket', 3)).toEqual([]);
    // A word counts through its best form only, not once per synonym.
    expect(queryTerms('remove a ticket').filter((q) => q.own).map((q) => q.term)).toEqual(['remov', 'ticket']);
  });

  it('an everyday thing also looks for the broader word tools describe it by, one way only', () => {
    const shop = ranker([
      tool('product-search', 'Find products with smart filters and recommendations'),
      tool('weather-now', 'Current weather and forecast for a city'),
      tool('laptop-repair', 'Book a laptop repair'),
    ]);
    expect(top(shop, 'a cheap laptop with 16GB of RAM', 2)).toEqual(['laptop-repair', 'product-search']);
    expect(top(shop, 'will I need an umbrella in Oslo tomorrow', 1)).toEqual(['weather-now']);
    // "products" does not look for laptops.
    expect(queryTerms('products').map((q) => q.term)).not.toContain('laptop');
  });

  it('a tool whose name the request says is preferred over one that only mentions the word', () => {
    const two = ranker([
      tool('media-digest', 'A digest of videos, podcasts, news, blogs and newsletters from every source'),
      tool('news', 'Headlines of the day'),
    ]);
    expect(top(two, 'the news about the election', 1)).toEqual(['news']);
  });

  it('a request for two things brings the best tools of each into the first few', () => {
    const r2 = ranker([
      tool('hotel-search', 'Search hotel rooms with a sea view and breakfast, and compare their prices'),
      tool('hotel-reviews', 'Read what guests say of a hotel room, its view and its breakfast'),
      tool('hotel-photos', 'See the photos of a hotel: its rooms, the view, the breakfast room'),
      tool('hotel-map', 'Show hotels on a map of the old town'),
      tool('hotel-deals', 'Cheap hotel rooms and deals with breakfast'),
      tool('city-guide', 'A guide to the old town: sights, hotels with a view and food'),
      tool('weather', 'Weather forecast for a place'),
    ]);
    const q = 'Find a cheap hotel room with a sea view and breakfast near the old town, and also check the weather there';
    // The whole request's words are mostly the hotel's: read whole, the weather comes late.
    expect(r2.rank(q, 3, { split: false }).map((h) => h.key)).not.toContain('weather');
    const found = top(r2, q, 3);
    expect(found[0]).toBe('hotel-search');
    expect(found).toContain('weather');
  });

  it('"un" words undo: untag removes a tag', () => {
    expect(top(r, 'untag the task', 1)).toEqual(['remove-tag']);
  });

  it('a need for a list prefers the list, a need for one thing the single read', () => {
    expect(top(r, 'list all messages in the mailbox', 1)).toEqual(['list-messages']);
    expect(top(r, 'fetch one message of the mailbox by its id', 1)).toEqual(['get-message']);
  });

  it('a query with no known word, or an empty one, finds nothing; ties come in key order', () => {
    expect(r.rank('zzzz qqqq', 5)).toEqual([]);
    expect(r.rank('', 5)).toEqual([]);
    expect(r.rank('the of and', 5)).toEqual([]);
    const twins = ranker([tool('b-twin', 'make toast'), tool('a-twin', 'make toast')]);
    expect(top(twins, 'toast', 2)).toEqual(['a-twin', 'b-twin']);
  });

  it('reads the bundle, tags, argument names and an HTTP path', () => {
    const f = toolFields({ tool: { ...tool('x', 'd'), tags: ['billing'], http: { method: 'GET', urlTemplate: 'https://api.example/v1/repos/{owner}/{repo}/issues.json' } as ToolView['http'], argSchema: { type: 'object', properties: { owner: { type: 'string', description: 'who owns it' }, filter: { type: 'object', properties: { state: { type: 'string' } } } } } }, bundleSlug: 'gh', bundleName: 'GitHub' });
    // The method is not in the path's words: "put", "get" and "post" would match a person's verbs.
    expect(f).toMatchObject({ tags: 'billing', bundle: 'gh GitHub', args: 'owner filter state', argDocs: 'who owns it', path: 'repos issues' });
  });
});

describe('what a search answers of a tool', () => {
  it('arguments as name*: type, required first, enums when short', () => {
    expect(argsSummary({ type: 'object', properties: { state: { type: 'string', enum: ['open', 'closed'] }, owner: { type: 'string' }, ids: { type: 'array', items: { type: 'integer' } } }, required: ['owner'] })).toBe(
      'owner*: string, state: "open"|"closed", ids: integer[]',
    );
    expect(argsSummary({ type: 'object' })).toBe('');
  });

  it('a description cut at a sentence, markup out', () => {
    expect(shortDescription('<b>Sends</b> a message. Then more.')).toBe('Sends a message. Then more.');
    const long = `${'word '.repeat(30)}end. ${'more '.repeat(60)}`;
    expect(shortDescription(long)).toBe(`${'word '.repeat(30)}end.`);
    expect(shortDescription('x'.repeat(500)).length).toBe(240);
  });
});

const DOCS = path.resolve(import.meta.dirname, '../../../../shared/openapi-real');

describe.skipIf(!existsSync(DOCS))('the realistic registry', () => {
  it('real-registry.json.gz is what the importer makes of the eight documents today', { timeout: 120_000 }, () => {
    expect(buildRealRegistry(DOCS)).toEqual(readRealRegistry());
  });
});

describe('the realistic registry as kept in the repository', () => {
  it('holds 500 tools, each searchable', () => {
    const reg = readRealRegistry();
    const all: SearchableTool[] = reg.bundles.flatMap((b) => b.tools.map((t) => searchableTool(`${b.slug}/${t.slug}`, { tool: { ...t.tool, slug: t.slug }, bundleSlug: b.slug })));
    expect(all).toHaveLength(500);
    const empty = all.filter((t) => terms(`${t.fields.title} ${t.fields.description}`, true).length === 0).map((t) => t.key);
    expect(empty).toEqual([]);
  });

  it('a request for two things of two services gets a tool of each in the first five', () => {
    const reg = readRealRegistry();
    const r = new ToolRanker(reg.bundles.flatMap((b) => b.tools.map((t) => searchableTool(`${b.slug}/${t.slug}`, { tool: { ...t.tool, slug: t.slug }, bundleSlug: b.slug, bundleName: b.displayName }))));
    const q = 'Create a Jira bug for the checkout crash and post a heads-up in the #eng Discord channel';
    const whole = r.rank(q, 5, { split: false }).map((h) => h.key);
    expect(whole.filter((k) => k.startsWith('jira/'))).toEqual([]);
    const found = r.rank(q, 5).map((h) => h.key);
    expect(found).toContain('jira/create-issue');
    expect(found.some((k) => k.startsWith('discord/'))).toBe(true);
  });
});
