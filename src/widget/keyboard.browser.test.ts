import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { focusOf, type Focus } from '../../test/focus.ts';
import { signInMail } from '../../test/sign-in-codes.ts';
import { escapeHtml } from '../formatting/escape.ts';

/**
 * The widget as a keyboard-only reader meets it, in a real Chromium: every step is a key press
 * (Tab, Shift+Tab, Enter, Space, Escape, arrows), each focus stop is visibly outlined, and the focus
 * lands where the reader goes next. Also what WCAG asks beyond the keyboard: names, live regions,
 * reduced motion, reflow at 200 % and 320 px, and contrast in both themes and three languages.
 */

const CHROMIUM = chromiumForTests();

let parley: TestParley;
let mailbox: Mailbox;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;

function servePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', pageOrigin);
    if (!url.pathname.startsWith('/thread/')) return void response.writeHead(404).end();
    const attributes = [
      `site-id="${escapeHtml(site.site_id)}"`,
      `thread-url="${escapeHtml(pageOrigin + url.pathname)}"`,
      ...['session-token', 'theme', 'lang'].filter((name) => url.searchParams.has(name)).map((name) => `${name}="${escapeHtml(url.searchParams.get(name)!)}"`),
    ].join(' ');
    const dark = url.searchParams.get('theme') === 'dark';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>An article</title>
<style>body{margin:0;padding:16px;font-family:serif}${dark ? 'body{background:#17171c;color:#eee}' : ''}</style></head>
<body><main><h1>An article worth discussing</h1><parley-comments ${attributes}></parley-comments>
</main><script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  mailbox = await startMailbox();
  parley = await startParley({
    PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
    PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '0',
    PARLEY_SMTP_URL: mailbox.url,
    PARLEY_MAIL_FROM: 'comments@example.com',
  });
  pages = await servePages();
  const host = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${host}`;
  site = await parley.newSite({ domains: [host] });
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 760, height: 900 }, args: CHROMIUM_ARGS });
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
const newThread = () => `/thread/keyboard-${Date.now()}-${++threadCounter}`;

async function session(name: string): Promise<string> {
  const minted = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: `ext-${name}`, name } } });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

async function seed(thread: string, content: string, options: { parent_id?: string; author_name?: string } = {}) {
  const created = await parley.request('POST', '/v1/comments', {
    token: site.api_key,
    body: { site_id: site.site_id, thread_url: pageOrigin + thread, content, parent_id: options.parent_id, author_name: options.author_name ?? 'Ada' },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string };
}

/** A thread with a comment, a reply to it and a second comment. */
async function seedThread(thread: string) {
  const first = await seed(thread, 'Tides follow the moon, mostly.', { author_name: 'Ada' });
  await seed(thread, 'And the sun, a little.', { parent_id: first.id, author_name: 'Grace' });
  await seed(thread, 'Spring tides come twice a month.', { author_name: 'Linus' });
}

async function open(page: Page, thread: string, params: Record<string, string> = {}): Promise<Page> {
  await page.goto(`${pageOrigin}${thread}?${new URLSearchParams(params)}`);
  await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
  return page;
}

/** The focus is on something that matches, and a reader sees where: an outline of 3:1 against what is behind it (WCAG 2.4.7, 1.4.11). */
async function expectFocus(page: Page, pattern: RegExp): Promise<Focus> {
  // An action moves the focus once the server has answered and the widget has drawn again.
  await expect.poll(async () => (await focusOf(page)).what, { message: 'where the focus is', timeout: 5_000 }).toMatch(pattern);
  const focus = await focusOf(page);
  expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
  expect(focus.obscured, `${focus.what} shows`).toBe(false);
  return focus;
}

/** Presses Tab (or Shift+Tab) until the focus is on what matches, checking that every stop on the way shows its focus. */
async function tabTo(page: Page, pattern: RegExp, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press(key);
    const focus = await focusOf(page);
    if (focus.inShadow) expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
    if (focus.inShadow) expect(focus.obscured, `${focus.what} shows`).toBe(false);
    if (pattern.test(focus.what)) return;
    seen.push(focus.what);
  }
  throw new Error(`${key} never reached ${pattern}; went through ${seen.join(' → ')}`);
}

const shot = (page: Page, name: string) => page.locator('parley-comments').screenshot({ path: join(ARTIFACTS, name) });

/** The part of a comment that is its own (its replies sit outside it). */
const comment = (page: Page, text: string) => page.locator('.body').filter({ has: page.locator('.text', { hasText: text }) });

describe.skipIf(!CHROMIUM)('the widget by keyboard alone', () => {
  it('lets a guest read the whole thread with Tab and Shift+Tab, every stop visibly focused, and post a comment that then has the focus', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await open(await browser.newPage(), thread);
    // Into the widget from the page, through every control of the thread, and back out.
    await tabTo(page, /^select:Sort by/);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('select').inputValue()).toBe('oldest');
    await expect.poll(() => page.locator('.c .text').first().textContent()).toBe('Tides follow the moon, mostly.');
    await expectFocus(page, /^select:Sort by/);
    const stops: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const focus = await focusOf(page);
      if (!focus.inShadow) break;
      expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
      expect(focus.obscured, `${focus.what} shows`).toBe(false);
      stops.push(focus.what);
    }
    expect(stops).toEqual(expect.arrayContaining(['input:Your name (optional)', 'textarea:Write a comment', 'input:Email me replies', 'button:Post comment', 'button:Reply', 'button:Report']));
    await tabTo(page, /^button:Post comment/, 'Shift+Tab');
    await shot(page, 'focus-post-light.png');

    await tabTo(page, /^input:Your name/, 'Shift+Tab');
    await page.keyboard.type('Kim Keys');
    await tabTo(page, /^textarea:Write a comment/);
    await page.keyboard.type('Posted without a mouse');
    await tabTo(page, /^button:Post comment/);
    await page.keyboard.press('Enter');
    // The new comment has the focus, so the reader hears it and goes on from there.
    await expect.poll(() => focusOf(page).then((focus) => focus.what), { timeout: 10_000 }).toMatch(/^article:.*Posted without a mouse/);
    await expectFocus(page, /^article:/);
    await shot(page, 'focus-new-comment-light.png');
    await page.close();
  });

  it('lets a guest report a comment with Space: the thanks is said in a status, and the focus stays on Report', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await open(await browser.newPage(), thread);
    await tabTo(page, /^button:Report/);
    await page.keyboard.press('Space');
    const said = page.locator('.body [role=status]', { hasText: 'Reported.' });
    await expect.poll(() => said.count()).toBe(1);
    await expectFocus(page, /^button:Report/);
    await page.close();
  });

  it('lets a signed-in reader reply, close a form with Escape, edit, vote, react and delete, the focus always where they go next', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Sam') });
    const spring = comment(page, 'Spring tides');

    // Replying: the field has the focus; Escape closes the form and gives it back to Reply.
    await tabTo(page, /^button:Reply/);
    await page.keyboard.press('Enter');
    await expectFocus(page, /^textarea:Reply to Linus/);
    await page.keyboard.press('Escape');
    await expectFocus(page, /^button:Reply/);
    await page.keyboard.press('Enter');
    await page.keyboard.type('Twice, with the new and the full moon');
    await tabTo(page, /^button:Post reply/);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusOf(page).then((focus) => focus.what), { timeout: 10_000 }).toMatch(/^article:.*Twice, with the new and the full moon/);
    await expectFocus(page, /^article:/);

    // Editing: Cancel closes the form with the focus back on Edit; Save keeps it there.
    await tabTo(page, /^button:Edit/);
    await page.keyboard.press('Enter');
    await expectFocus(page, /^textarea:Edit your comment/);
    await tabTo(page, /^button:Cancel/);
    await page.keyboard.press('Enter');
    await expectFocus(page, /^button:Edit/);
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    await page.keyboard.type(', says the almanac');
    await tabTo(page, /^button:Save/);
    await page.keyboard.press('Enter');
    await expect.poll(() => comment(page, 'says the almanac').locator('.meta').textContent()).toContain('edited');
    await expectFocus(page, /^button:Edit/);

    // Voting and reacting: Enter and Space press, the button says it is pressed, the focus stays on it.
    await tabTo(page, /^button:.*Upvote/, 'Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[data-k=up][aria-pressed=true]').count()).toBe(1);
    await expectFocus(page, /^button:.*Upvote/);
    await tabTo(page, /^button:.*Downvote/);
    await page.keyboard.press('Space');
    await expect.poll(() => page.locator('[data-k=down][aria-pressed=true]').count()).toBe(1);
    await expectFocus(page, /^button:.*Downvote/);
    await tabTo(page, /^button:Funny/);
    await page.keyboard.press('Space');
    await expect.poll(() => page.locator('[data-k=react-funny][aria-pressed=true]').count()).toBe(1);
    await expectFocus(page, /^button:Funny 1/);
    await shot(page, 'focus-reaction-light.png');

    // Deleting the reply: the confirmation's Yes has the focus, and then the comment it answered does.
    await tabTo(page, /^button:Delete/);
    await page.keyboard.press('Enter');
    await expectFocus(page, /^button:Yes, delete/);
    await page.keyboard.press('Enter');
    await expect.poll(() => comment(page, 'says the almanac').count()).toBe(0);
    await expectFocus(page, /^article:.*Spring tides/);
    expect(await spring.count()).toBe(1);
    await page.close();
  });

  it('signs a reader in by a mailed code with the keyboard, and Escape closes the dialog onto the button that opened it', async () => {
    const thread = newThread();
    const page = await open(await browser.newPage(), thread);
    await tabTo(page, /^button:Sign in$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Sign in to comment' });
    await dialog.waitFor();
    await expectFocus(page, /^input:Your email address/);
    await page.keyboard.press('Escape');
    expect(await dialog.count()).toBe(0);
    await expectFocus(page, /^button:Sign in$/);

    await page.keyboard.press('Space');
    await dialog.waitFor();
    await page.keyboard.type('keys@example.com');
    await tabTo(page, /^button:Email me a sign-in code/);
    const before = mailbox.mails.length;
    await page.keyboard.press('Enter');
    const { code } = signInMail((await mailbox.waitFor(before + 1))[before]);
    await expect.poll(() => focusOf(page).then((focus) => focus.what)).toMatch(/^input:Code from the email/);
    await expectFocus(page, /^input:Code from the email/);
    await page.keyboard.type(code);
    await tabTo(page, /^input:Your name/);
    await page.keyboard.type('Kai');
    await page.screenshot({ path: join(ARTIFACTS, 'focus-sign-in-light.png') });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByText('Commenting as Kai').count()).toBe(1);
    await expectFocus(page, /^button:Your account/);
    await page.close();
  });

  it('announces comments that arrive live in a polite live region, and leaves the focus where it was', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await open(await browser.newPage(), thread);
    await tabTo(page, /^textarea:Write a comment/);
    await page.keyboard.type('Half-written thought');
    const region = page.locator('parley-comments [aria-live=polite]');
    const before = await region.allTextContents();
    await seed(thread, 'Posted by someone else meanwhile', { author_name: 'Other' });
    await expect.poll(() => region.allTextContents().then((texts) => texts.join(' ')), { timeout: 15_000 }).toContain('1 new comment');
    expect(before.join(' ')).not.toContain('1 new comment');
    // The live region is not the focus, and the half-written comment keeps it.
    await expectFocus(page, /^textarea:Write a comment/);
    expect(await page.locator('textarea').first().inputValue()).toBe('Half-written thought');
    await tabTo(page, /^button:Show 1 new comment/, 'Shift+Tab');
    await page.keyboard.press('Enter');
    await expectFocus(page, /^article:.*Posted by someone else meanwhile/);
    await page.close();
  });
});

describe.skipIf(!CHROMIUM)('the widget beyond the keyboard', () => {
  it('names every control: no role without an accessible name in the accessibility tree', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await open(await browser.newPage(), thread, { 'session-token': await session('Nia') });
    await comment(page, 'Spring tides').getByRole('button', { name: 'Reply' }).press('Enter');
    const cdp = await browser.newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string } }> };
    const controls = nodes.filter((node) => !node.ignored && ['button', 'textbox', 'combobox', 'checkbox', 'link', 'tab', 'radio'].includes(node.role?.value ?? ''));
    expect(controls.length).toBeGreaterThan(10);
    expect(controls.filter((node) => !node.name?.value.trim()).map((node) => node.role?.value)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('moves nothing when the reader asks for reduced motion', async () => {
    const thread = newThread();
    await seedThread(thread);
    const page = await browser.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await open(page, thread, { 'session-token': await session('Rey') });
    await comment(page, 'Spring tides').getByRole('button', { name: 'Reply' }).press('Enter');
    const moving = await page.evaluate(() => {
      const all = Array.from(document.querySelector('parley-comments')!.shadowRoot!.querySelectorAll('*'));
      const seconds = (value: string) => Math.max(...value.split(',').map((part) => parseFloat(part) || 0));
      return all
        .map((element) => [element, getComputedStyle(element)] as const)
        .filter(([, style]) => seconds(style.transitionDuration) > 0 || (style.animationName !== 'none' && seconds(style.animationDuration) > 0))
        .map(([element, style]) => `${element.tagName} ${style.transitionDuration} ${style.animationName}`);
    });
    expect(moving).toEqual([]);
    await page.close();
  });

  // The text spacing WCAG 1.4.12 asks a reader may set, in the widget's own shadow root as a reader's style sheet would reach it.
  const SPACING = '*{line-height:1.5!important;letter-spacing:.12em!important;word-spacing:.16em!important}p{margin-bottom:2em!important}';
  for (const [name, size, fontSize, spacing, file] of [
    ['at 200 % zoom (a 1280 px window is 640 CSS px wide)', { width: 640, height: 900 }, null, null, 'reflow-640'],
    ['at 320 px (400 % zoom)', { width: 320, height: 700 }, null, null, 'reflow-320'],
    ['with its text twice as large at 640 px', { width: 640, height: 900 }, '30px', null, 'reflow-640-large-text'],
    ['with wider text spacing at 320 px', { width: 320, height: 700 }, null, SPACING, 'reflow-320-text-spacing'],
  ] as const) {
    it(`reflows ${name}: no horizontal scroll, no control cut off`, async () => {
      const thread = newThread();
      await seedThread(thread);
      await seed(thread, 'A long address: https://example.com/a/very/long/path/that/does/not/break/anywhere/naturally/at/all');
      const page = await browser.newPage();
      await page.setViewportSize(size);
      await open(page, thread, { 'session-token': await session('Zoe') });
      if (fontSize) await page.addStyleTag({ content: `parley-comments{--parley-font-size:${fontSize}}` });
      if (spacing) await page.locator('parley-comments').evaluate((host, css) => host.shadowRoot!.append(Object.assign(document.createElement('style'), { textContent: css })), spacing);
      await comment(page, 'Spring tides').getByRole('button', { name: 'Reply' }).press('Enter');
      const layout = await page.evaluate(() => {
        const root = document.querySelector('parley-comments')!.shadowRoot!;
        const cut = Array.from(root.querySelectorAll<HTMLElement>('button, input:not([tabindex="-1"]), select, textarea, a'))
          .filter((control) => control.getClientRects().length > 0)
          .filter((control) => {
            const box = control.getBoundingClientRect();
            return box.left < -0.5 || box.right > innerWidth + 0.5 || (control.tagName === 'BUTTON' && control.scrollWidth > control.clientWidth + 1);
          })
          .map((control) => `${control.tagName}:${control.textContent?.trim() || control.getAttribute('aria-label') || control.id}`);
        return { scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth, cut };
      });
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.cut).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `${file}.png`), fullPage: true });
      await page.close();
    });
  }

  it('draws the edges of its text fields at 3:1 or more against the background, light and dark (WCAG 1.4.11)', async () => {
    const thread = newThread();
    await seedThread(thread);
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(await browser.newPage(), thread, { theme });
      const contrasts = await page.locator('parley-comments').evaluate((host) => {
        const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const luminance = (color: string) => {
          const [r, g, b] = channels(color).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const root = host.shadowRoot!;
        return Array.from(root.querySelectorAll('input:not([type=hidden]):not([tabindex="-1"]), textarea, select')).map((field) => {
          const style = getComputedStyle(field);
          // A field's background is the widget's own (--parley-bg): its edge is measured against it.
          const [a, b] = [luminance(style.borderTopColor), luminance(style.backgroundColor)].sort((x, y) => y - x);
          return { field: field.tagName, contrast: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 };
        });
      });
      expect(contrasts.length).toBeGreaterThan(0);
      for (const { field, contrast } of contrasts) expect(contrast, `${theme} ${field}`).toBeGreaterThanOrEqual(3);
      await page.close();
    }
  });

  for (const locale of ['en', 'de', 'ar']) {
    const file = `src/widget/locales/${locale}.json`;
    const missing = !existsSync(join(process.cwd(), file));
    const title = missing ? `has no serious axe violation in ${locale} — SKIPPED: ${file} does not exist yet` : `has no serious axe violation in ${locale}, light and dark, with a form open and a control focused`;
    it.skipIf(missing)(title, async () => {
      const thread = newThread();
      await seedThread(thread);
      const token = await session(`Lou-${locale}`);
      for (const theme of ['light', 'dark'] as const) {
        const page = await open(await browser.newPage(), thread, { 'session-token': token, theme, lang: locale });
        await page.locator('parley-comments [data-k=reply]').last().press('Enter');
        await page.keyboard.press('Shift+Tab');
        expect(await seriousViolations(page)).toEqual([]);
        await shot(page, `focus-${locale}-${theme}.png`);
        await page.close();
      }
    });
  }
});
