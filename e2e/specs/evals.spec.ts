/**
 * Evals, as a tool builder meets them: in the chat the scripted model counts the words of a
 * quoted text with the user's own tool; "Save as eval case" on the tool card drafts an eval case from
 * the turn (the prompt, the tool, a check of its argument, its result as a canned answer), which
 * the user narrows (this bundle's tools, no tool search, an answer check) and saves. On the Tools
 * screen the case runs on two models of the scripted server, twice each: one always right, one
 * that fills a wrong argument once and calls another tool once. The report shows the pass rates,
 * the tool chosen instead, the argument diff and what the model saw; the user gives the tool a
 * clearer description (a new version) from there, runs again and compares: the weak model is
 * fixed and the description's two versions are shown as a diff. A run that waits on its model
 * is cancelled with Esc. Each screen passes axe (WCAG 2.2
 * AA, no serious or critical violation) in the light and the dark theme.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from '../../electron/core/testing/scripted-model-server';
import { expect, screenshot, test } from '../fixtures';
import { rpc, type RunningHost } from '../fixtures/host';
import { messagesOf, offeredName } from '../fixtures/model-steps';
import { AppShell } from '../pages/app-page';

const BUNDLE_ID = '019a0000-0000-7000-8000-0000000e7a11';
const BUNDLE_SLUG = 'evals-e2e';
const COUNT = 'word-tally';
const OTHER = 'letter-tally';
/** The two models of the scripted server: one always right, one hasty (their names read well in the docs' screenshots). */
const GOOD = 'steady-7b';
const WEAK = 'hasty-3b';
/** The provider, saved once per data folder and pointed at this worker's scripted server. */
const PROVIDER = 'Local models';
const TEXT = 'the quick brown fox';
const PROMPT = `How many words are in "${TEXT}"?`;
const VAGUE = 'Tallies a text.';
const CLEAR = 'Counts the words of the exact text the user quotes: pass it unchanged, without the quotes.';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Shows a theme without saving it (the data folder is shared with other specs); null: the one saved. */
async function showTheme(page: Page, theme: 'light' | 'dark' | null): Promise<string | null> {
  return page.evaluate((t) => {
    const root = (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string | undefined> } } }).document.documentElement;
    const was = root.dataset.theme ?? null;
    if (t) root.dataset.theme = t;
    return was;
  }, theme);
}

/** The serious and critical axe violations (WCAG 2.2 AA) on the page as it is now, in the light and the dark theme, one line each. */
async function axe(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  const saved = await showTheme(page, null);
  for (const theme of ['light', 'dark'] as const) {
    await showTheme(page, theme);
    const result = await new AxeBuilder({ page }).withTags(TAGS).exclude('[data-testid="mcp-app-frame"]').analyze();
    for (const v of result.violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      for (const n of v.nodes) found.push(`[${where}, ${theme}] ${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}`);
    }
  }
  await page.evaluate((t) => {
    const root = (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string | undefined> } } }).document.documentElement;
    if (t === null) delete root.dataset.theme;
    else root.dataset.theme = t;
  }, saved);
  return found;
}

/** This spec's bundle: the word tally (its vague first version only) and the letter tally, no eval cases and no saved runs. */
async function setUp(host: RunningHost): Promise<void> {
  await rpc(host, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: BUNDLE_SLUG, displayName: 'Evals e2e', description: 'Tools a model should choose right', isEnabled: true } });
  const made = await rpc<{ items: { slug: string; version: string }[] }>(host, 'tools.list', { bundleIds: [BUNDLE_ID], includeDisabled: true, pageSize: 100 });
  // A retry finds the second version the first try made: the story starts from the first.
  for (const t of made.items) if (t.slug === COUNT && t.version !== '1') await rpc(host, 'tools.delete', { bundleId: BUNDLE_ID, slug: COUNT, version: t.version });
  const tool = (displayName: string, description: string) => ({
    displayName,
    description,
    tags: ['e2e'],
    type: 'local',
    argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object' },
    local: { functionId: 'text.count' },
    isEnabled: true,
  });
  if (!made.items.some((t) => t.slug === COUNT && t.version === '1')) await rpc(host, 'tools.put', { bundleId: BUNDLE_ID, slug: COUNT, version: '1', body: tool('Word tally', VAGUE) });
  if (!made.items.some((t) => t.slug === OTHER)) await rpc(host, 'tools.put', { bundleId: BUNDLE_ID, slug: OTHER, version: '1', body: tool('Letter tally', 'Tallies the letters of a text.') });
  for (const c of await rpc<{ id: string }[]>(host, 'evals.list', { bundleId: BUNDLE_ID })) await rpc(host, 'evals.delete', { bundleId: BUNDLE_ID, id: c.id });
  const runs = await rpc<{ id: string; bundles: { bundleId: string }[] }[]>(host, 'evals.listRuns', {});
  for (const r of runs) if (r.bundles.some((b) => b.bundleId === BUNDLE_ID)) await rpc(host, 'evals.deleteRun', { runId: r.id });
}

type Msg = { role: string; content?: unknown; tool_calls?: { function?: { name?: string } }[] };

/** The description of a tool as a request carried it. */
const descriptionOf = (r: RecordedRequest, name: string): string =>
  ((r.body?.tools ?? []) as { function?: { name?: string; description?: string } }[]).find((t) => t.function?.name === name)?.function?.description ?? '';

/**
 * The two models. Each request is answered from what it carries: after a tool's result, the
 * answer; when the word tally is not offered, a tool search; else a call. The good model calls
 * the word tally with the quoted text. The weak one, while the description is vague, drops the
 * first word on its odd attempts and calls the letter tally on its even ones; it gets it right
 * once the description says to pass the exact text.
 */
function modelReplies(): (r: RecordedRequest) => ScriptedReply {
  let weakAttempts = 0;
  return (r) => {
    const model = String(r.body?.model ?? '');
    const msgs = messagesOf(r) as Msg[];
    const last = msgs.at(-1);
    const lastCall = msgs.filter((m) => m.role === 'assistant').at(-1)?.tool_calls?.at(-1)?.function?.name;
    if (last?.role === 'user' && model === WEAK) weakAttempts++;
    if (last?.role === 'tool' && lastCall !== 'tool_search') {
      const told = String(last.content ?? '');
      const words = /"words"\s*:\s*(\d+)/.exec(told)?.[1] ?? '?';
      return { kind: 'text', text: `There are ${words} words.`, usage: { input: 60, output: 6 } };
    }
    const count = offeredName(r, COUNT);
    if (!count) {
      if (lastCall === 'tool_search') return { kind: 'text', text: 'I found no tool for that.' };
      return { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'tally the words of a text' } }] };
    }
    const usage = { input: 120, output: 14 };
    if (model !== WEAK || descriptionOf(r, count).includes('exact')) return { kind: 'tools', calls: [{ name: count, arguments: { text: TEXT } }], usage };
    const other = offeredName(r, OTHER);
    if (weakAttempts % 2 === 0 && other) return { kind: 'tools', calls: [{ name: other, arguments: { text: TEXT } }], usage };
    return { kind: 'tools', calls: [{ name: count, arguments: { text: 'quick brown fox' } }], usage };
  };
}

let server: ScriptedModelServer;
test.beforeAll(async () => {
  server = await startScriptedModelServer();
  server.setModels([GOOD, WEAK]);
});
test.afterAll(async () => {
  await server.close();
});

test('a chat turn saved as an eval case, run on two models, its report and argument diff, run again after a clearer description and compared', async ({ appPage: page, host }) => {
  test.skip(!host, 'sets up its bundle and provider through the headless host');
  test.setTimeout(240_000);
  await setUp(host!);
  await page.setViewportSize({ width: 1440, height: 1000 });
  server.fallback(modelReplies());
  const known = (await rpc<{ id: string; name: string }[]>(host!, 'providers.list', {})).find((p) => p.name === PROVIDER);
  const provider = await rpc<{ id: string }>(host!, 'providers.save', {
    ...(known ? { id: known.id } : {}),
    provider: { name: PROVIDER, kind: 'openai-compatible', baseUrl: server.url, apiKey: 'sk-evals-0123456789' },
  });
  await rpc(host!, 'providers.test', { id: provider.id });
  const shell = new AppShell(page);
  const violations: string[] = [];

  // The chat: the good model counts the words with the word tally.
  await shell.open('chat');
  await page.getByTestId('conversation-new').click();
  await shell.pickModel(PROVIDER, GOOD);
  const composer = page.getByTestId('chat-composer');
  await composer.fill(PROMPT);
  await composer.press('Enter');
  await expect(page.getByTestId('message-list')).toContainText('There are 4 words.');
  const card = page.getByTestId('tool-card').filter({ hasText: `+${COUNT}` }).last();
  await expect(card.getByTestId('tool-card-status')).toHaveText('ok');

  // "Save as eval" on its card: the draft from the turn, with its notes, in the editor.
  await card.getByTestId('save-as-eval').click();
  const dialog = page.getByTestId('eval-draft-dialog');
  await expect(dialog.getByTestId('eval-editor')).toBeVisible();
  await expect(dialog.getByTestId('eval-draft-notes')).toContainText('canned answer');
  await expect(dialog.getByTestId('eval-draft-bundle')).toHaveValue(BUNDLE_ID);
  await expect(dialog.getByTestId('eval-prompt')).toHaveValue(PROMPT);
  await expect(dialog.getByTestId('eval-tool-ref')).toHaveValue(COUNT);
  await expect(dialog.getByTestId('eval-arg-path')).toHaveValue("$['text']");
  await expect(dialog.getByTestId('eval-arg-value')).toHaveValue(JSON.stringify(TEXT));
  violations.push(...(await axe(page, 'save-as-eval')));
  await screenshot(page, 'evals-1-save-from-chat');
  // Narrowed: this bundle's tools only, no tool search, and the answer must say 4.
  await dialog.getByTestId('eval-name').fill('words of the fox');
  await dialog.getByTestId('eval-scope-bundle').check();
  await dialog.getByTestId('eval-tool-search').selectOption('off');
  await dialog.getByTestId('eval-add-answer-check-kind').selectOption('contains');
  await dialog.getByTestId('eval-add-answer-check').click();
  // Saving with the new check empty says what is missing, beside it.
  await dialog.getByTestId('eval-save').click();
  await expect(dialog.getByTestId('eval-issues')).toContainText('1 field needs a look');
  await expect(dialog.getByTestId('eval-answer-text')).toBeFocused();
  await dialog.getByTestId('eval-answer-text').fill('4');
  await dialog.getByTestId('eval-save').click();
  await expect(dialog.getByTestId('eval-draft-saved')).toContainText('Saved “words of the fox” to Evals e2e.');
  await dialog.getByTestId('eval-draft-open').click();

  // The Tools screen: the bundle's evals, the saved case open in the editor.
  await expect(page.getByTestId('screen-tools')).toBeVisible();
  const pane = page.getByTestId('evals-pane');
  await expect(pane.getByTestId('eval-editor')).toBeVisible();
  await expect(pane.getByTestId('eval-name')).toHaveValue('words of the fox');
  await pane.getByTestId('eval-cancel').click();
  const row = pane.getByTestId('eval-case-row').filter({ hasText: 'words of the fox' });
  await expect(row).toContainText(`expects ${BUNDLE_SLUG}/${COUNT}`);
  violations.push(...(await axe(page, 'evals-cases')));

  // Run on both models, twice each.
  await row.getByTestId('eval-case-run').click();
  const form = pane.getByTestId('eval-run-form');
  for (const model of [GOOD, WEAK]) {
    const pick = form.getByTestId('eval-run-pick');
    const value = await pick.locator(`optgroup[label=${JSON.stringify(PROVIDER)}] > option`).filter({ hasText: new RegExp(`^${model}$`) }).getAttribute('value');
    await pick.selectOption({ value: value! });
    await form.getByTestId('eval-run-add-model').click();
  }
  await expect(form.getByTestId('eval-run-model')).toHaveCount(2);
  await form.getByTestId('eval-run-repeat').fill('2');
  await expect(form).toContainText('4 attempts in all.');
  violations.push(...(await axe(page, 'evals-run-form')));
  await form.getByTestId('eval-run-start').click();
  const run = pane.getByTestId('eval-run');
  await expect(run).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await expect(run.getByTestId('eval-run-status')).toContainText('Done: 4 attempts in');
  await expect(run.getByTestId('eval-summary')).toHaveText('2 results: 1 passed, 1 failed');
  // The form folds away once a run is there to read.
  await expect(form).toBeHidden();

  // The report: a pass rate per case and model, the weak model's cell shown first.
  const report = run.getByTestId('eval-report');
  await expect(report.locator(`[data-testid="eval-cell"][data-model$="/${GOOD}"]`)).toHaveText('pass 2/2 · 100 %');
  await expect(report.locator(`[data-testid="eval-cell"][data-model$="/${WEAK}"]`)).toHaveText('fail 0/2 · 0 %');
  const detail = report.getByTestId('eval-detail');
  await expect(detail).toHaveAttribute('data-model', new RegExp(`/${WEAK}$`));
  await expect(detail.getByTestId('eval-chosen-instead')).toContainText(`${BUNDLE_SLUG}/${OTHER} (1 of 2 attempts)`);
  // The first attempt filled a wrong argument: the diff says what was expected and what came.
  const first = detail.getByTestId('eval-attempt').first();
  await expect(first).toHaveAttribute('data-outcome', 'fail');
  const diff = first.getByTestId('eval-args-diff-lines');
  await expect(diff.locator('[data-kind="remove"]')).toHaveText(`-  "text": "${TEXT}"`);
  await expect(diff.locator('[data-kind="add"]')).toHaveText('+  "text": "quick brown fox"');
  // The canned result answered the call: the answer is right, the argument is not.
  await expect(first.getByTestId('eval-answer')).toHaveText('There are 4 words.');
  // What the model saw: both tools with their descriptions (no search: the bundle's tools).
  const saw = first.getByTestId('eval-model-saw');
  await expect(saw.locator(`[data-testid="eval-saw-tool"][data-tool="${BUNDLE_SLUG}/${COUNT}"]`)).toContainText(VAGUE);
  violations.push(...(await axe(page, 'evals-report')));
  await run.scrollIntoViewIfNeeded();
  await screenshot(page, 'evals-2-report');
  // The second attempt called the letter tally instead.
  const second = detail.getByTestId('eval-attempt').nth(1);
  await second.locator('summary').first().click();
  await expect(second.getByTestId('eval-args-diff')).toHaveAttribute('data-called', `${BUNDLE_SLUG}/${OTHER}`);

  // From what the model saw, the word tally's description: a new version says what to pass.
  await saw.locator(`[data-testid="eval-saw-tool"][data-tool="${BUNDLE_SLUG}/${COUNT}"]`).getByTestId('eval-edit-description').click();
  await expect(page.getByTestId('tool-editor')).toBeVisible();
  await page.getByTestId('new-version').click();
  await page.getByTestId('tool-form-version').fill('2');
  await page.getByTestId('tool-form-description').fill(CLEAR);
  await page.getByTestId('tool-form-save').click();
  await expect(page.getByTestId('tool-form-notice')).toContainText(`Saved +${COUNT} version 2.`);

  // Back to the evals: the run is still there; run it again, then compare with the last run.
  await page.getByTestId('evals-open').click();
  await pane.getByTestId('evals-tab-run').click();
  await expect(run.getByTestId('eval-summary')).toHaveText('2 results: 1 passed, 1 failed');
  await run.getByTestId('eval-run-again').click();
  await expect(run).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await expect(run.getByTestId('eval-summary')).toHaveText('2 results: 2 passed, 0 failed');
  await run.getByTestId('eval-compare-last').click();
  const compare = run.getByTestId('eval-compare');
  await expect(compare.getByTestId('eval-compare-summary')).toContainText('Pass rate 50 % → 100 %');
  await expect(compare.locator(`[data-testid="eval-compare-case"][data-change="fixed"]`)).toHaveCount(1);
  await expect(compare.locator(`[data-testid="eval-compare-case"][data-change="same"]`)).toHaveCount(1);
  const change = compare.locator(`[data-testid="eval-tool-change"][data-tool="${BUNDLE_SLUG}/${COUNT}"]`);
  await expect(change).toContainText('version 1 → 2');
  await expect(change.getByTestId('eval-description-diff').locator('[data-kind="remove"]')).toHaveText(`-${VAGUE}`);
  await expect(change.getByTestId('eval-description-diff').locator('[data-kind="add"]')).toHaveText(`+${CLEAR}`);
  violations.push(...(await axe(page, 'evals-compare')));
  await compare.scrollIntoViewIfNeeded();
  await screenshot(page, 'evals-3-compare');

  // The saved runs: both listed; model A against B in the first.
  await compare.getByTestId('eval-compare-back').click();
  await pane.getByTestId('evals-tab-runs').click();
  const runs = pane.getByTestId('eval-run-row');
  await expect(runs).toHaveCount(2);
  await runs.last().getByTestId('eval-run-open').click();
  const saved = pane.getByTestId('eval-saved-run');
  await saved.getByTestId('eval-compare-models').click();
  await saved.getByTestId('eval-compare-a').selectOption({ label: `${PROVIDER}/${GOOD}` });
  await saved.getByTestId('eval-compare-b').selectOption({ label: `${PROVIDER}/${WEAK}` });
  await saved.getByTestId('eval-compare-models-go').click();
  await expect(saved.getByTestId('eval-compare-summary')).toContainText('Pass rate 100 % → 0 %');
  await expect(saved.locator('[data-testid="eval-compare-case"][data-change="broke"]')).toHaveCount(1);
  violations.push(...(await axe(page, 'evals-saved-runs')));

  // A run that waits on its model shows what it is asking, and Esc cancels it: what it did not reach is not run.
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  server.fallback(() => ({ kind: 'hold', until: held }));
  await pane.getByTestId('evals-tab-run').click();
  await run.getByTestId('eval-run-again').click();
  await expect(run).toHaveAttribute('data-status', 'running');
  await expect(run.getByTestId('eval-run-now')).toContainText('words of the fox');
  await expect(run.getByTestId('eval-run-status')).toHaveText('Running: 0 of 4 attempts done…');
  violations.push(...(await axe(page, 'evals-running')));
  await page.keyboard.press('Escape');
  await expect(run).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(run).toContainText('Cancelled: the attempts not reached were not run.');
  await expect(run.getByTestId('eval-summary')).toContainText('not run');
  release();

  // The cancelled run is listed with the others; deleting it asks first.
  await pane.getByTestId('evals-tab-runs').click();
  await expect(runs).toHaveCount(3);
  await runs.first().getByTestId('eval-run-delete').click();
  await page.getByTestId('eval-run-delete-confirm').click();
  await expect(runs).toHaveCount(2);

  expect(violations, violations.join('\n')).toEqual([]);
});
