import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, dashboardBed, card, DESKTOP, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
const bed = dashboardBed();

/** A thread with a comment Alice edited twice and one Bob never edited, and a moderator to read them. */
async function editedThread() {
  const site = await bed.parley.newSite({ siteName: 'Tide blog' });
  const moderator = await addStaff(bed.parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  const thread = pageUrl();
  const post = async (token: string, content: string) => (await bed.parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content } })).body.id as string;
  const alice = await bed.parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  const bob = await bed.parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const edited = await post(alice, 'The tide comes in twice a day, every 12 hours.');
  for (const content of ['The tide comes in twice a day, about every 12 hours.', 'High tide comes twice a day, about every 12 hours 25 minutes.']) {
    expect((await bed.parley.request('PATCH', `/v1/comments/${edited}`, { token: alice, body: { content } })).status).toBe(200);
  }
  await post(bob, 'Thanks, I never knew.');
  return { site, moderator, thread, edited };
}

async function screenshots(page: Page, name: string) {
  for (const [theme, size, viewport] of [['light', 'desktop', DESKTOP], ['dark', 'desktop', DESKTOP], ['light', 'phone', PHONE]] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(viewport);
    expect(await seriousViolations(page), `${theme} ${size}`).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: artifact(`dashboard-${name}-${theme}-${size}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

const versionsOf = (scope: ReturnType<Page['locator']>) => scope.locator('.versions-list li');

describe.skipIf(!CHROMIUM)("a comment's earlier versions in the dashboard", () => {
  it('opens from "Edited" on a queue card, oldest first with when each was written and replaced; a comment never edited has no "Edited"', async () => {
    const { moderator } = await editedThread();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, '/dashboard/queue?tab=all');
    const edited = card(page, 'High tide comes twice a day');
    await edited.waitFor();
    expect(await card(page, 'Thanks, I never knew.').getByText('Edited').count()).toBe(0);
    await edited.getByText('Edited', { exact: true }).click();
    await expect.poll(() => versionsOf(edited).count()).toBe(2);
    const versions = await versionsOf(edited).allTextContents();
    expect(versions[0]).toMatch(/^Written .+, replaced .+The tide comes in twice a day, every 12 hours\.$/);
    expect(versions[1]).toContain('The tide comes in twice a day, about every 12 hours.');
    await screenshots(page, 'revisions-queue');
    await context.close();
  });

  it('opens from "Edited" in the thread view too', async () => {
    const { site, moderator, thread, edited } = await editedThread();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, `/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}&comment=${edited}`);
    const comment = page.locator(`#c-${edited}`);
    await comment.waitFor();
    await comment.getByText('Edited', { exact: true }).click();
    await expect.poll(() => versionsOf(comment).count()).toBe(2);
    expect(await versionsOf(comment).first().textContent()).toContain('The tide comes in twice a day, every 12 hours.');
    await screenshots(page, 'revisions-thread');
    await context.close();
  });
});
