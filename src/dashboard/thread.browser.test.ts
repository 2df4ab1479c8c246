import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, dashboardBed, DESKTOP, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, type TestParley } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
const bed = dashboardBed();
const NARROW = { width: 320, height: 720 };

/** Checked with axe-core and saved as screenshots in light and dark, at desktop and phone widths (390 and 320 px). */
async function shoot(page: Page, name: string, fullPage = true) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const [size, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE, narrow: NARROW })) {
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${name} ${theme} ${size}`).toEqual([]);
      // Nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} ${theme} ${size} fits`).toBe(true);
      await page.screenshot({ path: artifact(`dashboard-${name}-${theme}-${size}.png`), fullPage: fullPage && size !== 'desktop' });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

/** A thread of four comments by two readers, the last two held for approval; and a moderator. */
async function threadToModerate(parley: TestParley) {
  const site = await parley.newSite();
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice Archer' });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob Baker' });
  const thread = pageUrl();
  const post = async (token: string, content: string, parent_id?: string) =>
    (await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content, parent_id } })).body.id as string;
  const first = await post(alice, 'The opening question');
  const reply = await post(bob, 'A rude answer', first);
  await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } });
  const held = await post(alice, 'A fair point, held for approval');
  const last = await post(bob, 'Buy cheap watches here');
  const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  const status = async (id: string) => (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&thread_url=${encodeURIComponent(thread)}`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id).status;
  return { site, alice, thread, ids: { first, reply, held, last }, moderator, status };
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe.skipIf(!CHROMIUM)('the thread view', () => {
  it('opens on the comment the moderator came from, marked, and moderates by keyboard alone, the focus going on to the next comment', async () => {
    const { site, thread, ids, moderator, status } = await threadToModerate(bed.parley);
    const from = '/dashboard/queue?tab=pending&search=author%3ABob';
    const address = `/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}&comment=${ids.held}&from=${encodeURIComponent(from)}`;
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, address);

    const origin = page.locator(`#c-${ids.held}`);
    await origin.getByText('You came from here').waitFor();
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.held}`);
    expect(await origin.getAttribute('aria-current')).toBe('location');
    expect(await origin.isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Back to the queue' }).getAttribute('href')).toBe(from);
    await shoot(page, 'thread-origin');

    // a: approved, and the focus is on the next comment, whose keys then act on it.
    await page.keyboard.press('a');
    await expect.poll(() => status(ids.held)).toBe('published');
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.last}`);
    await page.keyboard.press('s');
    await expect.poll(() => status(ids.last)).toBe('spam');
    await page.locator(`#c-${ids.last} .status-spam`).waitFor();
    // The last comment keeps the focus: there is no next one.
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.last}`);

    // k walks back up the tree, a reply after its parent.
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.reply}`);
    await page.keyboard.press('r');
    await expect.poll(() => status(ids.reply)).toBe('removed');
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.held}`);

    // x selects, and the bulk bar acts on what is selected.
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await expect.poll(() => page.locator(`#c-${ids.last} input[type=checkbox]`).isChecked()).toBe(true);
    await page.getByRole('group', { name: 'Selected comments' }).getByText('1 selected').waitFor();
    await page.keyboard.press('x');
    await expect.poll(() => page.getByRole('group', { name: 'Selected comments' }).count()).toBe(0);

    // b asks how to ban the author; ? lists the keys; Escape closes each, and the keys go on working.
    await page.keyboard.press('b');
    await page.getByRole('dialog', { name: 'Ban Bob Baker' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Ban Bob Baker' }).waitFor({ state: 'detached' });
    // The view hears of the close a moment after the dialog leaves the screen: a key sent in between
    // is not the view's yet, so ? is sent again until the list opens.
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect
      .poll(async () => {
        await page.keyboard.press('?');
        return help.count();
      })
      .toBe(1);
    await help.getByText('Back to the queue').waitFor();
    expect(await help.getByText('Search').count()).toBe(0);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // The closed list gives the focus back to the comment that was current.
    await expect.poll(() => focusedId(page)).toBe(`c-${ids.last}`);

    // u goes back to the queue as it was left: its tab and its search.
    await page.keyboard.press('u');
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    expect(await page.evaluate(() => location.pathname + location.search)).toBe(from);
    expect(await page.getByLabel('Search', { exact: true }).inputValue()).toBe('author:Bob');

    // A `from` that leads off the queue is not followed.
    await page.goto(`/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}&from=${encodeURIComponent('https://evil.example/')}`);
    expect(await page.getByRole('link', { name: 'Back to the queue' }).getAttribute('href')).toBe(`/dashboard/queue?site=${site.site_id}`);
    await context.close();
  }, 180_000);

  it('posts a staff reply in place, which readers see with the Staff badge', async () => {
    const { site, thread, ids, moderator } = await threadToModerate(bed.parley);
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, `/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}&comment=${ids.first}`);
    const first = page.locator(`#c-${ids.first}`);
    await first.getByRole('button', { name: 'Reply' }).click();
    const field = page.getByLabel('Your reply to Alice Archer');
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    await field.fill('Thanks for asking: the answer is in the FAQ.');
    await shoot(page, 'thread-reply-form');
    await page.getByRole('button', { name: 'Post the reply' }).click();
    await page.getByText('Your reply to Alice Archer is published').waitFor();

    const reply = page.locator('article.tree-comment').filter({ hasText: 'Thanks for asking' });
    await reply.waitFor();
    expect(await reply.locator('.author-badge').allTextContents()).toEqual(['Staff']);
    expect(await reply.locator('.author').textContent()).toBe('Mo Derator');
    await expect.poll(async () => (await focusedId(page)) === (await reply.getAttribute('id'))).toBe(true);
    await shoot(page, 'thread-staff-reply');
    // Staff are no site user: nobody offers to ban them.
    expect(await reply.getByRole('button', { name: 'Ban author' }).count()).toBe(0);

    const listed = await bed.parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    const published = listed.body.comments.find((c: { id: string }) => c.id === ids.first).replies.find((c: { content: string }) => c.content.startsWith('Thanks'));
    expect(published).toMatchObject({ author_name: 'Mo Derator', author_badges: ['staff'] });

    // Readers' own rendering of the thread says it in words.
    const reader = await bed.browser.newPage();
    await reader.goto(`${bed.parley.url}/v1/comments/html?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    const shown = reader.locator('article, li').filter({ hasText: 'Thanks for asking' }).last();
    expect(await shown.locator('.author-badge').first().textContent()).toBe('Staff');
    await reader.close();
    await context.close();
  }, 180_000);

  it("keeps moderators' notes on a commenter in the drawer: who wrote each and when, added and deleted", async () => {
    const { site, alice, thread, ids, moderator } = await threadToModerate(bed.parley);
    const userId = (await bed.parley.request('GET', '/v1/me', { token: alice })).body.user.id as string;
    await bed.parley.request('POST', `/api/sites/${site.site_id}/users/${userId}/notes`, { token: site.api_key, body: { body: 'Asked us to fix a typo once.' } });
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, `/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}&comment=${ids.first}`);
    await page.locator(`#c-${ids.first}`).getByRole('link', { name: 'Alice Archer' }).click();
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    const notes = drawer.getByRole('list', { name: 'Moderators’ notes' });
    await notes.getByText('Asked us to fix a typo once.').waitFor();
    // Another's note: this moderator may not delete it.
    expect(await notes.getByRole('button', { name: /^Delete the note/ }).count()).toBe(0);

    await drawer.getByLabel('New note').fill('Warned about links on 3 March.');
    await drawer.getByRole('button', { name: 'Add the note' }).click();
    await page.getByText('Added a note on Alice Archer').waitFor();
    const own = notes.getByRole('listitem').first();
    await own.getByText('Warned about links on 3 March.').waitFor();
    expect(await own.locator('.note').textContent()).toMatch(/^Mo Derator, /);
    expect(await drawer.getByLabel('New note').inputValue()).toBe('');
    // The drawer is as tall as the window, and scrolls itself: a shot of the window shows it.
    await shoot(page, 'drawer-notes', false);

    await own.getByRole('button', { name: /^Delete the note written / }).click();
    await page.getByText('Deleted the note').waitFor();
    await expect.poll(() => notes.getByRole('listitem').count()).toBe(1);
    const profile = await bed.parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key });
    expect(profile.body.notes.map((note: { body: string }) => note.body)).toEqual(['Asked us to fix a typo once.']);

    // The drawer closes back onto the thread.
    await drawer.getByRole('button', { name: 'Close' }).click();
    await drawer.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('author')).toBeNull();
    await context.close();
  }, 180_000);
});
