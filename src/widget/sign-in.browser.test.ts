import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { newId } from '../ids.ts';
import { EMAIL_PROVIDER, signInReader } from '../readers/sign-in.ts';
import { findSite } from '../sites/repository.ts';
import { escapeHtml } from './demo.ts';

/**
 * Readers signing in through the widget, in a real Chromium that blocks third-party cookies: the
 * embedding page is on `localhost`, Parley on `127.0.0.1`, so they are different sites and nothing
 * of Parley's may rely on a cookie. One browser for the file; pages are opened per scenario.
 */

const CHROMIUM = chromiumForTests();
const SHOTS = join(ARTIFACTS, 'sign-in');

let parley: TestParley;
let mailbox: Mailbox;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;

/** The customer's article with one widget per thread asked for; `/probe` is a page that sets and reads a cookie. */
function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (url.pathname === '/probe') {
      return void response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'probe=1; SameSite=None; Secure; Path=/' }).end('<p>probe</p>');
    }
    if (url.pathname === '/framed') return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe src="${url.searchParams.get('src')}"></iframe>`);
    if (!url.pathname.startsWith('/thread/')) return void response.writeHead(404).end();
    const attributes = (thread: string) =>
      [`site-id="${escapeHtml(site.site_id)}"`, `thread-url="${escapeHtml(pageOrigin + thread)}"`, ...['theme'].filter((name) => url.searchParams.has(name)).map((name) => `${name}="${escapeHtml(url.searchParams.get(name)!)}"`)].join(' ');
    const threads = [url.pathname, ...url.searchParams.getAll('also')];
    const dark = url.searchParams.get('theme') === 'dark';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>A static blog</title>
<style>body{margin:0;padding:16px;font-family:serif}${dark ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>A post on a static site</h1>
${threads.map((thread) => `<parley-comments ${attributes(thread)}></parley-comments>`).join('\n')}
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  mailbox = await startMailbox();
  parley = await startParley({ PARLEY_SMTP_URL: mailbox.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_ERASE_GRACE: '7d' });
  pages = await servePages();
  const port = (pages.address() as { port: number }).port;
  pageOrigin = `http://localhost:${port}`;
  site = await parley.newSite({ domains: [`localhost:${port}`] });
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  // Chromium's own setting "Block third-party cookies" (chrome://settings/cookies), as a reader would choose it.
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 1, block_third_party_cookies: true } }));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 760, height: 900 }, args: CHROMIUM_ARGS, acceptDownloads: true });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
  await mailbox?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

let threadCounter = 0;
const newThread = () => `/thread/${Date.now()}-${++threadCounter}`;
const storageKey = () => `parley:session:${site.site_id}`;

/** A reader who signed in by themselves before (by a code mailed to them), with a session token. */
async function reader(name: string, email = `${name.toLowerCase()}-${Date.now()}@example.com`) {
  const found = (await findSite(parley.app.db.kysely, site.site_id))!;
  return signInReader(parley.app.db, found, { provider: EMAIL_PROVIDER, subject: email, email, emailVerified: true, name, pictureUrl: null });
}

/** Opens a page and waits until every widget on it has drawn its first page. */
async function open(page: Page, thread: string, params: Record<string, string> = {}, hash = ''): Promise<Page> {
  await page.goto(`${pageOrigin}${thread}?${new URLSearchParams(params)}${hash}`);
  await drawn(page);
  return page;
}

const drawn = (page: Page) =>
  page.waitForFunction(() => Array.from(document.querySelectorAll('parley-comments')).every((w) => (w as unknown as { renderTime: number | null }).renderTime !== null));

async function addProvider(name: string, type = 'oidc') {
  const now = new Date().toISOString();
  const id = newId('idp');
  await parley.app.db.kysely.insertInto('identity_providers').values({ id, site_id: site.site_id, type, name, client_id: 'c', client_secret: 's', issuer: null, created_at: now, updated_at: now }).execute();
  return id;
}

const sessionStatus = async (token: string) => (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token })).status;

describe.skipIf(!CHROMIUM)('signing in through the widget, with third-party cookies blocked', () => {
  it('runs in a browser that blocks third-party cookies (the embedding page and Parley are different sites)', async () => {
    const page = await browser.newPage();
    const port = new URL(pageOrigin).port;
    await page.goto(`http://127.0.0.1:${port}/probe`);
    expect(await page.evaluate(() => document.cookie)).toBe('probe=1');
    await page.goto(`${pageOrigin}/framed?src=${encodeURIComponent(`http://127.0.0.1:${port}/probe`)}`);
    const framed = await (await page.locator('iframe').elementHandle())!.contentFrame();
    await framed!.waitForLoadState();
    // Inside the page of another site, the cookie its own site set is neither sent nor readable.
    expect(await framed!.evaluate(() => document.cookie)).toBe('');
    expect(await framed!.evaluate(() => document.hasStorageAccess())).toBe(false);
    await page.close();
  });

  it("offers a guest the site's ways in, in a dialog that works with the keyboard (screenshots: light, dark, phone)", async () => {
    await addProvider('Example ID');
    const thread = newThread();
    for (const [theme, width] of [['light', 760], ['dark', 760], ['light', 375]] as const) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 800 });
      await open(page, thread, { theme });
      const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
      await signIn.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Sign in to comment' });
      expect(await dialog.isVisible()).toBe(true);
      // The first way in has the focus; the address follows.
      expect(await dialog.getByRole('button', { name: 'Continue with Example ID' }).evaluate((button) => button === (button.getRootNode() as ShadowRoot).activeElement)).toBe(true);
      expect(await dialog.getByLabel('Your email address').isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `sign-in-${theme}-${width}.png`) });
      await page.keyboard.press('Escape');
      expect(await dialog.count()).toBe(0);
      expect(await signIn.evaluate((button) => button === (button.getRootNode() as ShadowRoot).activeElement)).toBe(true);
      await page.close();
    }
  });

  it('keeps a session from the page address in the page, shares it with the other widgets, keeps it across reloads, and signs out', async () => {
    const { token } = await reader('Ada');
    const thread = newThread();
    const page = await open(await browser.newPage(), thread, { also: newThread() }, `#parley_session=${token}`);
    expect(await page.getByText('Commenting as Ada').count()).toBe(2);
    // Taken out of the address (history, bookmarks, shared links), kept in the page's storage.
    expect(await page.evaluate(() => location.hash)).toBe('');
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBe(token);
    await page.reload();
    await drawn(page);
    expect(await page.getByText('Commenting as Ada').count()).toBe(2);
    // The reader's picture, drawn here from their id: the same for both widgets, and no image fetched.
    const pictures = await page.locator('parley-comments').evaluateAll((widgets) => widgets.map((w) => w.shadowRoot!.querySelector('svg.avatar')!.outerHTML));
    expect(pictures[0]).toBe(pictures[1]);

    // Another tab of the same page learns of the sign-out through the page's storage.
    const other = await open(await browser.newPage(), thread);
    expect(await other.getByText('Commenting as Ada').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(2);
    await expect.poll(() => other.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
    expect(await sessionStatus(token)).toBe(401);
    await page.close();
    await other.close();
  });

  it('drops a kept session the server no longer knows, and the reader is a guest again', async () => {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/thread/none`);
    await page.evaluate((key) => localStorage.setItem(key, 'sess_revoked_long_ago'), storageKey());
    await open(page, newThread());
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
    await page.close();
  });
});
