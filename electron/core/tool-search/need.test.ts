import { describe, expect, it } from 'vitest';
import type { ToolView } from '../../../shared/model/tool';
import { serviceNames, searchableTool } from './document';
import { needParts, splitNeeds, unwrap } from './need';
import { SERVICE_NAMED, ToolRanker, oneEditApart, queryTerms } from './ranker';

type T = Pick<ToolView, 'slug' | 'displayName' | 'description' | 'tags' | 'argSchema'> & { http?: ToolView['http'] };
const tool = (slug: string, description: string, extra: Partial<T> = {}): T => ({
  slug,
  displayName: slug.replace(/-/g, ' '),
  description,
  tags: [],
  argSchema: { type: 'object', properties: {} },
  ...extra,
});
const http = (method: string, urlTemplate: string) => ({ http: { method, urlTemplate } as ToolView['http'] });

describe('a need’s values are told apart from what it asks', () => {
  it('quoted text is payload; values become their kind; numbers, references and ids are set aside', () => {
    expect(needParts("Open a bug on acme/web titled 'Login button unresponsive on Safari 17'")).toEqual({ text: 'Open a bug on acme/web titled  ', payload: 'Login button unresponsive on Safari 17', values: '', kinds: [] });
    const p = needParts('email jane.doe@example.com invoice in_1234567 for $250.00 and ping @maria-dev about #42, see https://x.example.com/a?b=1 then');
    expect(p.kinds.sort()).toEqual(['amount', 'email', 'url', 'user']);
    expect(p.text.replace(/\s+/g, ' ').trim()).toBe('email invoice for and ping about , see then');
    expect(p.values).toBe('#42 in_1234567');
    expect(needParts('Mark ABC-12 as done').kinds).toEqual(['issue']);
    expect(needParts("text +1 (415) 555-0100 'we\u2019re late' on 2024-05-01").kinds.sort()).toEqual(['date', 'phone']);
  });

  it('an apostrophe is not a quote', () => {
    expect(needParts("don't close the issue, it's still open")).toMatchObject({ payload: '', kinds: [] });
  });

  it('payload words count a quarter, a value’s kind a half, and neither is expanded; words every request is full of count less', () => {
    const q = queryTerms("create an issue titled 'refund broken' for jane@example.com");
    const w = Object.fromEntries(q.filter((t) => t.own).map((t) => [t.term, t.weight]));
    expect(w).toMatchObject({ creat: 0.4, issu: 1, titl: 1, email: 0.5, refund: 0.25, broken: 0.25 });
    expect(q.some((t) => !t.own && t.term === 'reimburs')).toBe(false);
  });

  it('a title’s words no longer outrank the action they are the payload of', () => {
    const r = new ToolRanker(
      [tool('create-issue', 'Create an issue with a title and a body.'), tool('reset-login', 'Reset a user’s login button settings on Safari.')].map((t) => searchableTool(t.slug, { tool: t, bundleSlug: 'b' })),
    );
    expect(r.rank("open an issue titled 'login button broken on Safari'", 2)[0]!.key).toBe('create-issue');
  });
});

describe('a request for several things is cut into its parts', () => {
  it('at sentence ends, semicolons and the words that join a second request', () => {
    expect(splitNeeds('Find a hotel in Lisbon and book a taxi from the airport')).toEqual(['Find a hotel in Lisbon', 'book a taxi from the airport']);
    expect(splitNeeds('What is the weather in Paris? Also, any news about the strike?')).toEqual(['What is the weather in Paris?', 'Also, any news about the strike?']);
    expect(splitNeeds('Show me the exchange rates and also recommend some books on inflation')).toEqual(['Show me the exchange rates', 'recommend some books on inflation']);
    expect(splitNeeds('close issue 4; then archive the repo')).toEqual(['close issue 4', 'then archive the repo']);
    expect(splitNeeds('list the courses on data analysis as well as some research papers')).toEqual(['list the courses on data analysis', 'some research papers']);
  });

  it('one request stays whole, and quoted text is never cut', () => {
    expect(splitNeeds('list the open and closed issues of acme/web')).toEqual(['list the open and closed issues of acme/web']);
    expect(splitNeeds("Post 'Back soon. And also: coffee' in #general and then close issue 4")).toEqual(["Post 'Back soon. And also: coffee' in #general", 'close issue 4']);
  });

  it('quotes around a whole request are not a payload', () => {
    expect(unwrap('"What is the price of gold? And the weather in Rome?"')).toBe('What is the price of gold? And the weather in Rome?');
    expect(splitNeeds('"What is the price of gold? And the weather in Rome?"')).toEqual(['What is the price of gold?', 'And the weather in Rome?']);
    expect(needParts('"send an invoice"')).toMatchObject({ text: 'send an invoice', payload: '' });
    expect(unwrap("Post 'hi' to 'general'")).toBe("Post 'hi' to 'general'");
  });
});

describe('naming a service scopes the search', () => {
  const tools = [
    { t: tool('create-issue', 'Create an issue in a repository.', http('POST', 'https://api.github.com/repos/{o}/{r}/issues')), b: 'github', n: 'GitHub v3 REST API' },
    { t: tool('do-transition', 'Performs an issue transition, e.g. to done.', http('POST', 'https://{host}/rest/api/3/issue/{key}/transitions')), b: 'jira', n: 'The Jira Cloud platform REST API' },
    { t: tool('update-issue', 'Update an issue: its state, title or labels. Mark it done.', http('PATCH', 'https://api.github.com/repos/{o}/{r}/issues/{n}')), b: 'github', n: 'GitHub v3 REST API' },
    { t: tool('list-files', 'List the files in a folder.'), b: 'files', n: 'Files' },
    { t: tool('upload-file', 'Upload files to a folder.', http('POST', 'https://upload.box.com/api/2.0/files/content')), b: 'box', n: 'Box Platform API' },
    { t: tool('share-file', 'Share one of the files in a folder with a link.'), b: 'box', n: 'Box Platform API' },
    { t: tool('read-files', 'Read files of the workspace.'), b: 'workspace', n: 'Workspace' },
  ];
  const ranker = () => new ToolRanker(tools.map(({ t, b, n }) => searchableTool(`${b}/${t.slug}`, { tool: t, bundleSlug: b, bundleName: n })));

  it('a service’s names: its slug, the specific words of its name, the initials of a name in parts, its API host', () => {
    expect(serviceNames('github', 'GitHub v3 REST API', 'https://api.github.com/repos')).toEqual(['github', 'gh']);
    expect(serviceNames('jira', 'The Jira Cloud platform REST API', 'https://{host}/rest/api/3/issue')).toEqual(['jira']);
    expect(serviceNames('box', 'Box Platform API', 'https://upload.box.com/api/2.0/files')).toEqual(['box', 'upload']);
  });

  it('the named service’s tools come first, and its name is matched as a scope, not as a word', () => {
    const r = ranker();
    expect(r.rank('mark the Jira ticket as done', 3)[0]!.key).toBe('jira/do-transition');
    expect(r.rank('mark the GitHub issue as done', 3)[0]!.key).toBe('github/update-issue');
    expect(r.rank('open an issue in gh', 1)[0]!.key).toBe('github/create-issue');
    const [first, second] = r.rank('mark the Jira ticket as done', 2);
    expect(first!.matched).toContain('jira');
    expect(first!.score / second!.score).toBeGreaterThan(1);
    expect(SERVICE_NAMED).toBeGreaterThan(1);
  });

  it('a word many other services use is not a service’s name ("files" stays a word)', () => {
    const r = ranker();
    const hits = r.rank('list the files', 3).map((h) => h.key);
    expect(hits[0]).toBe('files/list-files');
    // "box" names the Box bundle: its tools first, though "files" is everywhere.
    expect(r.rank('share files in box', 1)[0]!.key).toBe('box/share-file');
  });

  it('a service named by what its tools act on still tells them apart by that word ("add task" in a Tasks bundle)', () => {
    const tasks = [tool('add-comment', 'Add a comment to a task.'), tool('add-task', 'Add a task to a list.'), tool('add-label', 'Add a label to a task.')].map((t) => searchableTool(`tasks/${t.slug}`, { tool: t, bundleSlug: 'tasks', bundleName: 'Tasks' }));
    const r = new ToolRanker([...tasks, searchableTool('github/create-issue', { tool: tool('create-issue', 'Create an issue.'), bundleSlug: 'github', bundleName: 'GitHub' })]);
    expect(r.rank('add task', 1)[0]!.key).toBe('tasks/add-task');
  });

  it('a need that is only a service’s name still finds its tools', () => {
    expect(ranker().rank('jira', 3).map((h) => h.key)).toEqual(['jira/do-transition']);
  });
});

describe('what a need’s words are matched against', () => {
  it('an HTTP method is not matched as an English verb', () => {
    const r = new ToolRanker(
      [tool('replace-labels', 'Replace all labels.', http('PUT', 'https://x.example/labels/{n}')), tool('assign-person', 'Assign a person to a task.', http('POST', 'https://x.example/tasks/{n}/assignees'))].map((t) =>
        searchableTool(t.slug, { tool: t, bundleSlug: 'x' }),
      ),
    );
    expect(r.rank('put her on the task', 5).map((h) => h.key)).toEqual(['assign-person']);
  });

  it('a tool’s own name typed in the need, and values tools use ("oauth2"), count as words', () => {
    const r = new ToolRanker(
      [tool('list_repository_collaborators', 'List collaborators of a repository.'), tool('get_repository_access', 'Get who has access to a repository.'), tool('create-oauth2-app', 'Register an oauth2 application.'), tool('create-app', 'Create an application.')].map((t) =>
        searchableTool(t.slug, { tool: t, bundleSlug: 'x' }),
      ),
    );
    expect(r.rank('call list_repository_collaborators to see who has access', 1)[0]!.key).toBe('list_repository_collaborators');
    expect(r.rank('create an oauth2 application', 1)[0]!.key).toBe('create-oauth2-app');
  });

  it('a misspelt word stands for the known word one edit away', () => {
    expect(oneEditApart('refnd', 'refund')).toBe(true);
    expect(oneEditApart('chanel', 'channel')).toBe(true);
    expect(oneEditApart('teh', 'the')).toBe(true);
    expect(oneEditApart('refund', 'refunds!')).toBe(false);
    const r = new ToolRanker([tool('create-refund', 'Refund a charge.'), tool('create-charge', 'Create a charge.')].map((t) => searchableTool(t.slug, { tool: t, bundleSlug: 'x' })));
    expect(r.rank('refnd the charge', 1)[0]!.key).toBe('create-refund');
  });

  it('"done" and "to-do" are words, not stop words', () => {
    expect(queryTerms('mark it done').map((q) => q.term)).toContain('done');
    expect(queryTerms('add a to-do').filter((q) => q.own).map((q) => q.term)).toEqual(['add', 'todo']);
  });
});
