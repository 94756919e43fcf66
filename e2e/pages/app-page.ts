import { expect, type Page } from '@playwright/test';

/** The shell as a user sees it: the sidebar and the four screens. */
export class AppShell {
  readonly consoleErrors: string[] = [];

  constructor(readonly page: Page) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => this.consoleErrors.push(e.message));
  }

  async open(screen: 'chat' | 'tools' | 'inspect' | 'settings'): Promise<void> {
    await this.page.getByTestId(`nav-${screen}`).click();
    await this.page.getByTestId(`screen-${screen}`).waitFor();
  }

  theme(): Promise<string | null> {
    return this.page.locator('html').getAttribute('data-theme');
  }

  /** What has the keyboard focus, described for a message: its tag, test id, role and name. */
  focused(): Promise<string> {
    return this.page.evaluate(() => {
      const el = (globalThis as unknown as { document: { activeElement: FocusedLike | null } }).document.activeElement;
      if (!el) return '(nothing)';
      const owner = el.closest('[data-testid]');
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40);
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}[${el.getAttribute('data-testid') ?? `in ${owner?.getAttribute('data-testid') ?? '-'}`}]${el.getAttribute('role') ? ` role=${el.getAttribute('role')}` : ''} "${name}"`;
    });
  }

  /** True when the focused element matches the CSS selector. */
  focusMatches(selector: string): Promise<boolean> {
    return this.page.evaluate((sel) => {
      const el = (globalThis as unknown as { document: { activeElement: FocusedLike | null } }).document.activeElement;
      return !!el && el.matches(sel);
    }, selector);
  }

  /**
   * Moves the focus with Tab (or Shift+Tab) until it is on an element matching `selector`,
   * as a keyboard user would; fails naming every stop on the way when it is not reached
   * within `max` presses.
   */
  async tabTo(selector: string, opts: { back?: boolean; max?: number } = {}): Promise<void> {
    const key = opts.back ? 'Shift+Tab' : 'Tab';
    const stops: string[] = [];
    for (let i = 0; i < (opts.max ?? 80); i++) {
      if (await this.focusMatches(selector)) return;
      await this.page.keyboard.press(key);
      stops.push(await this.focused());
    }
    if (await this.focusMatches(selector)) return;
    throw new Error(`${key} never reached ${selector}; the focus went:\n  ${stops.join('\n  ')}`);
  }

  /** Tab to the element with this test id. */
  tabToTestId(testId: string, opts: { back?: boolean; max?: number } = {}): Promise<void> {
    return this.tabTo(`[data-testid="${testId}"]`, opts);
  }

  /**
   * Settings → Models: adds an OpenAI-compatible provider. The data folder is shared by every spec
   * of a worker (and by a retry), so the name gets a suffix no other provider has; returns it.
   * Leaves the Settings screen open.
   */
  async addProvider(opts: { name: string; url: string; apiKey?: string }): Promise<string> {
    const name = `${opts.name} ${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
    await this.open('settings');
    await this.page.getByTestId('provider-add').click();
    await this.page.getByTestId('provider-form-name').fill(name);
    await this.page.getByTestId('provider-form-kind').selectOption('openai-compatible');
    await this.page.getByTestId('provider-form-url').fill(opts.url);
    if (opts.apiKey) await this.page.getByTestId('provider-form-key').fill(opts.apiKey);
    await this.page.getByTestId('provider-form-save').click();
    await this.page.getByTestId('provider-item').filter({ hasText: name }).waitFor();
    return name;
  }

  /**
   * Picks a model in the chat's model picker by its provider's name and the model's: another
   * provider in the data folder may list a model of the same name (its server long gone).
   */
  async pickModel(provider: string, model: string): Promise<void> {
    const picker = this.page.getByTestId('model-picker');
    const option = picker.locator(`optgroup[label=${JSON.stringify(provider)}] > option`).filter({ hasText: new RegExp(`^${escapeRegExp(model)}$`) });
    await option.waitFor({ state: 'attached' });
    const value = await option.getAttribute('value');
    if (!value) throw new Error(`the model picker has no value for ${model} of ${provider}`);
    await picker.selectOption({ value });
    // Chosen once the conversation has it (the picker shows the conversation's model, and is busy while it saves):
    // a message sent before that would go to no model.
    await expect(picker).toBeEnabled();
    await expect(picker).toHaveValue(value);
  }

  /** Replaces the text of the focused input or textarea from the keyboard: select all, then type. */
  async retype(text: string): Promise<void> {
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.type(text);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The part of a DOM element the focus helpers read (this file compiles without the DOM library). */
interface FocusedLike {
  tagName: string;
  id: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  closest(selector: string): FocusedLike | null;
  matches(selector: string): boolean;
}
