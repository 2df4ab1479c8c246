import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { createHmac, randomUUID } from 'node:crypto';

/**
 * The widget in a real Chromium, on a page served from another origin than the API (as on a
 * customer's blog). One browser for the whole file; pages are opened per scenario.
 */

/** Undefined on a machine without Chromium: the tests are skipped (npm test says so). */
const CHROMIUM = chromiumForTests();

let parley: TestParley;
let mailbox: Mailbox;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageHost: string;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;
const requested = new Set<string>();

function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (!url.pathname.startsWith('/thread/')) return void response.writeHead(404).end();
    const attributes = (thread: string) =>
      [
        `site-id="${escapeHtml(url.searchParams.get('site') ?? site.site_id)}"`,
        `thread-url="${escapeHtml(pageOrigin + thread)}"`,
        ...['session-token', 'sso-token', 'theme', 'lang'].filter((name) => url.searchParams.has(name)).map((name) => `${name}="${escapeHtml(url.searchParams.get(name)!)}"`),
      ].join(' ');
    const threads = [url.pathname, ...url.searchParams.getAll('also')];
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A customer's article</title>
<style>body{margin:0;padding:16px 24px;font-family:serif}${url.searchParams.get('theme') === 'dark' ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>An article worth discussing</h1>
${threads.map((thread) => `<parley-comments ${attributes(thread)}></parley-comments>`).join('\n')}
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  mailbox = await startMailbox();
  parley = await startParley({
    PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
    PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '0',
    PARLEY_SMTP_URL: mailbox.url,
    PARLEY_MAIL_FROM: 'comments@example.com',
  });
  pages = await servePages();
  pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  // The page server's host and port: CORS answers with that exact origin rather than `*`.
  site = await parley.newSite({ domains: [pageHost] });
  // Readers of these pages post links in their first comments, which the spam checks' default holds
  // for a moderator (links_min_approved 1; src/spam). Every other check keeps its default.
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { links_min_approved: 0 } } })).status).toBe(200);
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 760, height: 900 },
    args: CHROMIUM_ARGS,
  });
  browser.on('request', (request) => void requested.add(new URL(request.url()).origin));
  mkdirSync(ARTIFACTS, { recursive: true });
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

async function session(name: string, moderator = false, owner = site): Promise<string> {
  const minted = await parley.request('POST', '/v1/sessions', { token: owner.api_key, body: { site_id: owner.site_id, user: { id: `ext-${name}`, name, moderator } } });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

async function seed(thread: string, content: string, options: { parent_id?: string; author_name?: string; token?: string } = {}) {
  const created = await parley.request('POST', '/v1/comments', {
    token: options.token ?? site.api_key,
    body: { site_id: site.site_id, thread_url: pageOrigin + thread, content, parent_id: options.parent_id, author_name: options.author_name },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string };
}

async function list(thread: string) {
  return (await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageOrigin + thread)}&limit=100`)).body;
}

/** Opens a thread page and waits until every widget on it has drawn its first page. */
async function open(page: Page, thread: string, params: Record<string, string> = {}): Promise<Page> {
  await page.goto(`${pageOrigin}${thread}?${new URLSearchParams(params)}`);
  await page.waitForFunction(() => Array.from(document.querySelectorAll("parley-comments")).every((w) => (w as unknown as { renderTime: number | null }).renderTime !== null));
  return page;
}

/** The part of a comment that is its own (its replies sit outside it). */
const comment = (page: Page, text: string) => page.locator('.body').filter({ has: page.locator('.text', { hasText: text }) });

describe.skipIf(!CHROMIUM)('the widget in Chromium', () => {
  it('lets a guest post, and the comment is stored and shown on reload', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread);
    await page.getByLabel('Your name (optional)').fill('Gina Guest');
    await page.getByLabel('Write a comment').fill('Hello from a guest\nsee https://example.org/page.');
    await page.getByRole('button', { name: 'Post comment' }).click();
    const posted = comment(page, 'Hello from a guest');
    // Sent once the site's minimum time since the page was loaded (2 s) has passed.
    await expect.poll(() => posted.locator('.author').textContent(), { timeout: 5_000 }).toBe('Gina Guest');
    const link = posted.locator('a');
    expect(await link.getAttribute('href')).toBe('https://example.org/page');
    expect(await link.getAttribute('rel')).toBe('nofollow ugc noopener');
    expect((await list(thread)).comments[0]).toMatchObject({ author_name: 'Gina Guest', content: 'Hello from a guest\nsee https://example.org/page.' });
    await page.reload();
    await expect.poll(() => comment(page, 'Hello from a guest').count()).toBe(1);
    await page.close();
  });

  it('lets a guest ask for replies by email: ticking the box asks for an address, and the confirmation is mailed', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread);
    const email = page.getByLabel('Your email (only for reply mails; you confirm it first)');
    expect(await email.isVisible()).toBe(false);
    await page.getByLabel('Email me replies').check();
    expect(await email.isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Write a comment').fill('Tell me when someone answers');
    // Ticked, the address is required: the browser stops the form before anything is sent.
    await page.getByRole('button', { name: 'Post comment' }).click();
    expect(await email.evaluate((input) => (input as HTMLInputElement).validity.valueMissing)).toBe(true);
    const before = mailbox.mails.length;
    await email.fill('reader@example.com');
    await page.getByRole('button', { name: 'Post comment' }).click();
    // The widget waits out the form's minimum time (2 s) before it posts a guest's comment.
    await expect.poll(() => comment(page, 'Tell me when someone answers').count(), { timeout: 5_000 }).toBe(1);
    const [confirmation] = (await mailbox.waitFor(before + 1)).slice(before);
    expect(confirmation.to).toMatchObject({ value: [{ address: 'reader@example.com' }] });
    await page.close();

    // A reader whose SSO address is known and whose default is on: the box comes ticked, no address asked.
    const token = await session('Sara');
    await parley.app.db.kysely.updateTable('site_users').set({ email: 'sara@example.com', notify_replies: 1 }).where('name', '=', 'Sara').execute();
    const signedIn = await open(await browser.newPage(), newThread(), { 'session-token': token });
    expect(await signedIn.getByLabel('Email me replies').isChecked()).toBe(true);
    expect(await signedIn.getByLabel('Your email (only for reply mails; you confirm it first)').count()).toBe(0);
    await signedIn.close();
  });

  it('marks guest comments with a "Guest" marker that screen readers hear too, and no other comment', async () => {
    const thread = newThread();
    const guest = await parley.request('POST', '/v1/comments', {
      body: { site_id: site.site_id, thread_url: pageOrigin + thread, content: 'Said by a guest', author_name: 'Admin', ...(await parley.guestForm(site.site_id)) },
    });
    expect(guest.status).toBe(201);
    await seed(thread, 'Said by a member', { parent_id: guest.body.id, token: await session('Member Marker') });
    await seed(thread, 'Said by the site', { parent_id: guest.body.id, author_name: 'Site team' });
    const page = await open(await browser.newPage(), thread);
    const marker = comment(page, 'Said by a guest').locator('.meta .guest');
    expect(await marker.count()).toBe(1);
    // Seen as "Guest"; the explanation is for screen readers (visually hidden).
    expect(await marker.locator('.sr').textContent()).toBe('(posted without signing in, the name is not verified)');
    expect(await marker.textContent()).toBe('Guest (posted without signing in, the name is not verified)');
    expect(await comment(page, 'Said by a member').locator('.guest').count()).toBe(0);
    expect(await comment(page, 'Said by the site').locator('.guest').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('lets a signed-in reader reply, edit, vote, unvote, react and delete', async () => {
    const thread = newThread();
    const root = await seed(thread, 'What do you all think?', { author_name: 'Editor' });
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Sam') });
    expect(await page.getByText('Commenting as Sam').count()).toBe(1);
    expect(await page.getByLabel('Your name (optional)').count()).toBe(0);

    await comment(page, 'What do you all think?').getByRole('button', { name: 'Reply' }).click();
    await page.getByLabel('Reply to Editor').fill('I think it is great');
    await page.getByRole('button', { name: 'Post reply' }).click();
    const reply = comment(page, 'I think it is great');
    await expect.poll(() => reply.locator('.author').textContent()).toBe('Sam');
    expect((await list(thread)).comments[0].replies[0]).toMatchObject({ content: 'I think it is great', parent_id: root.id });

    await reply.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edit your comment').fill('I think it is brilliant');
    await page.getByRole('button', { name: 'Save' }).click();
    const edited = comment(page, 'I think it is brilliant');
    await expect.poll(() => edited.locator('.meta').textContent()).toContain('edited');

    const root$ = comment(page, 'What do you all think?');
    const upvote = root$.getByRole('button', { name: /^Upvote/ });
    await upvote.click();
    await expect.poll(() => upvote.getAttribute('aria-pressed')).toBe('true');
    expect(await upvote.textContent()).toContain('1');
    expect((await list(thread)).comments[0]).toMatchObject({ upvotes: 1 });
    await upvote.click();
    await expect.poll(() => upvote.getAttribute('aria-pressed')).toBe('false');
    expect((await list(thread)).comments[0]).toMatchObject({ upvotes: 0, downvotes: 0 });
    const downvote = root$.getByRole('button', { name: /^Downvote/ });
    await downvote.click();
    await expect.poll(() => downvote.getAttribute('aria-pressed')).toBe('true');

    const funny = root$.getByRole('button', { name: /^Funny/ });
    await funny.click();
    await expect.poll(() => funny.getAttribute('aria-pressed')).toBe('true');
    expect(await root$.getByRole('button', { name: 'Funny 1', exact: true }).count()).toBe(1);
    expect((await list(thread)).comments[0].reaction_counts).toEqual({ funny: 1 });
    await funny.click();
    await expect.poll(() => funny.getAttribute('aria-pressed')).toBe('false');
    expect((await list(thread)).comments[0].reaction_counts).toEqual({});

    await edited.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => edited.count()).toBe(0);
    expect((await list(thread)).comments[0].replies).toEqual([]);
    expect(await root$.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await page.close();
  });

  it('lets a moderator remove a comment, which then disappears for guests', async () => {
    const thread = newThread();
    await seed(thread, 'Buy cheap watches', { author_name: 'Spammer' });
    await seed(thread, 'A fair point', { author_name: 'Reader' });
    const guest = await open(await browser.newPage(), thread);
    expect(await comment(guest, 'Buy cheap watches').count()).toBe(1);

    const moderator = await open(await browser.newPage(), thread, { 'session-token': await session('Mona', true) });
    const target = comment(moderator, 'Buy cheap watches');
    const toggle = target.getByRole('button', { name: 'Moderate' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await target.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => target.locator('.badge').textContent()).toBe('Removed');
    expect(await target.getByRole('button', { name: 'Approve' }).count()).toBe(1);

    await guest.reload();
    await guest.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null }).renderTime !== null);
    expect(await comment(guest, 'Buy cheap watches').count()).toBe(0);
    expect(await comment(guest, 'A fair point').count()).toBe(1);
    await guest.close();
    await moderator.close();
  });

  it('shows an XSS payload as text and runs nothing', async () => {
    const thread = newThread();
    const payload = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> "><svg onload=window.__xss=3> javascript:alert(1)`;
    const page = await open(await browser.newPage(), thread);
    await page.getByLabel('Write a comment').fill(payload);
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => page.locator('.text').first().textContent(), { timeout: 5_000 }).toBe(payload);
    await open(page, thread);
    expect(await page.locator('.text').first().textContent()).toBe(payload);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('parley-comments img, parley-comments svg, parley-comments script, .text a').count()).toBe(0);
    await page.close();
  });

  it('shows problems inline: validation, bans', async () => {
    const thread = newThread();
    const token = await session('Bill');
    const page = await open(await browser.newPage(), thread, { 'session-token': token });
    await page.getByLabel('Write a comment').fill('   ');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => page.locator('form .msg.error').textContent()).toBe('Please check your text: content must not be empty');
    const user = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'ext-Bill', name: 'Bill' } } })).body.user;
    expect((await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: user.id } })).status).toBe(201);
    // The ban ended Bill's sessions: the page asks him to sign in again.
    await page.getByLabel('Write a comment').fill('Let me in');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => page.locator('form .msg.error').textContent()).toBe('You need to sign in again to do that.');
    // Signed in again after the ban, he is told he is banned.
    await open(page, thread, { 'session-token': await session('Bill') });
    await page.getByLabel('Write a comment').fill('Let me in');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => page.locator('form .msg.error').textContent()).toBe('You are banned from commenting on this site.');
    await page.close();
  });

  it("shows readers their own pending comments, hidden from others, and asks guests to sign in where they may not post", async () => {
    const moderated = await parley.newSite({ domains: [pageHost], moderation: 'all', allowGuests: false });
    const thread = newThread();
    const reader = await open(await browser.newPage(), thread, { site: moderated.site_id, 'session-token': await session('Pat', false, moderated) });
    await reader.getByLabel('Write a comment').fill('Waiting for a moderator');
    await reader.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => comment(reader, 'Waiting for a moderator').locator('.badge').allTextContents()).toEqual(['Verified', 'Awaiting moderation']);
    const guest = await open(await browser.newPage(), thread, { site: moderated.site_id });
    expect(await guest.getByText('Sign in to join the conversation.').count()).toBe(1);
    expect(await guest.getByLabel('Write a comment').count()).toBe(0);
    expect(await comment(guest, 'Waiting for a moderator').count()).toBe(0);
    expect(await guest.getByRole('button', { name: 'Reply' }).count()).toBe(0);
    await reader.close();
    await guest.close();
  });

  it('speaks the language it is given, with replaceable strings', async () => {
    const thread = newThread();
    await seed(thread, 'Bonjour');
    const page = await open(await browser.newPage(), thread, { lang: 'fr' });
    await page.evaluate(() => {
      const element = customElements.get('parley-comments') as unknown as { setStrings: (lang: string, strings: object) => void };
      element.setStrings('fr', { post: 'Publier', write: 'Votre commentaire', reply: 'Répondre' });
    });
    await expect.poll(() => page.getByRole('button', { name: 'Publier' }).count()).toBe(1);
    expect(await page.getByLabel('Votre commentaire').count()).toBe(1);
    expect(await page.locator('time').first().textContent()).toBe('maintenant');
    expect(await comment(page, 'Bonjour').getByRole('button', { name: 'Répondre' }).count()).toBe(1);
    await page.close();
  });

  it('keeps its relative times current while the page stays open', async () => {
    const thread = newThread();
    await seed(thread, 'Written a moment ago');
    // A browser of its own: a clock installed in the shared context would govern every later page.
    const own = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await own.newContext();
      // The page's clock runs on as usual until it is moved forward.
      await context.clock.install();
      const page = await open(await context.newPage(), thread);
      const time = comment(page, 'Written a moment ago').locator('time');
      expect(await time.textContent()).toBe('now');
      await context.clock.runFor('03:00');
      await expect.poll(() => time.textContent()).toBe('3 minutes ago');
      await context.clock.runFor('02:00:00');
      await expect.poll(() => time.textContent()).toBe('2 hours ago');
    } finally {
      await own.close();
    }
  });

  it('pages top-level comments, sorts them, and loads the replies a page left out part after part', async () => {
    const thread = newThread();
    for (let i = 1; i <= 23; i++) await seed(thread, `Top-level number ${i}`);
    const big = (await list(thread)).comments.find((c: { content: string }) => c.content === 'Top-level number 1');
    // 501 replies: one more than a list nests under one comment.
    for (let batch = 0; batch < 501; batch += 50) {
      await Promise.all(Array.from({ length: Math.min(50, 501 - batch) }, (_, i) => seed(thread, `Reply ${batch + i}`, { parent_id: big.id })));
    }
    // A page of 20 nests 50 replies under each comment; three answers to the 50th fall in the next part.
    const fiftieth = (await parley.request('GET', `/v1/comments/${big.id}?limit=50`)).body.replies[49];
    for (const answer of ['First answer', 'Second answer', 'Third answer']) await seed(thread, answer, { parent_id: fiftieth.id });
    const page = await open(await browser.newPage(), thread);
    expect(await page.locator('section > div > article').count()).toBe(20);
    await page.getByRole('button', { name: 'Load more comments' }).click();
    await expect.poll(() => page.locator('section > div > article').count()).toBe(23);
    expect(await page.getByRole('button', { name: 'Load more comments' }).isVisible()).toBe(false);

    await page.getByLabel('Sort by').selectOption('oldest');
    await expect.poll(() => page.locator('section > div > article .text').first().textContent()).toBe('Top-level number 1');
    const first = page.locator('section > div > article').first();
    const direct = first.locator(':scope > .replies > article');
    expect(await direct.count()).toBe(50);
    // The top-level comment's own button, after its replies: each click loads the next part through the list's cursor.
    const more = first.locator(':scope > button.more');
    await more.click();
    await expect.poll(() => direct.count()).toBe(247);
    // Answers whose parent came in the list's part go under it.
    expect(await direct.nth(49).locator('.replies > article .text').allTextContents()).toEqual(['First answer', 'Second answer', 'Third answer']);
    await more.click();
    await expect.poll(() => direct.count()).toBe(447);
    await more.click();
    await expect.poll(() => direct.count()).toBe(501);
    expect(await more.count()).toBe(0);
    await page.close();
  });

  it('keeps several widgets on one page independent', async () => {
    const [left, right] = [newThread(), newThread()];
    await seed(left, 'Only on the left');
    await seed(right, 'Only on the right');
    const page = await open(await browser.newPage(), left, { also: right });
    const [first, second] = [page.locator('parley-comments').nth(0), page.locator('parley-comments').nth(1)];
    expect(await first.locator('.text').allTextContents()).toEqual(['Only on the left']);
    expect(await second.locator('.text').allTextContents()).toEqual(['Only on the right']);
    await second.getByLabel('Write a comment').fill('Posted on the right');
    await second.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => second.locator('.text').count(), { timeout: 5_000 }).toBe(2);
    expect(await first.locator('.text').allTextContents()).toEqual(['Only on the left']);
    expect((await list(right)).total).toBe(2);
    expect((await list(left)).total).toBe(1);
    await page.close();
  });

  it('works with the keyboard alone', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Kim') });
    const focused = () =>
      page.evaluate(() => {
        const inner = document.activeElement?.shadowRoot?.activeElement as HTMLElement | null | undefined;
        return inner ? `${inner.tagName.toLowerCase()}:${inner.getAttribute('aria-label') ?? inner.textContent?.trim() ?? ''}:${inner.id ? (inner.getRootNode() as ShadowRoot).querySelector(`label[for="${inner.id}"]`)?.textContent : ''}` : '';
      });
    const tabTo = async (pattern: RegExp) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (pattern.test(await focused())) return;
      }
      throw new Error(`never reached ${pattern} by Tab; last ${await focused()}`);
    };
    await tabTo(/^textarea:.*Write a comment/);
    await page.keyboard.type('Typed without a mouse');
    await tabTo(/^button:Post comment/);
    await page.keyboard.press('Enter');
    await expect.poll(() => comment(page, 'Typed without a mouse').count()).toBe(1);

    await tabTo(/^button:.*Upvote/);
    await page.keyboard.press('Enter');
    await expect.poll(() => comment(page, 'Typed without a mouse').getByRole('button', { name: /^Upvote/ }).getAttribute('aria-pressed')).toBe('true');
    expect(await focused()).toMatch(/^button:.*Upvote/);

    await tabTo(/^button:Reply/);
    await page.keyboard.press('Enter');
    expect(await focused()).toMatch(/^textarea:.*Reply to Kim/);
    await page.keyboard.press('Escape');
    expect(await focused()).toMatch(/^button:Reply/);
    await page.keyboard.press('Enter');
    await page.keyboard.type('And a reply, by keyboard');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => comment(page, 'And a reply, by keyboard').count(), { timeout: 5_000 }).toBe(1);
    expect((await list(thread)).comments[0].replies[0].content).toBe('And a reply, by keyboard');
    await page.close();
  });

  it('renders light and dark themes with no serious accessibility violations (screenshots in test-artifacts/)', async () => {
    const thread = newThread();
    const root = await seed(thread, 'Parley keeps threads readable. Docs: https://example.com/docs', { author_name: 'Ada' });
    const reply = await seed(thread, 'Agreed, and nested replies read well too.', { parent_id: root.id, author_name: 'Grace' });
    await seed(thread, 'Even three levels deep.', { parent_id: reply.id, author_name: 'Linus' });
    await parley.request('POST', `/v1/comments/${root.id}/vote`, { token: site.api_key, body: { vote_type: 'up' } });
    await parley.request('POST', `/v1/comments/${root.id}/react`, { token: site.api_key, body: { reaction_type: 'insightful' } });
    const token = await session('Theo');
    await seed(thread, 'An edited thought of mine', { token });
    const mine = (await list(thread)).comments[0];
    await parley.request('PATCH', `/v1/comments/${mine.id}`, { token, body: { content: 'An edited thought of mine (fixed a typo)' } });

    for (const theme of ['light', 'dark'] as const) {
      const page = await open(await browser.newPage(), thread, { 'session-token': token, theme });
      await page.locator('parley-comments').screenshot({ path: join(ARTIFACTS, `widget-${theme}.png`) });
      expect(await seriousViolations(page)).toEqual([]);
      await page.close();
    }
  });

  it('serves a working demo page at / of the API itself, within its Content-Security-Policy', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refused.push(message.text());
    });
    await page.goto(`${parley.url}/`);
    await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
    expect(await page.getByRole('button', { name: 'Post comment' }).count()).toBe(1);
    // The page's own styles apply, as the widget's do.
    expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe('736px');
    expect(refused).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('draws a 200-comment thread quickly once its data has arrived (Performance API)', async () => {
    const thread = newThread();
    for (let root = 0; root < 20; root++) {
      const top = await seed(thread, `Thread ${root}: a top-level comment with a few words of text in it.`);
      let parent = top.id;
      for (let depth = 0; depth < 9; depth++) parent = (await seed(thread, `Reply ${depth} under ${root}, nested one level deeper.`, { parent_id: depth % 3 === 0 ? top.id : parent })).id;
    }
    const page = await browser.newPage();
    // Also timed: until the browser has laid the thread out and painted the next frame.
    await page.addInitScript(() => {
      const measure = performance.measure.bind(performance);
      performance.measure = ((name: string, options: PerformanceMeasureOptions) => {
        const entry = measure(name, options);
        const start = options.start as number;
        requestAnimationFrame(() => setTimeout(() => ((window as unknown as { paintedMs: number }).paintedMs = performance.now() - start)));
        return entry;
      }) as typeof performance.measure;
    });
    // Best of three loads: the machine is shared, and the other test files run alongside.
    const runs: Array<{ domMs: number; paintedMs: number }> = [];
    for (let run = 0; run < 3; run++) {
      await open(page, thread);
      expect(await page.locator('article').count()).toBe(200);
      await page.waitForFunction(() => 'paintedMs' in window);
      runs.push(
        await page.evaluate(() => ({
          domMs: performance.getEntriesByName('parley:render')[0].duration,
          paintedMs: (window as unknown as { paintedMs: number }).paintedMs,
        })),
      );
    }
    const best = runs.reduce((a, b) => (a.domMs <= b.domMs ? a : b));
    writeFileSync(join(ARTIFACTS, 'widget-render-200.json'), `${JSON.stringify({ goalMs: 100, best, runs }, null, 2)}\n`);
    console.log(`first render of 200 comments (best of 3): ${best.domMs.toFixed(1)} ms to DOM, ${best.paintedMs.toFixed(1)} ms to the next frame; goal < 100 ms`);
    // The goal is 100 ms; the bound leaves room for a loaded CI machine and still catches a regression.
    expect(best.domMs).toBeLessThan(250);
    await page.close();
  });

  it('shows a comment posted elsewhere as "1 new comment" without reloading, on the right one of two widgets', async () => {
    const thread = newThread();
    const other = newThread();
    await seed(thread, 'Already here');
    const reader = await open(await browser.newPage(), thread, { also: other });
    const [mine, theirs] = [reader.locator('parley-comments').first(), reader.locator('parley-comments').last()];
    const before = await mine.locator('.c').first().boundingBox();
    // Another browser: its own cookies and storage, as another reader's would be.
    const elsewhere = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    onTestFinished(() => elsewhere.close());
    const writer = await open(await (await elsewhere.newContext()).newPage(), thread);
    await writer.getByLabel('Write a comment').fill('Posted from another browser');
    await writer.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => comment(writer, 'Posted from another browser').count(), { timeout: 5_000 }).toBe(1);
    // The writer's own comment came back on its stream too, and is shown once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await comment(writer, 'Posted from another browser').count()).toBe(1);
    const button = mine.getByRole('button', { name: 'Show 1 new comment' });
    await expect.poll(() => button.count(), { timeout: 5000 }).toBe(1);
    // The button had its place already: the thread did not move.
    expect(await mine.locator('.c').first().boundingBox()).toEqual(before);
    expect(await theirs.getByRole('button', { name: /new comment/ }).count()).toBe(0);
    expect(await seriousViolations(reader)).toEqual([]);
    await reader.screenshot({ path: join(ARTIFACTS, 'live-new-comment-light.png') });
    await button.click();
    await expect.poll(() => comment(reader, 'Posted from another browser').count()).toBe(1);

    // A reply arrives under its parent; a vote's count changes in place.
    const parent = (await list(thread)).comments.find((c: { content: string }) => c.content === 'Already here');
    await seed(thread, 'A live reply', { parent_id: parent.id });
    await expect.poll(() => comment(reader, 'A live reply').count(), { timeout: 5000 }).toBe(1);
    await parley.request('POST', `/v1/comments/${parent.id}/vote`, { token: await session('Voter'), body: { vote_type: 'up' } });
    await expect.poll(() => comment(reader, 'Already here').locator('.count').first().textContent(), { timeout: 5000 }).toContain('1');
    await reader.close();
  });

  it('renders the live button in dark and at phone width with no serious accessibility violations', async () => {
    const thread = newThread();
    await seed(thread, 'First');
    for (const [theme, width] of [['dark', 760], ['light', 375]] as const) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 800 });
      await open(page, thread, { theme });
      await seed(thread, `Arrived while reading (${theme}, ${width})`);
      // A loaded machine (the suite runs files in parallel) may take a while to open the stream and pass the comment on.
      await expect.poll(() => page.getByRole('button', { name: 'Show 1 new comment' }).count(), { timeout: 15_000 }).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `live-new-comment-${theme}-${width}.png`) });
      await page.close();
    }
  });

  it('signs a reader in from an sso-token and posts as them', async () => {
    const secret = (await parley.request('POST', `/api/sites/${site.site_id}/sso-secrets`, { token: site.api_key })).body;
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const body = `${part({ alg: 'HS256', typ: 'JWT', kid: secret.id })}.${part({ iss: site.site_id, aud: 'parley', sub: 'sso-ada', name: 'Ada Signed', iat: now, exp: now + 600, jti: randomUUID() })}`;
    const token = `${body}.${createHmac('sha256', secret.secret).update(body).digest('base64url')}`;
    const thread = newThread();
    // Two widgets with the same token: it is exchanged once, and both are signed in.
    const page = await open(await browser.newPage(), thread, { 'sso-token': token, also: newThread() });
    expect(await page.getByText('Commenting as Ada Signed').count()).toBe(2);
    await page.getByLabel('Write a comment').first().fill('Signed in by my site');
    await page.getByRole('button', { name: 'Post comment' }).first().click();
    await expect.poll(() => comment(page, 'Signed in by my site').locator('.author').textContent()).toBe('Ada Signed');
    expect((await list(thread)).comments[0]).toMatchObject({ author_name: 'Ada Signed', author_is_guest: false });
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('talks to no third party and sets no cookies', async () => {
    expect([...requested].sort()).toEqual([parley.url, pageOrigin].sort());
    expect(await browser.cookies()).toEqual([]);
  });
});
