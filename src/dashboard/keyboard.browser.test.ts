import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, cards, dashboardBed, signedInDashboard } from '../../test/dashboard.ts';
import { focusOf } from '../../test/focus.ts';
import { pageUrl } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

/**
 * The moderation queue as a keyboard-only moderator meets it: every decision by a key press, the
 * focus on the next card afterwards (the document's focus, not only a card's look), and dialogs
 * that keep the focus inside while open and give it back to what opened them.
 */

const CHROMIUM = chromiumForTests();
const bed = dashboardBed();

/** A site whose guests wait for approval, its moderator, and comments waiting: guests' and one signed-in author's. */
async function queueOf(comments: string[]) {
  const { parley } = bed;
  const site = await parley.newSite({ moderation: 'guests' });
  const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  const thread = pageUrl();
  const author = await parley.signIn(site.api_key, site.site_id, { id: 'rita', name: 'Rita Reader' });
  const ids: string[] = [];
  for (const [i, content] of comments.entries()) {
    // The first is the signed-in author's (published, so it is on the All tab), the others guests' (pending).
    const response = await parley.request('POST', '/v1/comments', { token: i === 0 ? author : undefined, body: { site_id: site.site_id, thread_url: thread, content, author_name: i === 0 ? undefined : `Guest ${i}` } });
    expect(response.status).toBe(201);
    ids.push(response.body.id);
  }
  const status = async (id: string) => (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&limit=100`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id)?.status;
  return { site, moderator, ids, status };
}

/** The focus is on the card at `index` of the list as it is now, and a reader sees it. */
async function expectCardFocused(page: Page, index: number) {
  // The focus moves once the card in its place has drawn, a frame or two after the decision.
  const expected = await cards(page).nth(index).getAttribute('data-id');
  await expect.poll(async () => (await focusOf(page)).id, { message: `the focus is on card ${index}`, timeout: 5000 }).toBe(expected);
  const focus = await focusOf(page);
  expect(focus.contrast, `the card's focus is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
  expect(focus.obscured, 'the card shows, not hidden under the header').toBe(false);
}

async function expectFocus(page: Page, pattern: RegExp) {
  // A dialog gives the focus back once it has left the page, a frame or two after the key.
  await expect.poll(async () => (await focusOf(page)).what).toMatch(pattern);
  const focus = await focusOf(page);
  expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
  expect(focus.obscured, `${focus.what} shows, not hidden under the header`).toBe(false);
}

async function tabTo(page: Page, pattern: RegExp, key: 'Tab' | 'Shift+Tab' = 'Tab') {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press(key);
    const focus = await focusOf(page);
    if (focus.what) expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
    if (focus.what) expect(focus.obscured, `${focus.what} shows, not hidden under the header`).toBe(false);
    if (pattern.test(focus.what)) return;
    seen.push(focus.what.slice(0, 40));
  }
  throw new Error(`${key} never reached ${pattern}; went through ${seen.join(' → ')}`);
}

/**
 * With a modal dialog open, Tab and Shift+Tab go round its controls and never reach the page behind
 * it (between rounds the browser's own window may hold the focus: nothing of the page does).
 */
async function expectTrapped(page: Page, dialog: string) {
  for (const key of ['Tab', 'Shift+Tab'] as const) {
    const stops = new Set<string>();
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(key);
      const focus = await focusOf(page);
      if (focus.what === '') continue;
      expect(focus.inDialog, `${key} stays in the ${dialog} dialog (it reached ${focus.what.slice(0, 60)})`).toBe(true);
      expect(focus.contrast, `the focus of ${focus.what} is visible (${focus.ring})`).toBeGreaterThanOrEqual(3);
      expect(focus.obscured, `${focus.what} shows`).toBe(false);
      stops.add(focus.what);
    }
    expect(stops.size, `${key} reaches the ${dialog} dialog's controls`).toBeGreaterThan(0);
  }
}

describe.skipIf(!CHROMIUM)('the moderation queue by keyboard alone', () => {
  it('approves, removes and marks as spam with keys and with buttons, the focus going to the next card each time', async () => {
    const { moderator, ids, status } = await queueOf(['Signed-in words', 'First guest', 'Second guest', 'Third guest', 'Fourth guest', 'Fifth guest']);
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email);
    await expect.poll(() => cards(page).count()).toBe(5);
    const order = await cards(page).evaluateAll((articles) => articles.map((article) => (article as HTMLElement).dataset.id!));

    await page.keyboard.press('j');
    await expectCardFocused(page, 0);
    await page.screenshot({ path: artifact('dashboard-focus-card-light.png') });
    await page.keyboard.press('a');
    await expect.poll(() => status(order[0])).toBe('published');
    await expect.poll(() => cards(page).count()).toBe(4);
    await expectCardFocused(page, 0);
    expect(await focusOf(page).then((focus) => focus.id)).toBe(order[1]);

    await page.keyboard.press('j');
    await page.keyboard.press('r');
    await expect.poll(() => status(order[2])).toBe('removed');
    await expect.poll(() => cards(page).count()).toBe(3);
    await expectCardFocused(page, 1);

    // The card's own buttons, reached with Tab: the focus goes on to the card that takes its place.
    await tabTo(page, /^button:Spam$/);
    await page.keyboard.press('Enter');
    await expect.poll(() => status(order[3])).toBe('spam');
    await expect.poll(() => cards(page).count()).toBe(2);
    await expectCardFocused(page, 1);

    // The last card decided: the focus goes back to the one before it.
    await page.keyboard.press('s');
    await expect.poll(() => cards(page).count()).toBe(1);
    await expectCardFocused(page, 0);
    expect(ids).toContain(order[4]);
    await context.close();
  });

  it('selects cards with x and Space, acts on them from the bulk bar, and keeps the focus in the queue', async () => {
    const { moderator, status } = await queueOf(['Signed-in words', 'Bulk one', 'Bulk two', 'Bulk three']);
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email);
    await expect.poll(() => cards(page).count()).toBe(3);
    const order = await cards(page).evaluateAll((articles) => articles.map((article) => (article as HTMLElement).dataset.id!));
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor();
    await page.keyboard.press('j');
    // The card's own checkbox, with Space.
    await tabTo(page, /^input:Select the comment by/);
    await page.keyboard.press('Space');
    await page.getByText('2 selected').waitFor();
    // Back past the cards' own Remove buttons to the bulk bar's.
    const onBulkRemove = () => page.evaluate(() => document.activeElement?.closest('.bulk') !== null && document.activeElement?.textContent === 'Remove');
    for (let i = 0; i < 30 && !(await onBulkRemove()); i++) await tabTo(page, /^button:Remove$/, 'Shift+Tab');
    expect(await onBulkRemove()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => Promise.all(order.slice(0, 2).map(status))).toEqual(['removed', 'removed']);
    await expect.poll(() => cards(page).count()).toBe(1);
    // The bulk buttons are disabled with nothing selected: the focus goes to the first card rather than to the page's top.
    await expectCardFocused(page, 0);
    await context.close();
  });

  it('traps the focus in the ban dialog, the shortcut list and the drawer while they are open, and gives it back to what opened them', async () => {
    const { moderator } = await queueOf(['Signed-in words', 'A guest comment']);
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, '/dashboard/queue?tab=all');
    await expect.poll(() => cards(page).count()).toBe(2);
    const rita = await cards(page).evaluateAll((articles) => articles.findIndex((article) => article.textContent!.includes('Signed-in words')));
    for (let i = 0; i <= rita; i++) await page.keyboard.press('j');
    await expectCardFocused(page, rita);

    // b opens the ban dialog on the focused card's author; Escape gives the focus back to the card.
    await page.keyboard.press('b');
    const ban = page.getByRole('dialog', { name: 'Ban Rita Reader' });
    await ban.waitFor();
    expect((await focusOf(page)).inDialog).toBe(true);
    await expectTrapped(page, 'ban');
    await page.screenshot({ path: artifact('dashboard-focus-dialog-light.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => ban.count()).toBe(0);
    await expectCardFocused(page, rita);

    // Its button: the Close button closes it onto the button.
    await tabTo(page, /^button:Ban author/);
    await page.keyboard.press('Enter');
    await ban.waitFor();
    await tabTo(page, /^button:Close/);
    await page.keyboard.press('Enter');
    await expect.poll(() => ban.count()).toBe(0);
    await expectFocus(page, /^button:Ban author/);

    // ? lists the shortcuts.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    await expectTrapped(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
    await expectFocus(page, /^button:Ban author/);

    // The author's name opens the drawer; its Close button gives the focus back to the name.
    await tabTo(page, /^a:Rita Reader/, 'Shift+Tab');
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    await drawer.getByRole('heading', { name: 'Rita Reader' }).waitFor();
    await expectTrapped(page, 'drawer');
    await tabTo(page, /^button:Close/);
    await page.keyboard.press('Enter');
    await expect.poll(() => drawer.count()).toBe(0);
    await expectFocus(page, /^a:Rita Reader/);
    await context.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious axe violation in the queue, its focused card and its ban dialog (${scheme})`, async () => {
      const { moderator } = await queueOf(['Signed-in words', 'A guest comment', 'Another guest comment']);
      const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, '/dashboard/queue?tab=all');
      await page.emulateMedia({ colorScheme: scheme });
      await expect.poll(() => cards(page).count()).toBe(3);
      await page.keyboard.press('j');
      await page.keyboard.press('x');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: artifact(`dashboard-focus-queue-${scheme}.png`) });
      await tabTo(page, /^button:Ban author/);
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Ban Rita Reader' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: artifact(`dashboard-focus-ban-${scheme}.png`) });
      await context.close();
    });
  }
});
