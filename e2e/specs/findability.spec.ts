/**
 * The findability report from the Tools screen, by keyboard: a tool without a description and
 * two tools sharing one are reported, grouped by kind with what to change; a tool of the report
 * opens in the editor; a fixed tool leaves the report when it is saved.
 */
import { AppShell } from '../pages/app-page';
import { expect, screenshot, test } from '../fixtures';
import { rpc } from '../fixtures/host';

const BUNDLE_ID = '019a0000-0000-7000-8000-0000000f1a01';
const BUNDLE_SLUG = 'findability-e2e';

const body = (displayName: string, description: string) => ({
  displayName,
  description,
  tags: ['e2e'],
  type: 'local',
  argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  outputSchema: { type: 'object' },
  local: { functionId: 'text.count' },
  isEnabled: true,
});

test.describe('the findability report', () => {
  test('lists the planted findings by kind, opens a tool in the editor, and drops a finding once the tool is fixed', async ({ appPage: page, host }) => {
    test.skip(!host, 'the spec sets up its bundle through the headless host');
    await rpc(host!, 'bundles.put', { bundleId: BUNDLE_ID, body: { slug: BUNDLE_SLUG, displayName: 'Findability e2e', description: 'Tools planted for the report', isEnabled: true } });
    // A retry finds the tools made by the first try: saved versions are kept as they are.
    const made = await rpc<{ items: { slug: string; version: string }[] }>(host!, 'tools.list', { bundleIds: [BUNDLE_ID], includeDisabled: true, pageSize: 100 });
    const put = async (slug: string, version: string, displayName: string, description: string) => {
      if (!made.items.some((t) => t.slug === slug && t.version === version)) await rpc(host!, 'tools.put', { bundleId: BUNDLE_ID, slug, version, body: body(displayName, description) });
    };
    await put('tool1', '1', 'Tool 1', '');
    await put('send-sms-e2e', '1', 'Send SMS', 'Sends a short text message to a mobile phone number of a customer.');
    await put('send-text-e2e', '1', 'Send text', 'Sends a short text message to a mobile phone number of a customer.');

    const shell = new AppShell(page);
    await shell.open('tools');
    // Opened by keyboard: the report's heading takes the focus.
    await page.getByTestId('findability-open').focus();
    await page.keyboard.press('Enter');
    const report = page.getByTestId('findability-report');
    await expect(report).toBeVisible();
    await expect(report.getByRole('heading', { level: 2, name: 'Findability' })).toBeFocused();
    await expect(report.getByTestId('findability-summary')).toContainText(/\d+ findings? \(\d+ high, \d+ medium, \d+ low\)/);

    const empty = report.locator('[data-testid="findability-group"][data-kind="empty-description"]');
    await expect(empty.getByRole('heading', { level: 3 })).toContainText('No description');
    const tool1 = empty.locator(`[data-testid="finding"][data-tool="${BUNDLE_SLUG}/tool1"]`);
    await expect(tool1).toHaveAttribute('data-severity', 'high');
    await expect(tool1).toContainText('has no description');
    await expect(tool1).toContainText('Suggestion: Write one or two sentences');
    await expect(report.locator(`[data-kind="vague-name"] [data-testid="finding"][data-tool="${BUNDLE_SLUG}/tool1"]`)).toContainText('Rename tool1');

    const pair = report.locator('[data-testid="findability-group"][data-kind="collision"] [data-testid="finding"]', { hasText: `${BUNDLE_SLUG}/send-text-e2e` });
    await expect(pair).toHaveCount(1);
    await expect(pair).toContainText(`${BUNDLE_SLUG}/send-sms-e2e`);
    await expect(pair).toContainText('have the same description');
    await screenshot(page, 'tools-findability');

    // A tool of the report opens in the editor, by keyboard.
    await tool1.getByTestId('finding-open-tool').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('tool-form-slug')).toHaveValue('tool1');

    // Fixed (a new version with a description and a name in words), it leaves the report.
    await put('tool1', '2', 'Word count', 'Counts the words of a text pasted by the user, for a quick check of its length.');
    await page.getByTestId('findability-open').click();
    await expect(report.getByTestId('findability-summary')).toBeVisible();
    await expect(report.locator(`[data-kind="empty-description"] [data-testid="finding"][data-tool="${BUNDLE_SLUG}/tool1"]`)).toHaveCount(0);
    await expect(report.locator(`[data-testid="finding"][data-tool="${BUNDLE_SLUG}/send-sms-e2e"], [data-testid="finding"][data-tool="${BUNDLE_SLUG}/send-text-e2e"]`)).toHaveCount(1);

    // Close: back to the empty editor.
    await report.getByTestId('findability-close').click();
    await expect(page.getByTestId('editor-empty')).toBeVisible();
    expect(shell.consoleErrors).toEqual([]);
  });
});
