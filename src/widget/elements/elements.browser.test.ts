import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../../test/browser.ts';
import { chromiumForTests } from '../../../test/chromium.ts';
import { startParley, type TestParley } from '../../../test/helper.ts';

/**
 * `<parley-count>` and `<parley-recent>` on an index page of another origin, in a real Chromium:
 * one request for all the counts of a page, the words of the page's language, and a list of recent
 * comments that reads well in light and dark and on a phone.
 */
const CHROMIUM = chromiumForTests();
const SHOTS = process.env.PARLEY_SHOTS_DIR ?? join(ARTIFACTS, 'elements');
const POSTS = 120;

let parley: TestParley;
let pages: Server;
let pageOrigin: string;
let browser: Browser;
let site: { site_id: string; api_key: string };

const postUrl = (index: number) => `${pageOrigin}/posts/${index}`;

/** An index page: a count under each of POSTS posts (`lang` on the page, German on one), and recent comments in an aside. */
function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (url.pathname.startsWith('/posts/')) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(threadPage(url));
    const theme = url.searchParams.get('theme') ?? 'light';
    const posts = Array.from(
      { length: POSTS },
      (_, index) => `<li><a href="/posts/${index}">Post ${index}</a> · <parley-count site-id="${site.site_id}" thread-url="${postUrl(index)}"${index === 1 ? ' lang="de"' : ''}>comments</parley-count></li>`,
    ).join('\n');
    const dark = theme === 'dark' ? 'body{background:#17171c;color:#ececf1}a{color:#8ab4f8}' : '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="${url.searchParams.get('lang') ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>A blog</title>
<style>body{margin:0;padding:16px;font:16px system-ui;display:flex;flex-wrap:wrap;gap:24px}main{flex:1 1 20em}aside{flex:1 1 18em}ul.posts{columns:2}${dark}</style></head>
<body><main><h1>A blog</h1><ul class="posts">${posts}</ul></main>
<aside><h2>Recent comments</h2><parley-recent site-id="${site.site_id}" limit="4" theme="${theme}"></parley-recent></aside>
<script src="${parley.url}/embed/count.js" async></script><script src="${parley.url}/embed/recent.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A post's own page, with the thread widget. */
function threadPage(url: URL): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post</title></head><body><main><h1>A post</h1>
<parley-comments site-id="${site.site_id}" thread-url="${pageOrigin}${url.pathname}"></parley-comments></main><script src="${parley.url}/embed.js" async></script></body></html>`;
}

async function comment(index: number, content: string, name: string) {
  const token = await parley.signIn(site.api_key, site.site_id, { id: name.toLowerCase(), name });
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: postUrl(index), content } });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  parley = await startParley();
  pages = await servePages();
  const pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  site = await parley.newSite({ domains: [pageHost] });
  await comment(0, 'The first post was a good read.', 'Alice');
  await comment(0, 'Agreed, **especially** the second half. <script>alert(1)</script> is shown as text, never run.', 'Bob');
  await comment(1, 'Ein Kommentar auf Deutsch.', 'Clara');
  for (let i = 0; i < 3; i++) await comment(101, `A comment on a post past the hundredth, number ${i}, which goes on for a while so that the excerpt has to be cut somewhere sensible rather than run across the whole sidebar.`, 'Dana');
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
});

/** Opens the index page and waits for every count and the recent comments; answers the API requests it made. */
async function open(params: Record<string, string> = {}, viewport = { width: 1000, height: 900 }): Promise<{ page: Page; counts: string[]; recent: string[] }> {
  const context = await browser.newContext({ viewport, colorScheme: params.theme === 'dark' ? 'dark' : 'light' });
  const page = await context.newPage();
  const counts: string[] = [];
  const recent: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/v1/counts') counts.push(request.url());
    if (url.pathname === '/v1/comments/recent') recent.push(request.url());
  });
  await page.goto(`${pageOrigin}/?${new URLSearchParams(params)}`);
  await page.waitForFunction((posts) => document.querySelectorAll('parley-count[data-count]').length === posts, POSTS);
  await page.waitForFunction(() => document.querySelector('parley-recent')?.shadowRoot?.querySelector('li') != null);
  return { page, counts, recent };
}

describe.skipIf(!CHROMIUM)('count and recent-comment elements', () => {
  it('ask for the counts of 120 posts in two requests (100 URLs, then 20) and write them in the page’s language', async () => {
    const { page, counts, recent } = await open();
    expect(counts).toHaveLength(2);
    expect(counts.map((url) => new URL(url).searchParams.getAll('url').length).sort()).toEqual([100, 20]);
    expect(recent).toHaveLength(1);
    const text = (index: number) => page.locator('parley-count').nth(index).textContent();
    expect(await text(0)).toBe('2 comments');
    expect(await text(1)).toBe('1 Kommentar');
    expect(await text(2)).toBe('0 comments');
    expect(await text(101)).toBe('3 comments');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('speak the page’s language when it is another', async () => {
    const { page } = await open({ lang: 'ru' });
    expect(await page.locator('parley-count').nth(101).textContent()).toBe('3 комментария');
    expect(await page.locator('parley-count').nth(2).textContent()).toBe('0 комментариев');
    const list = page.locator('parley-recent ul');
    expect(await list.getAttribute('aria-label')).toBe('Последние комментарии');
    await page.context().close();
  });

  it('list the newest comments as links to their place in the thread, with text that is never markup', async () => {
    const { page } = await open();
    const items = page.locator('parley-recent li');
    expect(await items.count()).toBe(4);
    const links = await page.locator('parley-recent li a').evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href'), text: a.textContent })));
    expect(links[0].text).toBe(`Dana on /posts/101`);
    expect(links[0].href).toMatch(new RegExp(`^${postUrl(101)}#parley_comment=cmt_`));
    const bob = await items.filter({ hasText: 'Bob' }).count();
    expect(bob).toBe(0); // only the four newest: Dana's three and Clara's
    expect(await page.locator('parley-recent li p').first().textContent()).toMatch(/…$/);
    expect(await page.locator('parley-recent li time').first().textContent()).toMatch(/now|second|minute/);
  });

  it('read well in light and dark and on a phone (screenshots), without serious accessibility problems', async () => {
    for (const [name, params, viewport] of [
      ['light', {}, { width: 1000, height: 900 }],
      ['dark', { theme: 'dark' }, { width: 1000, height: 900 }],
      ['phone', {}, { width: 390, height: 844 }],
    ] as const) {
      const { page } = await open(params, viewport);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `elements-${name}.png`), fullPage: name !== 'phone' });
      // On a phone the aside comes below the posts: its own picture.
      if (name === 'phone') await page.locator('aside').screenshot({ path: join(SHOTS, 'elements-phone-recent.png') });
      await page.context().close();
    }
  });

  it("link the thread widget to its thread's Atom feed", async () => {
    const context = await browser.newContext({ viewport: { width: 760, height: 900 } });
    const page = await context.newPage();
    await page.goto(postUrl(0));
    const link = page.locator('parley-comments a[rel=alternate][type="application/atom+xml"]');
    await link.waitFor();
    expect(await link.textContent()).toBe('Comments feed (Atom)');
    const feed = await fetch((await link.getAttribute('href'))!);
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain('The first post was a good read.');
    await page.locator('parley-comments').screenshot({ path: join(SHOTS, 'widget-feed-link.png') });
    await context.close();
  });
});
