import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, dashboardBed, DESKTOP, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
const bed = dashboardBed();

/** Checked with axe-core and saved as screenshots in light and dark, at desktop and phone widths. */
async function shoot(page: Page, name: string) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const [size, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE })) {
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${name} ${theme} ${size}`).toEqual([]);
      await page.screenshot({ path: artifact(`dashboard-${name}-${theme}-${size}.png`), fullPage: true });
    }
  }
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!CHROMIUM)("pinning in the thread view, and a commenter's labels in the drawer", () => {
  it('labels a commenter, whose comments then show them, and pins up to 3 top-level comments, saying why a fourth waits', async () => {
    const site = await bed.parley.newSite();
    const moderator = await addStaff(bed.parley, site.account_id, 'moderator', { name: 'Mo Derator' });
    const reader = await bed.parley.signIn(site.api_key, site.site_id, { id: 'rita', name: 'Rita Reader' });
    const userId = (await bed.parley.request('GET', '/v1/me', { token: reader })).body.user.id as string;
    const thread = pageUrl();
    const post = async (content: string, parent_id?: string) =>
      (await bed.parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: thread, content, parent_id } })).body.id as string;
    const ids: string[] = [];
    for (const content of ['First thoughts', 'A second look', 'Third time lucky', 'Four is one too many']) ids.push(await post(content));
    await post('A reply is never pinned', ids[0]);

    const { context, page } = await signedInDashboard(bed.browser, bed.parley, moderator.email, `/dashboard/queue?tab=all&author=${userId}&author_site=${site.site_id}`);
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    await drawer.getByRole('heading', { name: 'Rita Reader' }).waitFor();
    await drawer.getByText('No label.').waitFor();
    await drawer.getByLabel('Labels, separated by commas').fill('Author,  Long-time reader ,');
    await drawer.getByRole('button', { name: 'Save labels' }).click();
    await expect.poll(() => drawer.getByRole('list', { name: 'Labels' }).getByRole('listitem').allTextContents()).toEqual(['Author', 'Long-time reader']);
    expect(await drawer.getByLabel('Labels, separated by commas').inputValue()).toBe('Author, Long-time reader');
    await shoot(page, 'commenter-labels');
    // A label the server refuses is said, and nothing changes.
    await drawer.getByLabel('Labels, separated by commas').fill('Author, verified');
    await drawer.getByRole('button', { name: 'Save labels' }).click();
    await page.getByText(/must not be "verified"/).waitFor();
    expect((await bed.parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key })).body.labels).toEqual(['Author', 'Long-time reader']);
    await drawer.getByRole('button', { name: 'Close' }).click();

    await page.goto(`/dashboard/thread?site=${site.site_id}&url=${encodeURIComponent(thread)}`);
    const comment = (text: string) => page.locator('article.tree-comment').filter({ hasText: text });
    await comment('First thoughts').waitFor();
    expect(await comment('A second look').locator('.author-badge').allTextContents()).toEqual(['verified', 'Author', 'Long-time reader']);
    expect(await comment('A reply is never pinned').getByRole('button', { name: /^(Pin|Unpin) / }).count()).toBe(0);

    for (const text of ['Third time lucky', 'First thoughts', 'A second look']) {
      await comment(text).getByRole('button', { name: 'Pin the comment by Rita Reader' }).click();
      await comment(text).getByText('Pinned', { exact: true }).waitFor();
    }
    const fourth = comment('Four is one too many').getByRole('button', { name: 'Pin the comment by Rita Reader' });
    expect(await fourth.isDisabled()).toBe(true);
    expect(await fourth.getAttribute('aria-describedby')).toBe('pins-full');
    expect(await page.locator('#pins-full').textContent()).toBe('3 comments are pinned, as many as a thread holds: unpin one to pin another.');
    await shoot(page, 'thread-pinned');

    // The public's list leads with them, oldest pin first.
    const listed = await bed.parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(listed.body.comments.map((c: { id: string; pinned: boolean }) => [c.id, c.pinned])).toEqual([
      [ids[2], true],
      [ids[0], true],
      [ids[1], true],
      [ids[3], false],
    ]);

    await comment('First thoughts').getByRole('button', { name: 'Unpin the comment by Rita Reader' }).click();
    await expect.poll(() => fourth.isDisabled()).toBe(false);
    expect(await page.locator('#pins-full').count()).toBe(0);
    expect(await comment('First thoughts').getByText('Pinned', { exact: true }).count()).toBe(0);
    await context.close();
  }, 120_000);
});
