import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { card, cards, launchBrowser, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
let parley: TestParley;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  parley = await startParley();
  browser = await launchBrowser(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await parley?.close();
});

/** A site whose guests wait for approval, a moderator of it signed in to the dashboard, and a way to post. */
async function moderatedSite(options: { domains?: string[] } = {}) {
  const site = await parley.newSite({ moderation: 'guests', ...options });
  const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  const thread = pageUrl(options.domains?.[0]);
  const post = async (content: string, as: { token?: string; name?: string; parent_id?: string } = {}) => {
    const response = await parley.request('POST', '/v1/comments', {
      token: as.token,
      body: { site_id: site.site_id, thread_url: thread, content, author_name: as.token ? undefined : (as.name ?? 'A guest'), parent_id: as.parent_id },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const status = async (id: string) => (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&limit=100`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id)?.status;
  return { site, moderator, thread, post, status };
}

const tab = (page: Page, name: string) => page.getByRole('navigation', { name: 'Queue tabs' }).getByRole('link', { name: new RegExp(`^${name}`) });

describe.skipIf(!CHROMIUM)('the moderation queue', () => {
  it('shows each card with its author, thread, parent excerpt, flags with reasons and the author counts, and tab counts', async () => {
    const { site, moderator, post } = await moderatedSite();
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
    const parent = await post('The article is wrong about tides.', { token: alice });
    await post('A reply that waits for approval', { parent_id: parent, name: 'Gus Guest' });
    await parley.request('POST', `/v1/comments/${parent}/flag`, { body: { reason: 'rude to the author' } });
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    const reply = card(page, 'A reply that waits for approval');
    await reply.waitFor();
    expect(await reply.textContent()).toContain('In reply to Alice: The article is wrong about tides.');
    expect(await reply.textContent()).toContain('Gus Guest');
    expect(await reply.textContent()).toContain('Guest');
    expect(await tab(page, 'Pending').textContent()).toBe('Pending 1');
    expect(await tab(page, 'Flagged').textContent()).toBe('Flagged 1');
    await tab(page, 'Flagged').click();
    const flagged = card(page, 'The article is wrong about tides.');
    await flagged.waitFor();
    expect(await flagged.textContent()).toContain('1 flag');
    expect(await flagged.textContent()).toContain('rude to the author');
    expect(await flagged.textContent()).toContain('1 published · 0 pending · 0 removed · 0 spam');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('flagged');
    await page.goBack();
    await reply.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('marks five comments as spam at once: shift-click selects a range, the bulk button acts on all of them', async () => {
    const { moderator, post, status } = await moderatedSite();
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push(await post(`Buy cheap watches ${i}`));
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await expect.poll(() => cards(page).count()).toBe(6);
    // Select the first card, shift-click the fifth: five comments, the sixth left out.
    const shown = await cards(page).evaluateAll((articles) => articles.map((article) => (article as HTMLElement).dataset.id!));
    expect([...shown].sort()).toEqual([...ids].sort());
    await cards(page).nth(0).getByRole('checkbox').click();
    await cards(page).nth(4).getByRole('checkbox').click({ modifiers: ['Shift'] });
    await expect.poll(() => page.getByText('5 selected').count()).toBe(1);
    await page.getByLabel('Reason (optional, sent with the next action)').fill('watch spam');
    await page.getByLabel('Selected comments').getByRole('button', { name: 'Spam' }).click();
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).getAttribute('data-id')).toBe(shown[5]);
    // The cards leave at once; the notice comes with the server's answer.
    await page.getByText('Marked as spam 5 comments').waitFor();
    for (const id of shown.slice(0, 5)) expect(await status(id)).toBe('spam');
    expect(await status(shown[5])).toBe('pending');
    await expect.poll(() => tab(page, 'Spam').textContent()).toBe('Spam 5');
    await context.close();
  });

  it('works from the keyboard: j and k move, x selects, r removes, s marks as spam, b opens the ban dialog, ? lists the keys', async () => {
    const { site, moderator, post, status } = await moderatedSite();
    const carl = await parley.signIn(site.api_key, site.site_id, { id: 'carl', name: 'Carl' });
    const ids = [await post('Keyboard one', { token: carl }), await post('Keyboard two'), await post('Keyboard three')];
    const { context, page } = await signedInDashboard(browser, parley, moderator.email, '/dashboard/queue?tab=all');
    await expect.poll(() => cards(page).count()).toBe(3);
    const shown = await cards(page).evaluateAll((articles) => articles.map((article) => (article as HTMLElement).dataset.id!));
    const active = () => page.evaluate(() => (document.activeElement as HTMLElement).dataset.id);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await active()).toBe(shown[1]);
    await page.keyboard.press('k');
    expect(await active()).toBe(shown[0]);
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor();
    await page.keyboard.press('x');
    await page.getByText('0 selected').waitFor();
    await page.keyboard.press('r');
    await expect.poll(() => status(shown[0])).toBe('removed');
    // A decided card stays on the All tab; the focus goes on to the next one.
    expect(await active()).toBe(shown[1]);
    await page.keyboard.press('s');
    await expect.poll(() => status(shown[1])).toBe('spam');
    const carlCard = shown.indexOf(ids[0]);
    for (let i = 0; i < 3; i++) await page.keyboard.press('k');
    for (let i = 0; i < carlCard; i++) await page.keyboard.press('j');
    await page.keyboard.press('b');
    await page.getByRole('dialog', { name: 'Ban Carl' }).waitFor();
    await page.keyboard.press('Escape');
    // Escape hides the dialog at once; the shortcuts return once the queue has drawn itself without it.
    await expect.poll(() => page.locator('dialog').count()).toBe(0);
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const key of ['j', 'k', 'a', 'r', 's', 'b', 'x', '/', '?']) expect(await help.locator('kbd', { hasText: key }).count()).toBeGreaterThan(0);
    await context.close();
  });

  it('selects every card of the page, and the search box maps operators to filters', async () => {
    const { site, moderator, post } = await moderatedSite();
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
    await post('Bob writes about kayaks', { token: bob });
    await post('Someone else writes about kayaks');
    const { context, page } = await signedInDashboard(browser, parley, moderator.email, '/dashboard/queue?tab=all');
    await expect.poll(() => cards(page).count()).toBe(2);
    await page.getByLabel('Select all on this page').check();
    await expect.poll(() => page.getByText('2 selected').count()).toBe(1);
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('queue-search');
    const authorId = await card(page, 'Bob writes').locator('a.author').getAttribute('href').then((href) => new URL(href!, parley.url).searchParams.get('author'));
    await page.keyboard.type(`author:${authorId} status:all kayaks`);
    await page.keyboard.press('Enter');
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).textContent()).toContain('Bob writes about kayaks');
    await page.getByRole('searchbox').fill('status:nonsense');
    await page.getByRole('searchbox').press('Enter');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('status:nonsense is not a status');
    await context.close();
  });

  it('bans an author from the drawer, where the ban is then listed and can be lifted', async () => {
    const { site, moderator, post } = await moderatedSite();
    const troll = await parley.signIn(site.api_key, site.site_id, { id: 'troll', name: 'Trevor Troll' });
    await post('You are all wrong', { token: troll });
    await post('And stupid', { token: troll });
    const { context, page } = await signedInDashboard(browser, parley, moderator.email, '/dashboard/queue?tab=all');
    await card(page, 'You are all wrong').getByRole('link', { name: 'Trevor Troll' }).click();
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    await drawer.getByRole('heading', { name: 'Trevor Troll' }).waitFor();
    expect(await drawer.textContent()).toContain('And stupid');
    expect(await seriousViolations(page)).toEqual([]);
    await drawer.getByRole('button', { name: 'Ban…' }).click();
    const ban = page.getByRole('dialog', { name: 'Ban Trevor Troll' });
    await ban.getByLabel('How long').selectOption({ label: 'For 7 days' });
    await ban.getByLabel('Reason (optional, for the moderation log)').fill('insults');
    await ban.getByRole('button', { name: 'Ban' }).click();
    await expect.poll(() => drawer.locator('.bans').textContent()).toContain('(in force)');
    expect(await drawer.locator('.bans').textContent()).toContain('insults');
    const bans = (await parley.request('GET', `/api/sites/${site.site_id}/bans?active=true`, { token: site.api_key })).body.bans;
    expect(bans).toMatchObject([{ ban_type: 'ban', reason: 'insults', user_name: 'Trevor Troll', created_by: { kind: 'staff', name: 'Mo Derator' } }]);
    const days = (new Date(bans[0].expires_at).getTime() - Date.now()) / 86400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    // A banned author cannot comment any more (the ban also ends their sessions).
    expect([401, 403]).toContain((await parley.request('POST', '/v1/comments', { token: troll, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'again' } })).status);
    page.once('dialog', (confirm) => void confirm.accept());
    await drawer.getByRole('button', { name: 'Remove all their comments' }).click();
    await expect.poll(() => drawer.locator('.figures').textContent()).toContain('removed2');
    await drawer.getByRole('button', { name: 'Lift' }).click();
    await drawer.getByText('No ban.').waitFor();
    await drawer.getByRole('button', { name: 'Shadow-ban' }).click();
    await expect.poll(() => drawer.locator('.bans').textContent()).toMatch(/^Shadow ban \(in force\)/);
    expect((await parley.request('GET', `/api/sites/${site.site_id}/bans?active=true`, { token: site.api_key })).body.bans).toMatchObject([{ ban_type: 'shadow_ban' }]);
    await drawer.getByRole('button', { name: 'Lift' }).click();
    await drawer.getByText('No ban.').waitFor();
    expect((await parley.request('GET', `/api/sites/${site.site_id}/bans?active=true`, { token: site.api_key })).body.bans).toEqual([]);
    await drawer.getByRole('button', { name: 'Close' }).click();
    expect(new URL(page.url()).searchParams.has('author')).toBe(false);
    await context.close();
  });

  it("lets an admin erase an author's personal data from the drawer, after confirming; moderators are not offered it", async () => {
    const { site, moderator, post } = await moderatedSite();
    const admin = await addStaff(parley, site.account_id, 'admin', { name: 'Ada Admin' });
    const signedIn = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'erin', name: 'Erin Eraseme' } } });
    const userId = signedIn.body.user.id as string;
    await post('Please forget me', { token: signedIn.body.token });
    const drawerPath = `/dashboard/queue?tab=all&author=${userId}&author_site=${site.site_id}`;

    const asModerator = await signedInDashboard(browser, parley, moderator.email, drawerPath);
    const modDrawer = asModerator.page.getByRole('dialog', { name: 'Commenter' });
    await modDrawer.getByRole('heading', { name: 'Erin Eraseme' }).waitFor();
    expect(await modDrawer.getByRole('button', { name: 'Erase personal data' }).count()).toBe(0);
    await asModerator.context.close();

    const { context, page } = await signedInDashboard(browser, parley, admin.email, drawerPath);
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    await drawer.getByRole('heading', { name: 'Erin Eraseme' }).waitFor();
    // Dismissing the confirmation erases nothing.
    page.once('dialog', (confirm) => void confirm.dismiss());
    await drawer.getByRole('button', { name: 'Erase personal data' }).click();
    const profile = () => parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key }).then((r) => r.body);
    expect((await profile()).erased_at).toBeNull();
    page.once('dialog', (confirm) => {
      expect(confirm.message()).toContain('Erase the personal data of Erin Eraseme?');
      void confirm.accept();
    });
    await drawer.getByRole('button', { name: 'Erase personal data' }).click();
    await drawer.getByRole('heading', { name: 'Deleted user' }).waitFor();
    await drawer.getByText(/^Personal data erased /).waitFor();
    expect(await drawer.getByRole('button', { name: 'Erase personal data' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await profile()).toMatchObject({ name: 'Deleted user', erased_at: expect.any(String) });
    await context.close();
  });

  it('puts a comment back with a message in words when the server refuses the action', async () => {
    const { site, moderator, post, status } = await moderatedSite();
    const id = await post('Waiting while the moderator loses this site');
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await card(page, 'Waiting while').waitFor();
    // The owner limits the moderator to another site while the queue is open.
    const other = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Elsewhere' } })).body.id;
    expect((await parley.request('PATCH', `/api/accounts/${site.account_id}/members/${moderator.id}`, { token: site.api_key, body: { site_ids: [other] } })).status).toBe(200);
    await card(page, 'Waiting while').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.notice.error').textContent()).toMatch(/Could not approve a comment .*back as it was/);
    expect(await cards(page).count()).toBe(1);
    expect(await status(id)).toBe('pending');
    await context.close();
  });

  it('opens a comment in its thread and moderates it there, and closes the thread', async () => {
    const { site, moderator, post, status, thread } = await moderatedSite();
    const root = await post('The first word', { token: site.api_key });
    const reply = await post('A pending reply in the thread', { parent_id: root });
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await card(page, 'A pending reply').getByRole('link', { name: /posts/ }).click();
    await page.waitForURL(/\/dashboard\/thread\?/);
    const focused = page.locator('.tree-comment.focused');
    expect(await focused.textContent()).toContain('A pending reply in the thread');
    expect(await page.locator('.tree > li > article').first().textContent()).toContain('The first word');
    expect(await seriousViolations(page)).toEqual([]);
    await focused.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => status(reply)).toBe('removed');
    await page.getByRole('button', { name: 'Close the thread' }).click();
    await page.getByRole('button', { name: 'Reopen the thread' }).waitFor();
    const threads = (await parley.request('GET', `/api/sites/${site.site_id}/threads?url=${encodeURIComponent(thread)}`, { token: site.api_key })).body.threads;
    expect(threads[0].closed).toBe(true);
    await page.goBack();
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    await context.close();
  });

  it('draws 50 cards within 100 ms of their data arriving', async () => {
    const { moderator, post } = await moderatedSite();
    for (let i = 0; i < 55; i++) await post(`Comment number ${i} with some words to draw`);
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await expect.poll(() => cards(page).count()).toBe(50);
    const renderMs = Number(await page.locator('.cards').getAttribute('data-render-ms'));
    console.log(`queue: 50 cards drawn in ${renderMs} ms after their data arrived`);
    expect(renderMs).toBeLessThan(100);
    // The next page comes as the end draws near, without a button.
    await page.keyboard.press('End');
    await expect.poll(() => cards(page).count()).toBe(55);
    await context.close();
  });

  it('announces a held guest comment at once and marks a comment approved by someone else, with the tab counts kept current', async () => {
    const { site, moderator, post } = await moderatedSite();
    const first = await post('Held before the queue was opened');
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    await card(page, 'Held before the queue').waitFor();
    await page.getByRole('status').getByText('Live').waitFor();
    expect(await tab(page, 'Pending').textContent()).toBe('Pending 1');
    const started = Date.now();
    await post('Held while the queue is open');
    const announce = page.getByRole('button', { name: '1 new — show' });
    await announce.waitFor({ timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(5000);
    await expect.poll(() => tab(page, 'Pending').textContent()).toBe('Pending 2');
    // Announced, not inserted: the cards stay where they were until asked for.
    expect(await cards(page).count()).toBe(1);
    expect((await parley.request('PATCH', `/v1/comments/${first}/moderate`, { token: site.api_key, body: { action: 'approve' } })).status).toBe(200);
    const handled = card(page, 'Held before the queue');
    await expect.poll(() => handled.textContent()).toContain('Handled by someone else: approved.');
    expect(await handled.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expect.poll(() => tab(page, 'Pending').textContent()).toBe('Pending 1');
    expect(await seriousViolations(page)).toEqual([]);
    await announce.click();
    await card(page, 'Held while the queue is open').waitFor();
    expect(await cards(page).count()).toBe(1);
    await page.getByRole('status').getByText('Live').waitFor();
    await context.close();
  });

  it('looks for new comments the old way when the server refuses the stream', async () => {
    // An instance that serves no live stream at all: the queue's stream is answered with a 429.
    const streamless = await startParley({ PARLEY_LIVE_MAX_STREAMS: '0' });
    try {
      const site = await streamless.newSite({ moderation: 'guests' });
      const moderator = await addStaff(streamless, site.account_id, 'moderator');
      const { context, page } = await signedInDashboard(browser, streamless, moderator.email);
      await page.getByText('Nothing here.').waitFor();
      await page.getByRole('status').getByText('Checks every 30 s').waitFor();
      expect((await streamless.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Held while the stream is refused', author_name: 'A guest' } })).status).toBe(201);
      // Coming back into view is one of the moments the queue looks again.
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await card(page, 'Held while the stream is refused').waitFor();
      await context.close();
    } finally {
      await streamless.close();
    }
  });

  it('announces a comment posted through the widget in a second tab, and shows it when asked', async () => {
    const { site, moderator } = await moderatedSite({ domains: ['127.0.0.1'] });
    const { context, page: queue } = await signedInDashboard(browser, parley, moderator.email);
    await queue.getByText('Nothing here.').waitFor();
    // The queue hears of new comments through the staff stream, without being looked at again.
    await queue.getByRole('status').getByText('Live').waitFor();
    const widget = await context.newPage();
    await widget.goto(`/dashboard/preview?site_id=${site.site_id}`);
    await widget.getByLabel('Your name (optional)').fill('Wanda Widget');
    await widget.getByLabel('Write a comment').fill('Posted from the widget');
    await widget.getByRole('button', { name: 'Post comment' }).click();
    // The widget sends a guest's comment no sooner than the site's minimum time after its form appeared.
    await expect.poll(async () => (await parley.request('GET', `/api/comments/counts?site_id=${site.site_id}`, { token: site.api_key })).body.pending, { timeout: 5000 }).toBe(1);
    await queue.getByRole('button', { name: '1 new — show' }).click();
    await card(queue, 'Posted from the widget').waitFor();
    expect(await card(queue, 'Posted from the widget').textContent()).toContain('Wanda Widget');
    await context.close();
  });
});
