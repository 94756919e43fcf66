/**
 * The core task, counted: make an HTTP tool from a curl command, test it, use it in a chat —
 * as a new user does it in a fresh data folder that has one model provider (the scripted
 * OpenAI-compatible server, already the default model). Walked twice, once by mouse (the
 * fewest clicks a person finds from what the screens show) and once by keyboard alone (the
 * fewest keys): open Tools, make a bundle for the tool, paste a curl command for a local
 * endpoint (its host is allowed by the import's own check box), create the tool, fill its
 * argument in the tester and run it, then in the chat run it from the `+` palette and ask the
 * model a question it answers by calling the tool.
 *
 * Every action goes through a counter. The counting rule: a click is one click; a key press
 * (each Tab, Enter, arrow, or shortcut such as Ctrl+K) is one key; typing or pasting a text
 * into a field is one key whatever its length. The mouse walk uses the keyboard only to type
 * texts; scrolling is not counted. Each walk asserts that the task succeeded at each stage and
 * that its counts are at most the figures below, so a change that adds a step fails here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from '@playwright/test';
import { startScriptedModelServer, type ScriptedModelServer } from '../../electron/core/testing/scripted-model-server';
import { rpc, startHost, type RunningHost } from '../fixtures/host';
import { callTool, lastToolResult } from '../fixtures/model-steps';
import { expect, screenshot, test } from '../fixtures';

/** The most each walk may take (measured; lower them when a step goes away). */
const MOUSE_BUDGET = { clicks: 13, keys: 6 };
const KEYBOARD_BUDGET = { clicks: 0, keys: 32 };

const MODEL = 'core-task-model';

/** Counts what a person does: clicks, key presses, and texts typed into fields. */
class Counted {
  clicks = 0;
  presses = 0;
  typed = 0;
  readonly steps: string[] = [];

  constructor(readonly page: Page) {}

  /** Keys by the counting rule: each press, and each text typed into a field. */
  get keys(): number {
    return this.presses + this.typed;
  }

  async click(target: Locator, what: string): Promise<void> {
    this.clicks++;
    this.steps.push(`click ${what}`);
    await target.click();
  }

  async press(key: string, what: string): Promise<void> {
    this.presses++;
    this.steps.push(`${key} ${what}`);
    await this.page.keyboard.press(key);
  }

  /** Types a text key by key into the focused field (one key by the rule). */
  async type(text: string, what: string): Promise<void> {
    this.typed++;
    this.steps.push(`type ${JSON.stringify(text)} ${what}`);
    await this.page.keyboard.type(text);
  }

  /** Pastes a text into the focused field (one key by the rule). */
  async paste(text: string, what: string): Promise<void> {
    this.typed++;
    this.steps.push(`paste ${what}`);
    await this.page.keyboard.insertText(text);
  }

  /** Tab (or Shift+Tab) until the focus is on `selector`, each press counted; fails after `max`. */
  async tabTo(selector: string, what: string, opts: { back?: boolean; max?: number } = {}): Promise<void> {
    const key = opts.back ? 'Shift+Tab' : 'Tab';
    let n = 0;
    while (!(await this.focusMatches(selector))) {
      if (n === (opts.max ?? 60)) throw new Error(`${key} never reached ${what} (${selector}) in ${n} presses`);
      await this.page.keyboard.press(key);
      n++;
    }
    this.presses += n;
    this.steps.push(`${key} ×${n} to ${what}`);
  }

  focusMatches(selector: string): Promise<boolean> {
    return this.page.evaluate((sel) => {
      const el = (globalThis as unknown as { document: { activeElement: { matches(s: string): boolean } | null } }).document.activeElement;
      return !!el && el.matches(sel);
    }, selector);
  }

  summary(): string {
    return `${this.clicks} clicks, ${this.keys} keys (${this.presses} presses, ${this.typed} fields typed)\n  ${this.steps.join('\n  ')}`;
  }
}

/** A weather API on 127.0.0.1 that answers the city it was asked for. */
async function startWeatherApi(): Promise<{ port: number; cities: string[]; close(): void }> {
  const cities: string[] = [];
  const server = http.createServer((req, res) => {
    const city = new URL(req.url ?? '/', 'http://local').searchParams.get('city') ?? '';
    cities.push(city);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ city, tempC: city.length + 10, sky: 'clear' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, cities, close: () => server.close() };
}

interface Setting {
  host: RunningHost;
  page: Page;
  close(): Promise<void>;
}

/** A fresh data folder with one provider, made the default model as adding it in Settings does; a page signed in to it. */
async function freshApp(browser: Browser, model: ScriptedModelServer): Promise<Setting> {
  const host = await startHost();
  try {
    const provider = await rpc<{ id: string }>(host, 'providers.save', { provider: { name: 'Scripted', kind: 'openai-compatible', baseUrl: model.url, apiKey: 'sk-core-task-0123456789' } });
    await rpc(host, 'providers.test', { id: provider.id });
    await rpc(host, 'settings.set', { defaultModel: { providerId: provider.id, model: MODEL } });
  } catch (e) {
    await host.stop();
    throw e;
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  const close = async () => {
    await context.close();
    await host.stop();
  };
  try {
    await page.goto(await host.loginUrl());
    await page.waitForSelector('html[data-ready="true"]');
  } catch (e) {
    await close();
    throw e;
  }
  return { host, page, close };
}

/** The model calls the weather tool for Bergen, then answers from its result. */
function scriptModelCall(model: ScriptedModelServer, seen: { result: string }): void {
  model.fallback(
    callTool({
      name: 'get-weather',
      args: { city: 'Bergen' },
      search: 'weather of a city',
      then: (r) => {
        seen.result = lastToolResult(r);
        return { kind: 'text', text: 'It is clear in Bergen.' };
      },
    }),
  );
}

test.describe('the core task, counted', () => {
  let model: ScriptedModelServer;
  test.beforeAll(async () => {
    model = await startScriptedModelServer();
    model.setModels([MODEL]);
  });
  test.afterAll(async () => {
    await model.close();
  });

  test('by mouse', async ({ browser }, testInfo) => {
    test.skip(testInfo.project.name !== 'web', 'each walk starts its own headless host on a fresh data folder');
    test.setTimeout(120_000);
    const api = await startWeatherApi();
    const app = await freshApp(browser, model).catch((e: unknown) => {
      api.close();
      throw e;
    });
    const { page } = app;
    const u = new Counted(page);
    try {
      // Tools, and a bundle for the new tool (the fresh data folder has only built-in ones).
      await u.click(page.getByTestId('nav-tools'), 'Tools');
      await u.click(page.getByTestId('new-bundle'), 'New bundle');
      await expect(page.getByTestId('bundle-form-slug')).toBeFocused();
      await u.type('weather', 'into Slug');
      await u.click(page.getByTestId('bundle-form-name'), 'Display name');
      await u.type('Weather', 'into Display name');
      await u.click(page.getByTestId('bundle-form-save'), 'Create bundle');
      await expect(page.getByTestId('bundle-weather').locator('button.bundle-item')).toHaveAttribute('aria-current', 'true');
      await screenshot(page, 'core-task-mouse-1-bundle');

      // The curl command, previewed; its host is allowed by the import's check box, left checked.
      await u.click(page.getByTestId('curl-input'), 'the curl field');
      await u.paste(`curl 'http://127.0.0.1:${api.port}/weather?city=Oslo'`, 'the curl command');
      await u.click(page.getByTestId('curl-preview'), 'Preview');
      await expect(page.getByTestId('curl-add-hosts')).toBeChecked();
      await page.getByTestId('curl-proposal').scrollIntoViewIfNeeded();
      await screenshot(page, 'core-task-mouse-2-preview');
      await u.click(page.getByTestId('curl-create'), 'Create tool');
      await expect(page.getByTestId('curl-created')).toContainText('get-weather');
      await expect(page.getByTestId('tool-list').getByTestId('tool-get-weather')).toBeVisible();
      expect((await rpc<{ allowedHosts: string[] }>(app.host, 'settings.get', {})).allowedHosts).toContain(`127.0.0.1:${api.port}`);

      // The tester beside it, the focus in its argument with the command's value selected: a city of the user's own, Run.
      const city = page.getByTestId('arg-city');
      await expect(city).toBeFocused();
      await expect(city).toHaveValue('Oslo');
      await screenshot(page, 'core-task-mouse-3-created');
      await u.type('Tromsø', 'over the selected city');
      await expect(city).toHaveValue('Tromsø');
      await u.click(page.getByTestId('tester-run'), 'Run');
      await expect(page.getByTestId('tester-result')).toContainText('Tromsø');
      await screenshot(page, 'core-task-mouse-4-tester');

      // The chat: the tool from the + palette, run with its arguments as they stand.
      await u.click(page.getByTestId('nav-chat'), 'Chat');
      const composer = page.getByTestId('chat-composer');
      await u.click(composer, 'the message field');
      await u.type('+weather', 'into the message field');
      const palette = page.getByTestId('palette');
      await u.click(palette.getByTestId('palette-item-get-weather'), 'the tool in the palette');
      await expect(palette.getByTestId('arg-city')).toHaveValue('Oslo');
      await screenshot(page, 'core-task-mouse-5-palette-form');
      await u.click(palette.getByTestId('palette-run'), 'Run');
      const paletteCard = page.getByTestId('tool-card').last();
      await expect(paletteCard).toContainText('Oslo');
      await screenshot(page, 'core-task-mouse-6-palette-card');

      // One message: the model calls the tool and answers from its result.
      const seen = { result: '' };
      scriptModelCall(model, seen);
      // The message field kept the focus through the run: no click to come back to it.
      await expect(composer).toBeFocused();
      await u.type('What is the weather in Bergen?', 'into the message field');
      await u.click(page.getByTestId('chat-send'), 'Send');
      await expect(page.getByTestId('message-list')).toContainText('It is clear in Bergen.');
      const modelCard = page.getByTestId('tool-card').filter({ hasText: 'Bergen' }).last();
      await expect(modelCard).toBeVisible();
      expect(seen.result).toContain('Bergen');
      expect(api.cities).toEqual(['Tromsø', 'Oslo', 'Bergen']);
      await screenshot(page, 'core-task-mouse-7-model-call');
    } finally {
      await testInfo.attach('steps by mouse', { body: u.summary(), contentType: 'text/plain' });
      console.log(`by mouse: ${u.summary()}`);
      await app.close();
      api.close();
    }
    expect(u.clicks, `more clicks than measured; the walk was ${u.summary()}`).toBeLessThanOrEqual(MOUSE_BUDGET.clicks);
    expect(u.keys, `more keys than measured; the walk was ${u.summary()}`).toBeLessThanOrEqual(MOUSE_BUDGET.keys);
  });

  test('by keyboard', async ({ browser }, testInfo) => {
    test.skip(testInfo.project.name !== 'web', 'each walk starts its own headless host on a fresh data folder');
    test.setTimeout(120_000);
    const api = await startWeatherApi();
    const app = await freshApp(browser, model).catch((e: unknown) => {
      api.close();
      throw e;
    });
    const { page } = app;
    const u = new Counted(page);
    try {
      // Tools, and a bundle: Enter on New bundle puts the focus in its slug; Enter in a field creates it.
      await u.press('Alt+2', 'opens Tools');
      await page.getByTestId('screen-tools').waitFor();
      await u.tabTo('[data-testid="new-bundle"]', 'New bundle');
      await u.press('Enter', 'on New bundle');
      await expect(page.getByTestId('bundle-form-slug')).toBeFocused();
      await u.type('weather', 'into Slug');
      await u.press('Tab', 'to Display name');
      await u.type('Weather', 'into Display name');
      await u.press('Enter', 'creates the bundle');
      await expect(page.getByTestId('bundle-weather').locator('button.bundle-item')).toHaveAttribute('aria-current', 'true');
      await screenshot(page, 'core-task-keyboard-1-bundle');

      // The curl command: Ctrl+Enter previews; Create tool.
      await u.tabTo('[data-testid="curl-input"]', 'the curl field');
      await u.paste(`curl 'http://127.0.0.1:${api.port}/weather?city=Oslo'`, 'the curl command');
      await u.press('ControlOrMeta+Enter', 'previews');
      await expect(page.getByTestId('curl-add-hosts')).toBeChecked();
      await u.tabTo('[data-testid="curl-create"]', 'Create tool');
      await screenshot(page, 'core-task-keyboard-2-preview');
      await u.press('Enter', 'on Create tool');
      await expect(page.getByTestId('curl-created')).toContainText('get-weather');
      expect((await rpc<{ allowedHosts: string[] }>(app.host, 'settings.get', {})).allowedHosts).toContain(`127.0.0.1:${api.port}`);

      // The tester: the focus is in its argument, the command's value selected; a city of the user's own, Enter runs.
      await expect(page.getByTestId('arg-city')).toBeFocused();
      await u.type('Tromsø', 'over the selected city');
      await expect(page.getByTestId('arg-city')).toHaveValue('Tromsø');
      await u.press('Enter', 'runs');
      await expect(page.getByTestId('tester-result')).toContainText('Tromsø');
      await screenshot(page, 'core-task-keyboard-3-tester');

      // The chat: Ctrl+K opens the palette, Enter picks the tool, Enter runs it.
      await u.press('Alt+1', 'opens Chat');
      await page.getByTestId('screen-chat').waitFor();
      await u.press('ControlOrMeta+K', 'opens the palette');
      await u.type('weather', 'into the palette');
      const palette = page.getByTestId('palette');
      await expect(palette.getByTestId('palette-item-get-weather')).toBeVisible();
      await u.press('Enter', 'picks the tool');
      await expect(palette.getByTestId('arg-city')).toBeFocused();
      await expect(palette.getByTestId('arg-city')).toHaveValue('Oslo');
      await u.press('Enter', 'runs it');
      const paletteCard = page.getByTestId('tool-card').last();
      await expect(paletteCard).toContainText('Oslo');
      await expect(page.getByTestId('chat-composer')).toBeFocused();
      await screenshot(page, 'core-task-keyboard-4-palette');

      // One message: the model calls the tool and answers from its result.
      const seen = { result: '' };
      scriptModelCall(model, seen);
      await u.type('What is the weather in Bergen?', 'into the message field');
      await u.press('Enter', 'sends');
      await expect(page.getByTestId('message-list')).toContainText('It is clear in Bergen.');
      await expect(page.getByTestId('tool-card').filter({ hasText: 'Bergen' }).last()).toBeVisible();
      expect(seen.result).toContain('Bergen');
      expect(api.cities).toEqual(['Tromsø', 'Oslo', 'Bergen']);
      await screenshot(page, 'core-task-keyboard-5-model-call');
    } finally {
      await testInfo.attach('steps by keyboard', { body: u.summary(), contentType: 'text/plain' });
      console.log(`by keyboard: ${u.summary()}`);
      await app.close();
      api.close();
    }
    expect(u.clicks).toBe(KEYBOARD_BUDGET.clicks);
    expect(u.keys, `more keys than measured; the walk was ${u.summary()}`).toBeLessThanOrEqual(KEYBOARD_BUDGET.keys);
  });
});
