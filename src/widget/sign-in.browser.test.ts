import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { freePort, startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.ts';
import { signInMail } from '../../test/sign-in-codes.ts';
import { signedInReader } from '../readers/me/readers.fixture.ts';
import ENGLISH from './locales/en.json' with { type: 'json' };
import { escapeHtml } from '../formatting/escape.ts';

/**
 * Readers signing in through the widget, in a real Chromium that blocks third-party cookies: the
 * embedding page is on `localhost`, Parley on `127.0.0.1`, so they are different sites and nothing
 * of Parley's may rely on a cookie. One browser for the file; pages are opened per scenario.
 */

const CHROMIUM = chromiumForTests();
const SHOTS = join(ARTIFACTS, 'sign-in');

let parley: TestParley;
let mailbox: Mailbox;
let op: TestOidcProvider;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;
/** Every Set-Cookie header Parley sent the browser. */
const parleyCookies: string[] = [];

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
  // Parley's address is known before it starts: the provider's client is registered with its callback.
  const parleyPort = await freePort();
  const publicUrl = `http://127.0.0.1:${parleyPort}`;
  op = await startOidcProvider({ redirectUri: `${publicUrl}/v1/auth/callback` });
  parley = await startParley({
    PORT: String(parleyPort),
    PARLEY_PUBLIC_URL: publicUrl,
    PARLEY_SMTP_URL: mailbox.url,
    PARLEY_MAIL_FROM: 'comments@example.com',
    PARLEY_ERASE_GRACE: '7d',
  });
  pages = await servePages();
  const port = (pages.address() as { port: number }).port;
  pageOrigin = `http://localhost:${port}`;
  site = await parley.newSite({ domains: [`localhost:${port}`] });
  const provider = await parley.request('POST', `/api/sites/${site.site_id}/identity-providers`, {
    token: site.api_key,
    body: { type: 'oidc', name: 'Example ID', client_id: op.clientId, client_secret: op.clientSecret, issuer: op.issuer },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  // Chromium's own setting "Block third-party cookies" (chrome://settings/cookies), as a reader would choose it.
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 1, block_third_party_cookies: true } }));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 760, height: 900 }, args: CHROMIUM_ARGS, acceptDownloads: true });
  browser.on('response', async (response) => {
    // A pop-up that closes itself may be gone before its last answers are read: those it set no cookie in.
    const cookie = new URL(response.url()).origin === parley.url ? await response.headerValue('set-cookie').catch(() => null) : null;
    if (cookie) parleyCookies.push(cookie);
  });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
  await mailbox?.close();
  await op?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

// Each scenario starts as a guest, unknown to the provider too: storage and cookies are the browser's, kept from one scenario to the next.
beforeEach(async () => {
  await browser.clearCookies();
  const page = await browser.newPage();
  await page.goto(`${pageOrigin}/probe`);
  await page.evaluate(() => localStorage.clear());
  await page.close();
});

let threadCounter = 0;
const newThread = () => `/thread/${Date.now()}-${++threadCounter}`;
const storageKey = () => `parley:session:${site.site_id}`;

/** A reader who signed in by themselves before (by a code mailed to them), with a session token. */
const reader = (name: string, email = `${name.toLowerCase()}-${Date.now()}@example.com`) => signedInReader(parley, site.site_id, { email, name });

/** Opens a page and waits until every widget on it has drawn its first page. */
async function open(page: Page, thread: string, params: Record<string, string> = {}, hash = ''): Promise<Page> {
  await page.goto(`${pageOrigin}${thread}?${new URLSearchParams(params)}${hash}`);
  await drawn(page);
  return page;
}

const drawn = (page: Page) =>
  page.waitForFunction(() => Array.from(document.querySelectorAll('parley-comments')).every((w) => (w as unknown as { renderTime: number | null }).renderTime !== null));

const focusedIn = (page: Page) => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent ?? null);

/** At the provider (the library's development form: any login, any password), as the reader. */
async function signInAtProvider(page: Page, login: string) {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any');
  await page.locator('button[type=submit]').click();
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
    const thread = newThread();
    for (const [theme, width] of [['light', 760], ['dark', 760], ['light', 375]] as const) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 800 });
      await open(page, thread, { theme });
      const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
      await signIn.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Sign in to comment' });
      // It opens once its module is loaded (the first time on the page).
      await dialog.waitFor();
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

  it("loads the dialogs when a reader first opens one: busy meanwhile, a failure said in words and tried again, the site's words in them", async () => {
    const page = await browser.newPage();
    const asked: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/embed\/account\.[0-9a-f]{16}\.js/, async (route) => {
      asked.push(route.request().url());
      if (asked.length > 1) return route.continue();
      await held;
      return route.abort('internetdisconnected');
    });
    await open(page, newThread());
    expect(asked).toEqual([]);
    // A site's words replace the dialogs' too, though those come with the dialogs.
    await page.evaluate(() =>
      (customElements.get('parley-comments') as unknown as { setStrings(lang: string, strings: object): void }).setStrings('en', { signIn: 'Join in', signInTitle: 'Join the conversation' }),
    );
    const signIn = page.getByRole('button', { name: 'Join in', exact: true });
    await signIn.click();
    await expect.poll(() => signIn.getAttribute('aria-busy')).toBe('true');
    release();
    const failure = page.getByText(ENGLISH.dialogUnavailable);
    await expect.poll(() => failure.isVisible()).toBe(true);
    expect(await failure.getAttribute('role')).toBe('alert');
    expect(await signIn.getAttribute('aria-busy')).toBeNull();
    expect(await page.getByRole('dialog').count()).toBe(0);

    await signIn.click();
    const dialog = page.getByRole('dialog', { name: 'Join the conversation' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await failure.count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Close' }).isVisible()).toBe(true);
    expect(asked).toHaveLength(2);
    await page.keyboard.press('Escape');
    await signIn.click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // Loaded once for the page.
    expect(asked).toHaveLength(2);
    await page.close();
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
    await page.goto(`${pageOrigin}/probe`);
    await page.evaluate((key) => localStorage.setItem(key, 'sess_revoked_long_ago'), storageKey());
    await open(page, newThread());
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
    await page.close();
  });

  it('signs a reader in with a code mailed to them: a wrong code is refused in words, a new reader names themselves', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in to comment' });
    await dialog.getByLabel('Your email address').fill('Nina@Example.com');
    const before = mailbox.mails.length;
    await dialog.getByRole('button', { name: 'Email me a sign-in code' }).click();
    const { code } = signInMail((await mailbox.waitFor(before + 1))[before]);
    await expect.poll(() => dialog.getByText('We sent a 6-digit code to Nina@Example.com.', { exact: false }).count()).toBe(1);
    const codeField = dialog.getByLabel('Code from the email');
    expect(await codeField.evaluate((input) => [input.getAttribute('inputmode'), input.getAttribute('autocomplete')])).toEqual(['numeric', 'one-time-code']);
    expect(await focusedIn(page)).toBe('');
    await codeField.fill(code === '000000' ? '111111' : '000000');
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('That code is not right, or it has expired. Check the email, or ask for a new code.');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'sign-in-code-light-760.png') });
    await codeField.fill(code);
    await dialog.getByLabel('Your name (if this is your first sign-in)').fill('Nina');
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByText('Commenting as Nina').count()).toBe(1);
    // The keyboard is where the reader goes next: their account.
    expect(await focusedIn(page)).toBe('Your account');
    await page.reload();
    await drawn(page);
    await page.getByLabel('Write a comment').fill('Signed in by email, no password');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(async () => (await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageOrigin + thread)}`)).body.comments[0]).toMatchObject({
      author_name: 'Nina',
      author_is_guest: false,
    });
    await page.close();
  });

  it("signs a reader in from the email's link, which brings them back to the page", async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Your email address').fill('link-reader@example.com');
    const before = mailbox.mails.length;
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    const { link } = signInMail((await mailbox.waitFor(before + 1))[before]);
    // The reader opens the link (in this browser): Parley's page, whose button signs them in and goes back to the thread.
    await page.goto(parley.url + link);
    await page.getByRole('button').first().click();
    await expect.poll(() => page.getByText('Commenting as Reader').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.evaluate(() => [location.pathname, location.hash])).toEqual([thread, '']);
    await page.close();
  });

  it('signs a reader in at an OpenID provider in a pop-up, and a reload keeps them signed in', async () => {
    op.accounts.set('popup-reader', { name: 'Pia Popup', email: 'pia@example.com', email_verified: true });
    const page = await open(await browser.newPage(), newThread());
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Continue with Example ID' }).click()]);
    await signInAtProvider(popup, 'popup-reader');
    // The pop-up hands the session to this page and closes.
    await expect.poll(() => page.getByText('Commenting as Pia Popup').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => popup.isClosed()).toBe(true);
    await page.reload();
    await drawn(page);
    expect(await page.getByText('Commenting as Pia Popup').count()).toBe(1);
    // Nothing of the sign-in rests on a cookie of Parley's (the provider's own, at the provider, are its business).
    expect(parleyCookies).toEqual([]);
    await page.close();
  });

  it("signs a reader in through a pop-up that the provider's pages cut off from the page that opened it", async () => {
    op.accounts.set('cut-off-reader', { name: 'Cora Cutoff' });
    const page = await open(await browser.newPage(), newThread());
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Continue with Example ID' }).click()]);
    // As a provider's Cross-Origin-Opener-Policy does: the pop-up no longer knows its opener.
    await popup.evaluate(() => (window.opener = null));
    await signInAtProvider(popup, 'cut-off-reader');
    // The pop-up opens the reader's page, whose widget keeps the session where this page hears of it, and closes.
    await expect.poll(() => page.getByText('Commenting as Cora Cutoff').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => popup.isClosed(), { timeout: 10_000 }).toBe(true);
    await page.close();
  });

  it('goes to the provider in the page itself where pop-ups are blocked, and comes back signed in', async () => {
    op.accounts.set('redirect-reader', { name: 'Rex Redirect' });
    const page = await browser.newPage();
    // As a pop-up blocker does: window.open opens nothing.
    await page.addInitScript(() => (window.open = () => null));
    const thread = newThread();
    await open(page, thread);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Continue with Example ID' }).click();
    await signInAtProvider(page, 'redirect-reader');
    await expect.poll(() => page.getByText('Commenting as Rex Redirect').count(), { timeout: 10_000 }).toBe(1);
    expect(page.url().startsWith(pageOrigin + thread)).toBe(true);
    expect(await page.evaluate(() => location.hash)).toBe('');
    await page.close();
  });

  it('shows a failed pop-up sign-in in words', async () => {
    const page = await open(await browser.newPage(), newThread());
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Continue with Example ID' }).click()]);
    // The reader cancels at the provider.
    await popup.locator('a[href$="/abort"]').click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Signing in did not work: ./);
    await popup.close();
    await page.close();
  });

  it('gives a reader their account: rename, ways in, comments, data download, and deletion after a confirmation (screenshots: light, dark, phone)', async () => {
    const { token } = await reader('Ola', 'ola@example.com');
    const thread = newThread();
    for (let n = 1; n <= 12; n++) {
      const posted = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageOrigin + thread, content: `My comment number ${n}` } });
      expect(posted.status).toBe(201);
    }
    const page = await open(await browser.newPage(), thread, {}, `#parley_session=${token}`);
    const account = page.getByRole('dialog', { name: 'Your account' });
    for (const [theme, width] of [['light', 760], ['dark', 760], ['light', 375]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await open(page, thread, { theme });
      await page.getByRole('button', { name: 'Your account' }).click();
      await expect.poll(() => account.getByRole('link', { name: 'My comment number 12' }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `account-${theme}-${width}.png`) });
      await page.keyboard.press('Escape');
    }
    await page.getByRole('button', { name: 'Your account' }).click();

    // Ten comments a page; "More" brings the rest, its first one taking the focus.
    await expect.poll(() => account.getByRole('listitem').filter({ hasText: 'My comment number' }).count()).toBe(10);
    await account.getByRole('button', { name: 'More' }).click();
    await expect.poll(() => account.getByRole('listitem').filter({ hasText: 'My comment number' }).count()).toBe(12);
    expect(await focusedIn(page)).toBe('My comment number 2');
    expect(await account.getByRole('button', { name: 'More' }).isVisible()).toBe(false);

    // The one way in cannot be removed.
    expect(await account.getByText('Email code to ola@example.com').count()).toBe(1);
    expect(await account.getByRole('button', { name: /^Remove/ }).count()).toBe(0);

    const [download] = await Promise.all([page.waitForEvent('download'), account.getByRole('button', { name: 'Download my data' }).click()]);
    const exported = readFileSync(await download.path(), 'utf8');
    expect(exported).toContain('My comment number 12');
    expect(exported).toContain('ola@example.com');

    await account.getByLabel('Your name').fill('Ola Nordmann');
    await account.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => account.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    await account.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByText('Commenting as Ola Nordmann').count()).toBe(1);

    await page.getByRole('button', { name: 'Your account' }).click();
    await account.getByRole('button', { name: 'Delete my account' }).click();
    const confirmation = account.getByRole('group', { name: 'Delete my account' });
    expect(await confirmation.textContent()).toContain('Your account is deleted in 7 days; signing in again before then keeps it.');
    expect(await focusedIn(page)).toBe('Yes, delete my account');
    await page.screenshot({ path: join(SHOTS, 'account-delete-light-375.png') });
    await account.getByRole('button', { name: 'Yes, delete my account' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Your account will be deleted on' });
    await expect.poll(() => notice.count()).toBe(1);
    expect(await notice.textContent()).toMatch(/^Your account will be deleted on .+; sign in before then to keep it\.$/);
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
    expect(await sessionStatus(token)).toBe(401);
    await page.close();
  });
});
