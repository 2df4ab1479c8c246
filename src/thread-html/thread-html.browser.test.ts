import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';

/**
 * The thread's HTML on a customer's page, as the customer's server includes it: fetched from Parley
 * for each request, with the page's parley_* parameters passed on. Read and used without JavaScript,
 * then taken over by the widget.
 */
const CHROMIUM = chromiumForTests();
const SHOTS = '/work/wt/shots/html';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageOrigin: string;
let browser: Browser;

function servePages(): Promise<Server> {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (!url.pathname.startsWith('/thread/')) return void response.writeHead(404).end();
    const query = new URLSearchParams({ site_id: site.site_id, thread_url: pageOrigin + url.pathname });
    for (const [name, value] of url.searchParams) if (name.startsWith('parley_')) query.set(name.slice('parley_'.length), value);
    const fragment = await (await fetch(`${parley.url}/v1/comments/html?${query}`, { headers: { 'accept-language': request.headers['accept-language'] ?? '' } })).text();
    const dark = url.searchParams.get('theme') === 'dark';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A customer's article</title>
<style>body{margin:0;padding:16px 24px;font-family:serif}${dark ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>An article worth discussing</h1>
${dark ? fragment.replace('<parley-comments ', '<parley-comments theme="dark" ') : fragment}
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) => probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  }));
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  // The form posts to Parley's public URL, so Parley is started on a port known beforehand.
  const port = await freePort();
  parley = await startParley({ PORT: String(port), PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  pages = await servePages();
  const pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  site = await parley.newSite({ domains: [pageHost], allowGuests: true });
  // A reader takes a second at least; the default minimum (2 s) would only slow the test down.
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { min_submit_seconds: 1 } } })).status).toBe(200);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
});

let counter = 0;
async function seededThread(): Promise<string> {
  const thread = `/thread/${Date.now()}-${++counter}`;
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  // Each thread's texts are its own: the same text again from the same author is held as a duplicate.
  const post = async (content: string, parent_id?: string) => {
    const posted = await parley.request('POST', '/v1/comments', { token: alice, body: { site_id: site.site_id, thread_url: pageOrigin + thread, content: `${content} (${counter})`, parent_id } });
    expect(posted.body.status).toBe('published');
    return posted.body.id as string;
  };
  const first = await post('The first comment, **with** some words in it.');
  await post('A reply to the first.', first);
  await post('A second thread of its own.');
  return thread;
}

const inShadow = (page: Page, selector: string) => page.locator(`parley-comments ${selector}`);

async function shoot(context: BrowserContext, thread: string, name: string, query = '') {
  for (const [suffix, width, dark] of [['light', 760, false], ['dark', 760, true], ['390', 390, false]] as const) {
    const page = await context.newPage();
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${pageOrigin}${thread}?${dark ? 'theme=dark&' : ''}${query}`);
    if (name === 'taken-over') await page.waitForFunction(() => typeof (document.querySelector('parley-comments') as unknown as { renderTime?: number | null }).renderTime === 'number');
    await page.screenshot({ path: `${SHOTS}/${name}-${suffix}.png`, fullPage: true });
    await page.close();
  }
}

/**
 * axe-core runs as a script, which a context without JavaScript does not run: the same page is
 * checked in a context with scripts, embed.js blocked (the markup is the same but for the sort's
 * noscript button).
 */
async function violationsWithoutWidget(url: string) {
  const context = await browser.newContext({ viewport: { width: 760, height: 900 } });
  const page = await context.newPage();
  await page.route('**/embed.js', (route) => route.abort());
  await page.goto(url);
  const violations = await seriousViolations(page);
  await context.close();
  return violations;
}

describe.skipIf(!CHROMIUM)('the thread without JavaScript', () => {
  it('is read, commented on and replied to, each post landing on the new comment', async () => {
    const thread = await seededThread();
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 760, height: 900 } });
    const page = await context.newPage();
    await page.goto(pageOrigin + thread);
    await expect.poll(() => inShadow(page, 'article').count()).toBe(3);
    expect(await inShadow(page, 'article .text').first().textContent()).toMatch(/^A second thread of its own/);
    expect(await violationsWithoutWidget(pageOrigin + thread)).toEqual([]);

    await page.getByLabel('Your name (optional)').fill('Nora Noscript');
    await page.getByLabel('Write a comment').fill('Posted from a plain form.');
    await page.waitForTimeout(1_100);
    await page.getByRole('button', { name: 'Post comment' }).click();
    await page.waitForURL((url) => url.hash !== '', { waitUntil: 'domcontentloaded' });
    expect(page.url()).toMatch(/#parley-cmt_/);
    const posted = new URL(page.url()).hash.slice(1);
    const mine = page.locator(`#${posted}`);
    expect(await inShadow(page, 'article .text').first().textContent()).toBe('Posted from a plain form.');
    // The page scrolled to the new comment's anchor (slotted into the comment): it is in view.
    const top = await mine.evaluate((anchor) => anchor.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(900);

    await inShadow(page, 'article').first().getByRole('link', { name: 'Reply' }).click();
    await page.waitForURL(/parley_reply=/);
    await page.getByLabel('Reply to Nora Noscript').fill('And a reply, still without scripts.');
    await page.waitForTimeout(1_100);
    await page.getByRole('button', { name: 'Post reply' }).click();
    await page.waitForURL(/#parley-cmt_/, { waitUntil: 'domcontentloaded' });
    expect(await inShadow(page, 'article .replies article .text').first().textContent()).toBe('And a reply, still without scripts.');
    const reply = new URL(page.url()).hash.slice(1);
    const replyTop = await page.locator(`#${reply}`).evaluate((anchor) => anchor.getBoundingClientRect().top);
    expect(replyTop).toBeGreaterThanOrEqual(0);
    expect(replyTop).toBeLessThan(900);
    expect(await violationsWithoutWidget(page.url())).toEqual([]);
    await shoot(context, thread, 'no-js');
    await context.close();
  }, 60_000);
});

describe.skipIf(!CHROMIUM)('the widget taking the thread over', () => {
  it.each([760, 390])('draws from the thread in the page at %i px: no second fetch of the list, nothing moves, live updates still come', async (width) => {
    const thread = await seededThread();
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const lists: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/comments') lists.push(request.url());
    });
    // embed.js waits until the server's thread is measured.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/embed.js', async (route) => {
      await held;
      await route.continue();
    });
    const boxes = () =>
      page.evaluate(() =>
        Array.from(document.querySelector('parley-comments')!.shadowRoot!.querySelectorAll('article .text')).map((text) => {
          const box = text.getBoundingClientRect();
          return { top: Math.round(box.top), left: Math.round(box.left), width: Math.round(box.width), height: Math.round(box.height), text: text.textContent };
        }),
      );
    await page.goto(pageOrigin + thread, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => document.querySelector('parley-comments')?.shadowRoot?.querySelectorAll('article').length === 3);
    const before = await boxes();
    const shifts: number[] = [];
    await page.evaluate(() => new PerformanceObserver((entries) => entries.getEntries().forEach((entry) => ((window as any).shift = ((window as any).shift ?? 0) + (entry as any).value))).observe({ type: 'layout-shift', buffered: false }));
    release();
    await page.waitForFunction(() => typeof (document.querySelector('parley-comments') as unknown as { renderTime?: number | null }).renderTime === 'number');
    const after = await boxes();
    shifts.push(await page.evaluate(() => (window as any).shift ?? 0));
    console.log('comment boxes before/after takeover', JSON.stringify(before), JSON.stringify(after), 'layout shift', shifts[0]);
    expect(after).toEqual(before);
    expect(shifts[0]).toBeLessThan(0.01);
    expect(lists).toEqual([]);
    // The widget's own controls are there: its Reply is a button now.
    expect(await inShadow(page, 'article').first().getByRole('button', { name: 'Reply' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // Live updates still arrive.
    await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageOrigin + thread, content: 'Arrived live.', author_name: 'Lea' } });
    await expect.poll(() => inShadow(page, 'button.new').textContent(), { timeout: 10_000 }).toBe('Show 1 new comment');
    if (width === 760) await shoot(context, thread, 'taken-over');
    await context.close();
  }, 60_000);
});
