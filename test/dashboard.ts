/**
 * The dashboard in a real Chromium against a real Parley: one browser per test file, one context
 * (its own cookies) per person signed in.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS } from './browser.ts';
import { chromiumForTests } from './chromium.ts';
import { startParley, type TestParley } from './helper.ts';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './receiver.ts';
import { STAFF_PASSWORD } from './staff.ts';

export async function launchBrowser(executablePath: string): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A Parley and a Chromium for a test file, started before its tests (when Chromium is there) and
 * closed after them; with `webhooks`, a webhook receiver too, which that Parley may deliver to.
 */
export function dashboardBed(options: { webhooks?: boolean } = {}): { parley: TestParley; browser: Browser; receiver: Receiver } {
  const bed = {} as { parley: TestParley; browser: Browser; receiver: Receiver };
  const executablePath = chromiumForTests();
  beforeAll(async () => {
    if (!executablePath) return;
    if (options.webhooks) bed.receiver = await startReceiver();
    bed.parley = await startParley(options.webhooks ? WEBHOOK_TEST_ENV : {});
    bed.browser = await launchBrowser(executablePath);
  });
  afterAll(async () => {
    await bed.browser?.close();
    await bed.parley?.close();
    await bed.receiver?.close();
  });
  return bed;
}

/**
 * The views of the dashboard past the queue, as [name, address, heading], for a site named "The
 * Harbour Gazette" with a thread and one of its comments to open it on.
 */
export function siteViews(siteId: string, thread: string, commentId: string): Array<[string, string, string]> {
  return [
    ['thread', `/dashboard/thread?site=${siteId}&url=${encodeURIComponent(thread)}&comment=${commentId}`, thread.replace(/^https?:\/\//, '')],
    ['overview', '/dashboard/overview', 'Overview of The Harbour Gazette'],
    ['sites', '/dashboard/sites', 'Sites'],
    ['site-settings', `/dashboard/sites/${siteId}`, 'The Harbour Gazette'],
    ['keys', '/dashboard/keys', 'API keys'],
    ['webhooks', '/dashboard/webhooks', 'Webhooks of The Harbour Gazette'],
    ['reader-sign-in', '/dashboard/reader-sign-in', 'How readers sign in to The Harbour Gazette'],
    ['team', '/dashboard/team', 'Team'],
    ['log', '/dashboard/log', 'Moderation log'],
    ['contests', '/dashboard/contests', 'Contested decisions'],
    ['profile', '/dashboard/profile', 'Your profile'],
  ];
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** A fresh browser profile (no cookies) with the page opened at a dashboard address. */
export async function openDashboard(browser: Browser, parley: TestParley, path = '/dashboard'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: parley.url });
  // A step that cannot happen fails within seconds, naming the step, rather than at the test's time-out.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  // Everything the dashboard loads comes from Parley itself.
  page.on('request', (request) => expect(new URL(request.url()).origin).toBe(parley.url));
  await page.goto(path);
  return { context, page };
}

/** Signs in through the sign-in page and waits for the queue. */
export async function signInThroughPage(page: Page, email: string, password = STAFF_PASSWORD): Promise<void> {
  await page.goto('/dashboard/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
}

export async function signedInDashboard(browser: Browser, parley: TestParley, email: string, path?: string) {
  const opened = await openDashboard(browser, parley, '/dashboard/sign-in');
  await signInThroughPage(opened.page, email);
  if (path) await opened.page.goto(path);
  return opened;
}

/** The queue's cards as the moderator sees them. */
export const cards = (page: Page) => page.locator('article.card');
export const card = (page: Page, text: string) => page.locator('article.card').filter({ hasText: text });

export function artifact(name: string): string {
  return join(ARTIFACTS, name);
}

export const NARROW = { width: 320, height: 640 };

/**
 * What the page logs as an error from now on, a failed request among them ("Failed to load
 * resource: ... 401"), for a test to assert there is none.
 */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** Whether the page scrolls sideways (a box wider than the screen). */
export const scrollsSideways = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth > innerWidth);

/**
 * Screenshots of the page as it is, light and dark, at desktop, phone and 320 px widths, each also
 * checked with axe-core; the viewport is left at desktop width.
 */
export async function shootEverywhere(page: Page, name: string, check: (label: string) => Promise<void>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const [size, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE, narrow: NARROW })) {
      await page.setViewportSize(viewport);
      await check(`${name} ${theme} ${size}`);
      await page.screenshot({ path: artifact(`${name}-${theme}-${size}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}
