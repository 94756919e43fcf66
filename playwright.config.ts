import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './e2e/fixtures/chromium';

const executablePath = findChromium() ?? undefined;

export default defineConfig({
  testDir: 'e2e/specs',
  // Builds better-sqlite3 for Electron where an Electron binary exists (the electron project).
  globalSetup: './e2e/fixtures/electron-setup.ts',
  outputDir: '.test-results/playwright',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // One retry, in a fresh worker: a test that fails on a busy machine and then passes is
  // reported as flaky, by name, in npm test's summary; a test that fails twice fails.
  retries: 1,
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '.test-results/e2e.json' }]],
  use: {
    headless: true,
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'web' },
    { name: 'electron' },
  ],
});
