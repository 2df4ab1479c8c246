import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { formatMessage } from '../i18n/messages.ts';
import ENGLISH from './locales/en.json' with { type: 'json' };

/**
 * Which language the widget speaks, and how it gets its words: in a real Chromium, on pages of
 * another origin. The words expected are read from the locale files themselves, so the tests hold
 * whatever the translations say; a test whose language has no file yet is skipped, saying so.
 */

const CHROMIUM = chromiumForTests();

/** A locale's widget messages as its file has them; null while it has none. */
function messagesOf(locale: string): Record<string, string> | null {
  const file = `src/widget/locales/${locale}.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : null;
}
const GERMAN = messagesOf('de');
const ARABIC = messagesOf('ar');
const noGerman = !GERMAN;
const noArabic = !ARABIC;
for (const [missing, locale] of [[noGerman, 'de'], [noArabic, 'ar']] as const) {
  if (missing) console.warn(`src/widget/locales/${locale}.json is not written yet: the tests that speak it are skipped`);
}

let parley: TestParley;
let pages: Server;
let pageOrigin: string;
let browser: Browser;
/** A site with no language of its own; one whose language is German, with words of its own. */
let plain: { site_id: string; api_key: string };
let german: { site_id: string; api_key: string };
const OWN_EMPTY = 'Noch ist hier nichts: schreiben Sie den ersten Kommentar!';

/** `/page?html=<lang>&lang=<attribute>&site=<id>&thread=<path>`: the page's `<html lang>` only where given. */
function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    const html = url.searchParams.get('html');
    const lang = url.searchParams.get('lang');
    const theme = url.searchParams.get('theme');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html${html ? ` lang="${escapeHtml(html)}"` : ''}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>An article</title>
<style>body{margin:0;padding:16px 24px}${theme === 'dark' ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>An article</h1>
<parley-comments site-id="${escapeHtml(url.searchParams.get('site') ?? plain.site_id)}" thread-url="${pageOrigin}${escapeHtml(url.searchParams.get('thread') ?? '/')}"${lang ? ` lang="${escapeHtml(lang)}"` : ''}${theme ? ` theme="${escapeHtml(theme)}"` : ''}></parley-comments>
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  parley = await startParley();
  pages = await servePages();
  const pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  plain = await parley.newSite({ domains: [pageHost] });
  german = await parley.newSite({ domains: [pageHost] });
  const patched = await parley.request('PATCH', `/api/sites/${german.site_id}`, { token: german.api_key, body: { language: 'de', strings: { de: { empty: OWN_EMPTY } } } });
  expect(patched.status).toBe(200);
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
});

let threads = 0;
/** Each page's own context, closed after its test. */
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

interface Opened {
  page: Page;
  /** The locale files the page asked for, by name. */
  localeFiles: string[];
  /** The Accept-Language of each API call (the live stream's EventSource sends the browser's own). */
  languages: Set<string | undefined>;
}

/**
 * Opens a page in a fresh context (nothing cached: every file it needs is requested) and waits for
 * the widget's first page of comments. The first text the widget draws is kept in `__firstDrawn`.
 */
async function open(params: Record<string, string>, viewport = { width: 760, height: 800 }): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  const localeFiles: string[] = [];
  const languages = new Set<string | undefined>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/embed/locales/')) localeFiles.push(url.pathname.split('/').pop()!);
    if (url.pathname.startsWith('/v1/') && url.pathname !== '/v1/comments/stream') languages.add(request.headers()['accept-language']);
  });
  await page.addInitScript(() => {
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) {
      const root = attach.call(this, init);
      new MutationObserver((_, observer) => {
        const section = root.querySelector('section');
        if (!section) return;
        (window as unknown as { __firstDrawn: string }).__firstDrawn = section.innerText;
        observer.disconnect();
      }).observe(root, { childList: true });
      return root;
    };
  });
  await page.goto(`${pageOrigin}/page?${new URLSearchParams({ thread: `/thread-${++threads}`, ...params })}`);
  await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
  return { page, localeFiles, languages };
}

const frame = (page: Page) => page.locator('parley-comments section');

describe.skipIf(!CHROMIUM)('the widget’s language', () => {
  it.skipIf(noGerman)("speaks its lang attribute's language over the page's, fetching that one file alone, and says it on every call", async () => {
    const { page, localeFiles, languages } = await open({ html: 'ar', lang: 'de-DE' });
    expect(await page.locator('parley-comments h2').textContent()).toBe(GERMAN!.heading);
    expect(await page.getByRole('button', { name: GERMAN!.post }).count()).toBe(1);
    expect([await frame(page).getAttribute('lang'), await frame(page).getAttribute('dir')]).toEqual(['de', 'ltr']);
    expect(localeFiles).toEqual(['de.json']);
    expect([...languages]).toEqual(['de']);
    // Drawn in German from the first: no English word showed before.
    const first = await page.evaluate(() => (window as unknown as { __firstDrawn: string }).__firstDrawn);
    expect(first).toContain(GERMAN!.heading);
    expect(first).not.toContain(ENGLISH.sortBy);
  });

  it.skipIf(noGerman)("speaks the page's language, and the page's where the attribute names one Parley does not speak", async () => {
    for (const params of [{ html: 'de-AT' }, { html: 'de', lang: 'tlh' }] as Array<Record<string, string>>) {
      const { page, localeFiles } = await open(params);
      expect(await page.locator('parley-comments h2').textContent(), JSON.stringify(params)).toBe(GERMAN!.heading);
      expect(await frame(page).getAttribute('lang')).toBe('de');
      expect(localeFiles).toEqual(['de.json']);
      }
  });

  it.skipIf(noGerman)("speaks the site's language where neither the element nor the page names one, with the site's own words over the file's", async () => {
    const { page, localeFiles, languages } = await open({ site: german.site_id });
    expect(await page.locator('parley-comments h2').textContent()).toBe(GERMAN!.heading);
    expect(await page.getByText(OWN_EMPTY).count()).toBe(1);
    expect(localeFiles).toEqual(['de.json']);
    // The settings were asked for before the language was known; every call after says it.
    languages.clear();
    await page.locator('parley-comments select').selectOption('oldest');
    await expect.poll(() => [...languages]).toEqual(['de']);
  });

  it('speaks English without fetching any file where nothing names a language', async () => {
    const { page, localeFiles } = await open({});
    expect(await page.locator('parley-comments h2').textContent()).toBe(ENGLISH.heading);
    expect(await frame(page).getAttribute('lang')).toBe('en');
    expect(localeFiles).toEqual([]);
  });

  it('stays in English, working, when its locale file cannot be had', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.route('**/embed/locales/**', (route) => route.abort());
    await page.goto(`${pageOrigin}/page?${new URLSearchParams({ thread: `/thread-${++threads}`, lang: 'de' })}`);
    await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
    expect(await page.locator('parley-comments h2').textContent()).toBe(ENGLISH.heading);
    expect(await page.getByRole('button', { name: ENGLISH.post }).count()).toBe(1);
  });

  it('announces new live comments politely, never moving the focus', async () => {
    const thread = `/thread-${++threads}`;
    const { page } = await open({ html: 'en', thread });
    const field = page.getByLabel(ENGLISH.write);
    await field.focus();
    await field.pressSequentially('Half a thought');
    const region = page.locator('parley-comments [aria-live=polite]');
    expect(await region.textContent()).toBe('');
    const posted = await parley.request('POST', '/v1/comments', { token: plain.api_key, body: { site_id: plain.site_id, thread_url: pageOrigin + thread, content: 'Arrived live' } });
    expect(posted.status).toBe(201);
    await expect.poll(() => region.textContent(), { timeout: 10_000 }).toBe(formatMessage('en', ENGLISH.liveAnnounce, { count: 1 }));
    expect(await page.getByRole('button', { name: formatMessage('en', ENGLISH.newComments, { count: 1 }) }).count()).toBe(1);
    expect(await page.evaluate(() => document.querySelector('parley-comments')!.shadowRoot!.activeElement?.tagName)).toBe('TEXTAREA');
    expect(await field.inputValue()).toBe('Half a thought');
  });

  const SHOWN = ['de', 'ja', 'ar', 'ru'].filter((locale) => messagesOf(locale));
  it.skipIf(!CHROMIUM || SHOWN.length === 0)('draws a thread in German, Japanese, Arabic and Russian, light and dark, with no serious axe violation (screenshots)', async () => {
    const thread = `/thread-${++threads}`;
    const post = (body: object) => parley.request('POST', '/v1/comments', { token: plain.api_key, body: { site_id: plain.site_id, thread_url: pageOrigin + thread, ...body } });
    const first = await post({ content: 'Great article: the **second** part answered my question.', author_name: 'Ada Lovelace' });
    await post({ content: 'Thanks! There is more in the follow-up.', author_name: 'Grace Hopper', parent_id: first.body.id });
    await post({ content: 'Has anyone tried this with `PostgreSQL`?', author_name: 'Linus' });
    for (const locale of SHOWN) {
      for (const theme of ['light', 'dark'] as const) {
        const { page } = await open({ html: locale, thread, theme }, { width: 760, height: 900 });
        expect(await page.locator('parley-comments h2').textContent()).toBe(messagesOf(locale)!.heading);
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: join(ARTIFACTS, `widget-${locale}-${theme}.png`), fullPage: true });
      }
    }
  });

  it.skipIf(noArabic)('mirrors for Arabic: right to left, the post button at the inline start, names isolated (screenshots: light, dark, phone)', async () => {
    const thread = `/thread-${++threads}`;
    const seeded = await parley.request('POST', '/v1/comments', { token: plain.api_key, body: { site_id: plain.site_id, thread_url: pageOrigin + thread, content: 'A comment in English', author_name: 'Ada Lovelace' } });
    await parley.request('POST', '/v1/comments', { token: plain.api_key, body: { site_id: plain.site_id, thread_url: pageOrigin + thread, content: 'رد بالعربية', author_name: 'سارة', parent_id: seeded.body.id } });
    for (const [theme, width] of [['light', 760], ['dark', 760], ['light', 390]] as const) {
      const { page } = await open({ html: 'ar', thread, theme }, { width, height: 900 });
      expect([await frame(page).getAttribute('lang'), await frame(page).getAttribute('dir')]).toEqual(['ar', 'rtl']);
      expect(await page.locator('parley-comments h2').textContent()).toBe(ARABIC!.heading);
      // The post button starts where the form does: at its right edge.
      const form = (await page.locator('parley-comments form').first().boundingBox())!;
      const post = (await page.getByRole('button', { name: ARABIC!.post }).boundingBox())!;
      expect(Math.abs(form.x + form.width - (post.x + post.width))).toBeLessThan(2);
      // Replies hang from the right.
      const replies = page.locator('parley-comments .replies').first();
      expect(await replies.evaluate((element) => getComputedStyle(element).borderRightWidth)).toBe('2px');
      expect(await page.locator('parley-comments bdi.author').first().textContent()).toBe('Ada Lovelace');
      expect(await page.locator('parley-comments .text').first().getAttribute('dir')).toBe('auto');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `widget-ar-${theme}-${width}.png`), fullPage: true });
      }
  });
});
