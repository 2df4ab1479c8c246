import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, card, DESKTOP, launchBrowser, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';
import { formatMessage } from '../i18n/messages.ts';

const CHROMIUM = chromiumForTests();
const LOCALES = join(import.meta.dirname, 'locales');
/**
 * The dashboard's Arabic, as PARLEY_DASHBOARD_LOCALES serves a translator's file in place of
 * Parley's own: here Parley's file with the queue's title reworded, which shows which one won.
 */
const TEST_ARABIC: Record<string, string> = { ...JSON.parse(readFileSync(join(LOCALES, 'ar.json'), 'utf8')), 'queue.title': 'قائمة الإشراف (تجربة)' };
/** A translation of the dashboard, once translators have written it. */
const GERMAN = join(LOCALES, 'de.json');

let parley: TestParley;
let browser: Browser;
let folder: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  folder = mkdtempSync(join(tmpdir(), 'parley-dashboard-locales-'));
  writeFileSync(join(folder, 'ar.json'), JSON.stringify(TEST_ARABIC));
  parley = await startParley({ PARLEY_DASHBOARD_LOCALES: folder });
  browser = await launchBrowser(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await parley?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function moderatorWithComment() {
  const site = await parley.newSite({ moderation: 'guests' });
  const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  const posted = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'مرحبا، هذا تعليق ينتظر الموافقة', author_name: 'ليلى' } });
  expect(posted.status).toBe(201);
  return moderator;
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;
const root = (page: Page) => page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));

describe.skipIf(!CHROMIUM)('the dashboard in other languages', () => {
  it('speaks the language a staff member picks, fetched once by its version, and mirrors for a right-to-left one', async () => {
    const moderator = await moderatorWithComment();
    const { context, page } = await signedInDashboard(browser, parley, moderator.email, '/dashboard/profile');
    const select = page.getByRole('combobox', { name: /^Language/ });
    await select.waitFor();
    // Every language by its own name, and the browser's.
    expect(await select.locator('option').count()).toBe(42);
    expect(await select.locator('option[value="de"]').textContent()).toBe('Deutsch');
    expect(await select.locator('option[value="ar"]').textContent()).toBe('العربية');
    await select.selectOption('ar');
    const [file] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === '/dashboard/assets/locales/ar.json'),
      page.getByRole('button', { name: 'Save the language' }).click(),
    ]);
    expect(new URL(file.url()).searchParams.get('v')).toMatch(/^[\w-]{12}$/);
    expect(file.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    await page.getByRole('heading', { name: TEST_ARABIC['profile.title'] }).waitFor();
    expect(await root(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await page.getByRole('button', { name: TEST_ARABIC['profile.saveLanguage'] }).waitFor();
    await page.screenshot({ path: artifact('dashboard-profile-rtl-desktop.png'), fullPage: true });

    // Kept with the person: the queue after a reload speaks it too, laid out from the right.
    await page.goto('/dashboard/queue');
    await page.getByRole('heading', { name: TEST_ARABIC['queue.title'] }).waitFor();
    expect(await root(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    const width = DESKTOP.width;
    const [brand, who] = [await box(page, '.top .brand'), await box(page, '.top .who')];
    expect(brand.x + brand.width).toBeGreaterThan(width - 40);
    expect(who.x).toBeLessThan(brand.x);
    const heading = await box(page, '#queue-title');
    expect(heading.x + heading.width).toBeGreaterThan(width / 2);
    await card(page, 'مرحبا').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE], ['narrow', { width: 320, height: 700 }]] as const) {
      await page.setViewportSize(viewport);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name}: no sideways scroll`).toBe(true);
      await page.screenshot({ path: artifact(`dashboard-queue-rtl-${name}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);

    // Back to the browser's language (English here).
    await page.goto('/dashboard/profile');
    await page.getByRole('combobox', { name: TEST_ARABIC['profile.language'] }).selectOption('');
    await page.getByRole('button', { name: TEST_ARABIC['profile.saveLanguage'] }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    expect(await root(page)).toEqual({ lang: 'en', dir: 'ltr' });
    const session = await signInStaff(parley, moderator.email);
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).body).toMatchObject({ language: null });
    await context.close();
  });

  it("shows the sign-in page in the browser's language, before anyone signs in", async () => {
    const context = await browser.newContext({ viewport: PHONE, baseURL: parley.url, locale: 'ar-EG' });
    const page = await context.newPage();
    await page.goto('/dashboard/sign-in');
    await page.getByRole('heading', { name: TEST_ARABIC['auth.signIn.title'] }).waitFor();
    expect(await root(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await context.close();
  });

  it('answers 404 for a language file the server does not have', async () => {
    expect((await parley.request('GET', '/dashboard/assets/locales/xx.json')).status).toBe(404);
    expect((await parley.request('GET', '/dashboard/assets/locales/ar.js')).status).toBe(404);
  });

  it.skipIf(!existsSync(GERMAN))(
    `speaks German from ${GERMAN}, chosen on another device, from its next load on`,
    async () => {
      const german = JSON.parse(readFileSync(GERMAN, 'utf8')) as Record<string, string>;
      const moderator = await moderatorWithComment();
      const { context, page } = await signedInDashboard(browser, parley, moderator.email, '/dashboard/profile');
      // Chosen elsewhere (another device): the dashboard speaks it from its next load on.
      const session = await signInStaff(parley, moderator.email);
      await parley.request('PUT', '/api/auth/me/language', { headers: session.headers, body: { language: 'de' } });
      await page.reload();
      await page.getByRole('heading', { name: formatMessage('de', german['profile.title'], {}) }).waitFor();
      expect(await root(page)).toEqual({ lang: 'de', dir: 'ltr' });
      expect(await page.locator('nav').first().textContent()).toContain(formatMessage('de', german['shell.nav.queue'], {}));
      await context.close();
    },
  );
});

describe.skipIf(!CHROMIUM)('the queue in English', () => {
  it('is drawn in light and dark, on a desktop and a phone', async () => {
    const moderator = await moderatorWithComment();
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await card(page, 'مرحبا').waitFor();
    for (const [theme, size, viewport] of [['light', 'desktop', DESKTOP], ['dark', 'desktop', DESKTOP], ['light', 'phone', PHONE]] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${theme} ${size}`).toEqual([]);
      await page.screenshot({ path: artifact(`dashboard-queue-english-${theme}-${size}.png`), fullPage: true });
    }
    await context.close();
  });
});
