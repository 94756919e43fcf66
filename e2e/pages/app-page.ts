import type { Page } from '@playwright/test';

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
}
