import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { escapeHtml } from '../formatting/escape.ts';
import BELL from './locales/bell/en.json' with { type: 'json' };
import ENGLISH from './locales/en.json' with { type: 'json' };

/**
 * A signed-in reader's bell, Follow toggle and notifications' panel in a real Chromium, against a
 * real Parley: the count changes live as others reply, the panel opens a comment of this page
 * without a reload and one of another page by going there, and a moderator's decision says why
 * and takes the reader's contest.
 */

const CHROMIUM = chromiumForTests();
const SHOTS = join(ARTIFACTS, 'bell');

let parley: TestParley;
let site: { site_id: string; api_key: string };
let pages: Server;
let origin: string;
let browser: Browser;
let ada: string;
let bob: string;

/** A post with its thread; `?token` is the reader's session, `?theme` the widget's theme. */
function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    if (!url.pathname.startsWith('/post/')) return void response.writeHead(404).end();
    const dark = url.searchParams.get('theme') === 'dark';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Post ${escapeHtml(url.pathname.slice(6))}</title>
<style>body{margin:0;padding:16px;font-family:serif}${dark ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>A post</h1>
<parley-comments site-id="${escapeHtml(site.site_id)}" thread-url="${escapeHtml(origin + url.pathname)}" session-token="${escapeHtml(url.searchParams.get('token') ?? '')}"${dark ? ' theme="dark"' : ''}></parley-comments>
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  parley = await startParley();
  pages = await servePages();
  origin = `http://localhost:${(pages.address() as { port: number }).port}`;
  site = await parley.newSite({ domains: [new URL(origin).host] });
  ada = await parley.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
  bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
});

async function post(token: string, thread: string, content: string, parentId?: string): Promise<string> {
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: origin + thread, content, parent_id: parentId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

/** Waits until the worker has told every reader of what was queued. */
const settled = () =>
  expect.poll(async () => (await parley.app.db.kysely.selectFrom('notification_jobs').select('id').where('state', '=', 'pending').execute()).length, { timeout: 10_000 }).toBe(0);

async function openPost(path: string, options: { theme?: 'dark'; width?: number } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 900, height: 900 } });
  await page.goto(`${origin}${path}?${new URLSearchParams({ token: ada, ...(options.theme && { theme: options.theme }) })}`);
  await page.locator('parley-comments button[data-k="bell"]').waitFor();
  return page;
}

const bellName = (page: Page) => page.locator('parley-comments button[data-k="bell"] .sr').textContent();

describe('the bell', () => {
  it('follows the thread, counts replies as they come, and opens one on this page without a reload', async () => {
    const mine = await post(ada, '/post/tea', 'Green tea is best cold.');
    const page = await openPost('/post/tea');
    const follow = page.locator('parley-comments button[data-k="follow"]');
    await expect.poll(() => follow.textContent()).toBe('Follow');
    expect(await follow.getAttribute('aria-pressed')).toBe('false');
    await follow.click();
    await expect.poll(() => follow.getAttribute('aria-pressed')).toBe('true');
    expect(await follow.textContent()).toBe('Following');
    const follows = await parley.request('GET', `/v1/follows?site_id=${site.site_id}&thread_url=${encodeURIComponent(`${origin}/post/tea`)}`, { token: ada });
    expect(follows.body.follows).toHaveLength(1);

    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    expect(await bellName(page)).toBe('Notifications, 0 unread');
    const reply = await post(bob, '/post/tea', 'Only with mint.', mine);
    await settled();
    await expect.poll(() => bellName(page), { timeout: 10_000 }).toBe('Notifications, 1 unread');
    // Said aloud once, politely, where the widget says what arrives.
    expect(await page.locator('parley-comments p.sr[aria-live="polite"]').textContent()).toBe('Notifications, 1 unread');

    await page.locator('parley-comments button[data-k="bell"]').click();
    const dialog = page.locator('parley-comments dialog');
    await dialog.getByRole('link', { name: 'Bob replied to you' }).waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe(ENGLISH['bell.title']);
    expect(await dialog.locator('blockquote').textContent()).toBe('Only with mint.');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('link', { name: 'Bob replied to you' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => bellName(page)).toBe('Notifications, 0 unread');
    const focused = await page.evaluate(() => {
      const active = document.querySelector('parley-comments')!.shadowRoot!.activeElement as HTMLElement | null;
      return { linked: active?.classList.contains('linked'), text: active?.textContent ?? '' };
    });
    expect(focused.linked).toBe(true);
    expect(focused.text).toContain('Only with mint.');
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(reply).toMatch(/^cmt_/);
    await page.close();
  });

  it("lists another page's mention with its page, goes there on the comment, and marks all read", async () => {
    const mention = await post(bob, '/post/coffee', `Ask @[Ada](${(await parley.request('GET', '/v1/me', { token: ada })).body.user.id}) about it.`);
    await post(bob, '/post/coffee', 'Anyone?');
    await settled();
    const page = await openPost('/post/tea');
    await page.locator('parley-comments button[data-k="bell"]').click();
    const dialog = page.locator('parley-comments dialog');
    const link = dialog.getByRole('link', { name: 'Bob mentioned you' });
    await link.waitFor();
    expect(await dialog.locator('li.fresh').first().textContent()).toContain(`on ${origin.replace('http://', '')}/post/coffee`);
    await dialog.getByRole('button', { name: BELL['bell.markAll'] }).click();
    await expect.poll(() => bellName(page)).toBe('Notifications, 0 unread');
    expect(await dialog.locator('li.fresh').count()).toBe(0);
    await link.click();
    await page.waitForURL(`${origin}/post/coffee#parley_comment=${mention}`);
    await expect.poll(() => page.locator('parley-comments article.linked').count()).toBe(1);
    await page.close();
  });
});

describe('a moderation notice', () => {
  it('says what a moderator decided and why, takes a contest, and links to the site', async () => {
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { contact: 'help@tea.example' } })).status).toBe(200);
    const removed = await post(ada, '/post/tea', 'Buy cheap tea at my shop!');
    expect((await parley.request('PATCH', `/v1/comments/${removed}/moderate`, { token: site.api_key, body: { action: 'remove', reason: 'Advertising' } })).status).toBe(200);
    await settled();

    const shots: Array<[string, { theme?: 'dark'; width?: number }]> = [
      ['light', {}],
      ['dark', { theme: 'dark' }],
      ['phone', { width: 390 }],
    ];
    for (const [name, options] of shots) {
      const page = await openPost('/post/tea', options);
      await page.locator('parley-comments button[data-k="bell"]').click();
      const notice = page.locator('parley-comments dialog li').filter({ hasText: 'A moderator removed your comment.' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('Reason: Advertising');
      expect(await notice.getByRole('link', { name: BELL['bell.contact'] }).getAttribute('href')).toBe('mailto:help@tea.example');
      await notice.getByRole('button', { name: BELL['bell.contest'] }).click();
      expect(await notice.getByRole('button', { name: BELL['bell.contest'] }).getAttribute('aria-expanded')).toBe('true');
      await notice.getByLabel(BELL['bell.contestLabel']).fill('It was a recipe, and the shop link was a mistake.');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `notice-${name}.png`), fullPage: true });
      if (name === 'phone') {
        await notice.getByRole('button', { name: BELL['bell.contestSend'] }).click();
        await expect.poll(() => notice.locator('[role=status]').textContent()).toBe(BELL['bell.contested']);
        await page.screenshot({ path: join(SHOTS, 'notice-sent-phone.png'), fullPage: true });
      }
      // The notice counts as read once shown; Escape closes the panel and the bell has the focus again.
      await expect.poll(() => bellName(page)).toBe('Notifications, 0 unread');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.evaluate(() => (document.querySelector('parley-comments')!.shadowRoot!.activeElement as HTMLElement | null)?.dataset.k)).toBe('bell');
      await page.close();
    }
    const contests = await parley.request('GET', `/api/contests?site_id=${site.site_id}`, { token: site.api_key });
    expect(contests.body.contests).toMatchObject([{ message: 'It was a recipe, and the shop link was a mistake.' }]);
  });

  it('shows the bell panel in light, dark and on a phone', async () => {
    await post(bob, '/post/tea', 'The best cup is the second one.');
    const root = await post(ada, '/post/tea', 'What about oolong?');
    await post(bob, '/post/tea', 'Oolong is lovely.', root);
    await settled();
    for (const [name, options] of [
      ['light', {}],
      ['dark', { theme: 'dark' as const }],
      ['phone', { width: 390 }],
    ] as const) {
      const page = await openPost('/post/tea', options);
      await page.locator('parley-comments button[data-k="bell"]').click();
      await page.locator('parley-comments dialog li').first().waitFor();
      await page.screenshot({ path: join(SHOTS, `panel-${name}.png`), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      await page.close();
    }
  });
});
