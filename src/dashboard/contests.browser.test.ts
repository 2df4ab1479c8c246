import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { consoleErrors, DESKTOP, launchBrowser, PHONE, scrollsSideways, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

/** The contested decisions view: a moderator reads what readers contest, and reinstates or upholds with a note. */
const CHROMIUM = chromiumForTests();
let parley: TestParley;
let browser: Browser;
let site: { account_id: string; site_id: string; api_key: string };
let moderator: { id: string; email: string };
let owner: { id: string; email: string };
let removedId: string;
let spamId: string;
let reader: string;

const contestCards = (page: Page) => page.locator('article.contest');
const contestCard = (page: Page, text: string) => contestCards(page).filter({ hasText: text });

/** Screenshots for a person to look at (light, dark, phone), each checked with axe first. */
async function shoot(page: Page, name: string) {
  for (const [label, theme, viewport] of [['light', 'light', DESKTOP], ['dark', 'dark', DESKTOP], ['phone', 'light', PHONE]] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(viewport);
    expect(await seriousViolations(page), `${name} ${label}`).toEqual([]);
    expect(await scrollsSideways(page), `${name} ${label}`).toBe(false);
    await page.screenshot({ path: `shots/${name}-${label}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  parley = await startParley();
  browser = await launchBrowser(CHROMIUM);
  site = await parley.newSite({ siteName: 'The Gazette' });
  moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Moderator' });
  owner = await addStaff(parley, site.account_id, 'owner', { name: 'Olive Owner' });
  reader = await parley.signIn(site.api_key, site.site_id, { id: 'rita', name: 'Rita Reader' });
  const post = async (content: string) => (await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: pageUrl(), content } })).body.id as string;
  removedId = await post('The council voted against the bridge, and here is why that matters.');
  spamId = await post('Visit my shop for the best bridge photos!');
  await parley.request('PATCH', `/v1/comments/${removedId}/moderate`, { token: site.api_key, body: { action: 'remove', reason: 'Off topic' } });
  await parley.request('PATCH', `/v1/comments/${spamId}/moderate`, { token: site.api_key, body: { action: 'spam' } });
  for (const [id, message] of [[removedId, 'The article is about the bridge vote; my comment explains it.'], [spamId, 'I am not selling anything, the link is to my photo blog.']]) {
    expect((await parley.request('POST', `/v1/comments/${id}/contest`, { token: reader, body: { message } })).status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await parley?.close();
});

describe.skipIf(!CHROMIUM)('contested decisions', () => {
  it('shows each contest with its comment, the decision and its reason and the reader’s words; reinstating and upholding tell the reader', async () => {
    const { context, page } = await signedInDashboard(browser, parley, moderator.email);
    const errors = consoleErrors(page);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Contested decisions' }).click();
    await page.getByRole('heading', { name: 'Contested decisions' }).waitFor();
    await expect.poll(() => contestCards(page).count()).toBe(2);
    const removed = contestCard(page, 'the bridge vote');
    const removedText = await removed.textContent();
    for (const words of ['Rita Reader', 'The council voted against the bridge', 'Removed by bootstrap admin key', 'Reason given: Off topic', 'Rita Reader writes:', 'my comment explains it']) expect(removedText).toContain(words);
    expect(await contestCard(page, 'photo blog').textContent()).toContain('No reason was given.');
    await shoot(page, 'contests-open');

    await removed.getByLabel('Note to the reader (optional)').fill('You are right, it was on topic. Sorry!');
    await removed.getByRole('button', { name: 'Reinstate' }).click();
    await page.getByText('The comment is back, and Rita Reader will be told.').waitFor();
    await expect.poll(() => contestCards(page).count()).toBe(1);
    const publicComment = await parley.request('GET', `/v1/comments/${removedId}`);
    expect(publicComment.body.status).toBe('published');

    await contestCard(page, 'photo blog').getByRole('button', { name: 'Uphold' }).click();
    await page.getByText('The decision stands, and Rita Reader will be told.').waitFor();
    await page.getByText('No reader is waiting for an answer.').waitFor();

    // What Rita is told in her widget: the newest notice about each comment is the answer.
    const latestNotices = async () => {
      const { notifications } = (await parley.request('GET', `/v1/notifications?site_id=${site.site_id}&limit=100`, { token: reader })).body as { notifications: Array<{ comment_id: string; action: string; reason: string | null }> };
      return [removedId, spamId].map((id) => notifications.find((n) => n.comment_id === id)).map((n) => n && { action: n.action, reason: n.reason });
    };
    await expect.poll(latestNotices, { timeout: 10_000 }).toEqual([
      { action: 'approved', reason: 'You are right, it was on topic. Sorry!' },
      { action: 'contest_upheld', reason: null },
    ]);

    await page.getByRole('navigation', { name: 'Contests' }).getByRole('link', { name: 'Answered' }).click();
    await expect.poll(() => contestCards(page).count()).toBe(2);
    expect(await contestCard(page, 'the bridge vote').textContent()).toContain('Reinstated by Mo Moderator');
    expect(await contestCard(page, 'the bridge vote').textContent()).toContain('Note to the reader: You are right, it was on topic. Sorry!');
    expect(await contestCard(page, 'photo blog').textContent()).toContain('Upheld by Mo Moderator');
    expect(new URL(page.url()).searchParams.get('state')).toBe('resolved');
    await shoot(page, 'contests-answered');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("takes the site's contact in the site settings, and says why one is refused", async () => {
    const { context, page } = await signedInDashboard(browser, parley, owner.email, `/dashboard/sites/${site.site_id}`);
    await page.getByRole('heading', { name: 'The Gazette' }).waitFor();
    const contact = page.getByLabel('Where readers can contest a decision');
    await contact.fill('http://example.com/appeals');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'https URL or an email address' }).waitFor();
    await contact.fill('appeals@example.com');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('The settings are saved').waitFor();
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.site.contact).toBe('mailto:appeals@example.com');
    await page.reload();
    expect(await page.getByLabel('Where readers can contest a decision').inputValue()).toBe('mailto:appeals@example.com');
    await contact.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'shots/site-contact.png' });
    await context.close();
  }, 60_000);
});
