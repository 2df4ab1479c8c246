import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { escapeHtml } from '../formatting/escape.ts';

/**
 * Writing rich comments in the widget, in a real Chromium: the Markdown editor (Write and Preview,
 * toolbar, shortcuts), mentions, and how comments are drawn (their HTML, highlighted code, pinned
 * comments, author badges, the edit window). One browser for the file; pages are opened per scenario.
 */

const CHROMIUM = chromiumForTests();
const SHOTS = join(ARTIFACTS, 'editor');

type Site = { site_id: string; api_key: string };

let parley: TestParley;
let mailbox: Mailbox;
let markdown: Site;
let plain: Site;
let pages: Server;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;

function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (!url.pathname.startsWith('/thread/')) return void response.writeHead(404).end();
    const attributes = [
      `site-id="${escapeHtml(url.searchParams.get('site') ?? markdown.site_id)}"`,
      `thread-url="${escapeHtml(pageOrigin + url.pathname)}"`,
      ...['session-token', 'theme'].filter((name) => url.searchParams.has(name)).map((name) => `${name}="${escapeHtml(url.searchParams.get(name)!)}"`),
    ].join(' ');
    const dark = url.searchParams.get('theme') === 'dark';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>A customer's article</title>
<style>body{margin:0;padding:16px;font-family:serif}${dark ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>An article worth discussing</h1><parley-comments ${attributes}></parley-comments></main>
<script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let pageHost: string;

async function siteFormatted(formatting: 'markdown' | 'plain', editWindow: number | null = 600): Promise<Site> {
  const site = await parley.newSite({ domains: [pageHost] });
  const settings = { formatting, edit_window_seconds: editWindow, spam: { links_min_approved: 0 } };
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: settings })).status).toBe(200);
  return site;
}

beforeAll(async () => {
  mailbox = await startMailbox();
  // A server that mails: the account's mail settings show only then.
  parley = await startParley({ PARLEY_SMTP_URL: mailbox.url, PARLEY_MAIL_FROM: 'comments@example.com' });
  pages = await servePages();
  pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  markdown = await siteFormatted('markdown');
  plain = await siteFormatted('plain');
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 760, height: 900 }, args: CHROMIUM_ARGS });
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

const session = (name: string, moderator = false, site = markdown) => parley.signIn(site.api_key, site.site_id, { id: `ext-${name}`, name, moderator });

async function seed(thread: string, content: string, token: string, site = markdown) {
  const created = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageOrigin + thread, content } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; user_id: string | null };
}

/** Opens a thread page and waits until the widget has drawn its first page. */
async function open(page: Page, thread: string, params: Record<string, string> = {}): Promise<Page> {
  await page.goto(`${pageOrigin}${thread}?${new URLSearchParams(params)}`);
  await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
  return page;
}

/** The part of a comment that is its own (its replies sit outside it). */
const comment = (page: Page, text: string) => page.locator('.body').filter({ has: page.locator('.text', { hasText: text }) });
const field = (page: Page) => page.getByLabel('Write a comment');
const select = (page: Page, from: number, to: number) => field(page).evaluate((area: HTMLTextAreaElement, [start, end]) => area.setSelectionRange(start, end), [from, to]);

describe.skipIf(!CHROMIUM)('writing rich comments in Chromium', () => {
  it('previews Markdown as the site renders it, then posts it and draws it the same way, code highlighted', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Mara') });
    await field(page).fill('Use **strong** words and `inline code`:\n\n```js\nconst answer = 42; // why\n```\n\n> quoted\n\n- one\n- two');
    const preview = page.getByRole('tab', { name: 'Preview' });
    await preview.click();
    expect(await preview.getAttribute('aria-selected')).toBe('true');
    const panel = page.getByRole('tabpanel', { name: 'Preview' });
    await expect.poll(() => panel.locator('strong').textContent()).toBe('strong');
    expect(await panel.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
    expect(await panel.locator('blockquote').textContent()).toContain('quoted');
    expect(await field(page).isVisible()).toBe(false);
    expect(await page.getByRole('toolbar', { name: 'Formatting' }).isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Post comment' }).click();
    const posted = comment(page, 'inline code');
    await expect.poll(() => posted.locator('strong').count()).toBe(1);
    expect(await posted.locator('.hljs-number').textContent()).toBe('42');
    expect(await posted.locator('.hljs-comment').textContent()).toBe('// why');
    expect(await posted.locator('li').allTextContents()).toEqual(['one', 'two']);
    // Sent, the form is back to writing, empty.
    expect(await page.getByRole('tab', { name: 'Write' }).getAttribute('aria-selected')).toBe('true');
    expect(await field(page).inputValue()).toBe('');
    await page.close();
  });

  it('says in words when the preview fails, and that there is nothing to preview', async () => {
    const page = await open(await browser.newPage(), newThread(), { 'session-token': await session('Nils') });
    await page.getByRole('tab', { name: 'Preview' }).click();
    expect(await page.getByRole('tabpanel', { name: 'Preview' }).textContent()).toBe('Nothing to preview yet.');
    await page.getByRole('tab', { name: 'Write' }).click();
    // A control character (pasted from somewhere) is refused by the server, as a comment's would be.
    await field(page).fill('A bell \u0007 rings');
    await page.getByRole('tab', { name: 'Preview' }).click();
    await expect
      .poll(() => page.getByRole('tabpanel', { name: 'Preview' }).textContent())
      .toBe('Please check your text: content must not contain control characters other than newline and tab');
    await page.close();
  });

  it('formats the selection from the toolbar and with shortcuts, undoably, and sends with Ctrl+Enter', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Olga') });
    const toolbar = page.getByRole('toolbar', { name: 'Formatting' });
    expect(await toolbar.getByRole('button').allTextContents()).toEqual(['Bold', 'Italic', 'Link', 'Quote', 'Code']);
    await field(page).fill('hello world');
    await select(page, 6, 11);
    await toolbar.getByRole('button', { name: 'Bold' }).click();
    expect(await field(page).inputValue()).toBe('hello **world**');
    // The bold word stays selected: the same button takes the markers off again.
    await toolbar.getByRole('button', { name: 'Bold' }).click();
    expect(await field(page).inputValue()).toBe('hello world');
    await page.keyboard.press('Control+z');
    expect(await field(page).inputValue()).toBe('hello **world**');
    await page.keyboard.press('Control+z');
    expect(await field(page).inputValue()).toBe('hello world');

    await select(page, 0, 5);
    await page.keyboard.press('Control+i');
    expect(await field(page).inputValue()).toBe('_hello_ world');
    await select(page, 8, 13);
    await page.keyboard.press('Control+k');
    expect(await field(page).inputValue()).toBe('_hello_ [world](https://)');
    // The placeholder address is selected: typing replaces it.
    await page.keyboard.type('https://example.org/');
    expect(await field(page).inputValue()).toBe('_hello_ [world](https://example.org/)');
    await field(page).press('End');
    await page.keyboard.type('\nline one\nline two');
    await select(page, (await field(page).inputValue()).indexOf('line one'), (await field(page).inputValue()).length);
    await toolbar.getByRole('button', { name: 'Quote' }).click();
    expect(await field(page).inputValue()).toBe('_hello_ [world](https://example.org/)\n> line one\n> line two');
    await field(page).press('End');
    await page.keyboard.type('\n\nx = 1');
    const length = (await field(page).inputValue()).length;
    await select(page, length - 5, length);
    await toolbar.getByRole('button', { name: 'Code' }).click();
    expect(await field(page).inputValue()).toMatch(/\n\n`x = 1`$/);

    // The toolbar is one stop in the tab order; arrow keys move along it, and the tabs likewise.
    await toolbar.getByRole('button', { name: 'Bold' }).focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent)).toBe('Code');
    await page.getByRole('tab', { name: 'Write' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Preview' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Write' }).getAttribute('aria-selected')).toBe('true');

    await field(page).focus();
    await page.keyboard.press('Control+Enter');
    const posted = comment(page, 'hello');
    await expect.poll(() => posted.locator('em').textContent()).toBe('hello');
    expect(await posted.locator('a').getAttribute('href')).toBe('https://example.org/');
    expect(await posted.locator('blockquote').textContent()).toContain('line two');
    expect(await posted.locator('code').textContent()).toBe('x = 1');
    await page.close();
  });

  it('offers no tabs nor toolbar on a plain-text site, draws its text with its line breaks and links, and sends with Ctrl+Enter', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread, { site: plain.site_id, 'session-token': await session('Pia', false, plain) });
    expect(await page.getByRole('tab').count()).toBe(0);
    expect(await page.getByRole('toolbar').count()).toBe(0);
    await field(page).fill('**not bold**\nsee https://example.org/page.');
    await field(page).press('Control+b');
    expect(await field(page).inputValue()).toBe('**not bold**\nsee https://example.org/page.');
    await field(page).press('Control+Enter');
    const posted = comment(page, 'not bold');
    await expect.poll(() => posted.locator('a').getAttribute('href')).toBe('https://example.org/page');
    expect(await posted.locator('.text').textContent()).toContain('**not bold**');
    expect(await posted.locator('strong').count()).toBe(0);
    expect(await posted.locator('br').count()).toBe(1);
    await page.close();
  });

  it("suggests the thread's participants after @, inserts the chosen one's mention, and draws it", async () => {
    const thread = newThread();
    const ada = await session('Ada Lovelace');
    await seed(thread, 'First!', ada);
    await seed(thread, 'Second.', await session('Alan Turing'));
    await seed(thread, 'Third.', await session('Grace Hopper'));
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Reader') });
    await field(page).fill('Thanks ');
    await field(page).press('End');
    await page.keyboard.type('@a');
    const options = page.getByRole('listbox', { name: 'People to mention' }).getByRole('option');
    await expect.poll(async () => (await options.allTextContents()).sort()).toEqual(['Ada Lovelace', 'Alan Turing']);
    expect(await field(page).getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
    await page.keyboard.press('ArrowDown');
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Escape');
    expect(await options.count()).toBe(0);
    // Escape closed the suggestions, not the form.
    expect(await field(page).inputValue()).toBe('Thanks @a');
    await page.keyboard.type('l');
    await expect.poll(() => options.allTextContents()).toEqual(['Alan Turing']);
    await page.keyboard.press('Enter');
    expect(await field(page).inputValue()).toMatch(/^Thanks @\[Alan Turing\]\(usr_[0-9a-z]+\) $/);
    await page.keyboard.type('and @gr');
    await expect.poll(() => options.allTextContents()).toEqual(['Grace Hopper']);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+Enter');
    const posted = comment(page, 'Thanks');
    await expect.poll(() => posted.locator('.parley-mention').allTextContents()).toEqual(['@Alan Turing', '@Grace Hopper']);
    await page.close();
  });

  it('opens the page on the comment a mention mail links to (#parley_comment=), marked and focused', async () => {
    const thread = newThread();
    const writer = await session('Wren');
    const linked = await seed(thread, 'The one the mail links to.', writer);
    for (let i = 0; i < 12; i++) await seed(thread, `Later comment ${i}.`, writer);
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}${thread}#parley_comment=${linked.id}`);
    await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
    const article = page.locator('article.c', { has: comment(page, 'The one the mail links to') });
    expect(await article.getAttribute('class')).toContain('linked');
    expect(await article.evaluate((element) => element === (element.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    expect(await article.isVisible()).toBe(true);
    expect(await article.evaluate((element) => { const box = element.getBoundingClientRect(); return box.top >= 0 && box.bottom <= innerHeight; })).toBe(true);
    await page.close();
  });

  it('marks pinned comments and shows author badges, a site label as written', async () => {
    const thread = newThread();
    const moderator = await session('Maud', true);
    const pinned = await seed(thread, 'House rules: be kind.', moderator);
    const lin = await session('Lin');
    await seed(thread, 'I maintain the parser.', lin);
    expect((await parley.request('POST', `/v1/comments/${pinned.id}/pin`, { token: moderator })).body.pinned).toBe(true);
    const linId = (await parley.request('GET', `/v1/widget?site_id=${markdown.site_id}`, { token: lin })).body.viewer.user_id;
    const labelled = await parley.request('PATCH', `/api/sites/${markdown.site_id}/users/${linId}`, { token: markdown.api_key, body: { labels: ['Core team', '<b>bold</b>'] } });
    expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
    const page = await open(await browser.newPage(), thread);
    const rules = comment(page, 'House rules');
    expect(await rules.locator('.badge').allTextContents()).toEqual(['Moderator', 'Verified', 'Pinned']);
    const linsComment = comment(page, 'I maintain');
    expect(await linsComment.locator('.badge').allTextContents()).toEqual(['Verified', 'Core team', '<b>bold</b>']);
    expect(await linsComment.locator('b').count()).toBe(0);
    await page.close();
  });

  it('hides Edit once the edit window has closed, except from moderators', async () => {
    const thread = newThread();
    const author = await session('Quinn');
    const old = await seed(thread, 'Written long ago.', author);
    await seed(thread, 'Written just now.', author);
    // The site's window is 10 minutes; the comment's creation is moved back past it.
    const pastTheWindow = new Date(Date.now() - 11 * 60_000).toISOString();
    await parley.app.db.kysely.updateTable('comments').set({ created_at: pastTheWindow }).where('id', '=', old.id).execute();
    const page = await open(await browser.newPage(), thread, { 'session-token': author });
    expect(await comment(page, 'long ago').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await comment(page, 'long ago').getByRole('button', { name: 'Delete' }).count()).toBe(1);
    expect(await comment(page, 'just now').getByRole('button', { name: 'Edit' }).count()).toBe(1);
    await page.close();

    const moderator = await session('Rhea', true);
    const theirs = await seed(thread, 'A moderator wrote this long ago.', moderator);
    await parley.app.db.kysely.updateTable('comments').set({ created_at: pastTheWindow }).where('id', '=', theirs.id).execute();
    const moderating = await open(await browser.newPage(), thread, { 'session-token': moderator });
    expect(await comment(moderating, 'A moderator wrote').getByRole('button', { name: 'Edit' }).count()).toBe(1);
    await moderating.close();
  });

  it('takes Edit away when the window closes while the page is open, and never offers it on a site whose window is 0', async () => {
    const thread = newThread();
    const author = await session('Uma');
    const written = await seed(thread, 'Almost too late.', author);
    // Written 9 minutes 50 seconds ago: the 10-minute window closes within the widget's next check (every 30 s).
    await parley.app.db.kysely.updateTable('comments').set({ created_at: new Date(Date.now() - 590_000).toISOString() }).where('id', '=', written.id).execute();
    const page = await browser.newPage();
    await page.clock.install();
    await open(page, thread, { 'session-token': author });
    expect(await comment(page, 'Almost too late').getByRole('button', { name: 'Edit' }).count()).toBe(1);
    await page.clock.fastForward(30_000);
    await expect.poll(() => comment(page, 'Almost too late').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await page.close();

    const never = await siteFormatted('markdown', 0);
    const writer = await session('Vera', false, never);
    await seed(thread, 'Final as written.', writer, never);
    const closed = await open(await browser.newPage(), thread, { site: never.site_id, 'session-token': writer });
    expect(await comment(closed, 'Final as written').getByRole('button', { name: 'Delete' }).count()).toBe(1);
    expect(await comment(closed, 'Final as written').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await closed.close();
  });

  it('says clearly why an edit past the window was not saved', async () => {
    const thread = newThread();
    const author = await session('Sol');
    const written = await seed(thread, 'Soon too late to edit.', author);
    const page = await open(await browser.newPage(), thread, { 'session-token': author });
    const mine = comment(page, 'Soon too late');
    await mine.getByRole('button', { name: 'Edit' }).click();
    // The window closes while the author edits.
    await parley.app.db.kysely.updateTable('comments').set({ created_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', written.id).execute();
    await page.getByLabel('Edit your comment').fill('Changed my mind.');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => mine.locator('.msg.error').textContent()).toBe('The time for editing this comment has run out, so your changes were not saved. Copy your text if you want to keep it.');
    expect(await page.getByLabel('Edit your comment').inputValue()).toBe('Changed my mind.');
    await page.close();
  });

  it('offers "Email me when someone mentions me" in the account, and saves it at once', async () => {
    const token = await session('Tove');
    const page = await open(await browser.newPage(), newThread(), { 'session-token': token });
    await page.getByRole('button', { name: 'Your account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your account' });
    await expect.poll(() => dialog.getByLabel('Email me replies to my comments').count()).toBe(1);
    const box = dialog.getByLabel('Email me when someone mentions me');
    const mentionMail = async () => (await parley.request('GET', '/v1/me', { token })).body.mail.mention_mail;
    expect(await box.isChecked()).toBe(true);
    expect(await mentionMail()).toBe(true);
    await box.click();
    await expect.poll(mentionMail).toBe(false);
    await page.close();
  });

  it('draws rich comments in light, dark and at phone width with no serious accessibility violations (screenshots in test-artifacts/editor/)', async () => {
    const thread = newThread();
    const moderator = await session('Maud', true);
    const rules = await seed(thread, 'Welcome! **Be kind**, stay on topic, and _show your code_.', moderator);
    expect((await parley.request('POST', `/v1/comments/${rules.id}/pin`, { token: moderator })).body.pinned).toBe(true);
    const ada = await session('Ada');
    const adaId = (await parley.request('GET', `/v1/widget?site_id=${markdown.site_id}`, { token: ada })).body.viewer.user_id;
    await seed(thread, `Hello @[Ada](${adaId}), the fix:` + '\n\n```ts\n// A long line must scroll inside its block, never widen the widget on a phone\nexport function total(items: Array<{ price: number; count: number }>): number { return items.reduce((sum, item) => sum + item.price * item.count, 0); }\nconst label = `total: ${total([])}`;\nclass Cart extends Base { static size = 3; }\n```\n\n> It was a `null` check.\n\n1. Update\n2. ~~Restart~~ Reload\n\n---\n\nDiff:\n\n```diff\n- old line\n+ new line\n```', await session('Bo'));
    await seed(thread, 'Markup too:\n\n```html\n<a href="/x" class="y">link</a>\n```\n\n```css\n.card:hover { color: #fff; }\n```\n\n```python\n@decorator\ndef f(x=None, *args):\n    """Doc."""\n    return True\n```', ada);
    for (const [theme, width] of [['light', 760], ['dark', 760], ['light', 390], ['dark', 390]] as const) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 1400 });
      await open(page, thread, { theme, 'session-token': ada });
      await field(page).fill('A **draft** with a [link](https://example.org)');
      expect(await seriousViolations(page)).toEqual([]);
      // The widget never grows wider than the page, whatever its code blocks hold.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.locator('parley-comments').screenshot({ path: join(SHOTS, `rich-${theme}-${width}.png`) });
      await page.getByRole('tab', { name: 'Preview' }).click();
      await expect.poll(() => page.getByRole('tabpanel', { name: 'Preview' }).locator('strong').count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      if (width === 390) await page.locator('form').first().screenshot({ path: join(SHOTS, `preview-${theme}-${width}.png`) });
      await page.close();
    }
  });
});
