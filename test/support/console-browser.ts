import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (no browser download). The flags keep it from reaching for a
 * network that is not there (updates, sync, QUIC probes), which otherwise slows every page down; each run
 * gets a fresh profile, removed on close.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_MISSING = `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium; .ci/run does) to run the console's browser tests`;
export const SCREENSHOT_DIR = join('test-results', 'console');

export interface ConsoleBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Script errors and console errors of the page (a CSP violation is one), except failed HTTP answers. */
  readonly errors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openConsoleBrowser(): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1366, height: 860 },
    acceptDownloads: true,
    timezoneId: 'UTC',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // a 401 or 403 the page asked for is logged by Chromium as a failed resource: those are expected
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    errors,
    async screenshot(name) {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const chromiumInstalled = () => existsSync(CHROMIUM_PATH);

/** Opens the console and signs in with the test admin token; resolves on the overview, the first page. */
export async function signInToConsole(browser: ConsoleBrowser, gatewayUrl: string, adminToken: string): Promise<void> {
  await browser.page.goto(`${gatewayUrl}/console`);
  await browser.page.getByLabel('Admin token').fill(adminToken);
  await browser.page.getByRole('button', { name: 'Sign in' }).click();
  await browser.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}
