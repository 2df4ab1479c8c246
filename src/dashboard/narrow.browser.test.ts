import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { consoleErrors, dashboardBed, NARROW, openDashboard, PHONE, scrollsSideways, shootEverywhere, signInThroughPage, siteViews } from '../../test/dashboard.ts';
import { pageUrl } from '../../test/helper.ts';
import { subscribe } from '../../test/receiver.ts';
import { addStaff } from '../../test/staff.ts';

/**
 * Every view of the dashboard on the narrowest phones (320 px) and a common one (390 px): the page
 * never scrolls sideways (a wide table scrolls in its own box), and nothing is refused or logged as
 * an error on the way.
 */
const CHROMIUM = chromiumForTests();
const bed = dashboardBed({ webhooks: true });
let views: Array<[string, string, string]>;
let ownerEmail: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const { parley, receiver } = bed;
  const site = await parley.newSite({ siteName: 'The Harbour Gazette', moderation: 'guests', domains: ['127.0.0.1'] });
  await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'The Lighthouse Keepers’ Quarterly Almanac' } });
  await subscribe(parley, site, receiver.url, ['comment.created', 'import.completed']);
  await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { webhook_secret: null } });
  await parley.request('POST', `/api/sites/${site.site_id}/webhooks/test`, { token: site.api_key, body: {} });
  await parley.request('POST', '/api/keys', { token: site.api_key, body: { name: 'The newsroom’s publishing backend for the weekend edition', role: 'moderator', site_ids: [site.site_id] } });
  const thread = pageUrl('127.0.0.1');
  const posted = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: thread, content: 'A guest waits for approval with a rather long word: Donaudampfschifffahrtsgesellschaftskapitän', author_name: 'Gus' } });
  await parley.request('POST', '/api/comments/moderate', { token: site.api_key, body: { ids: [posted.body.id], action: 'approve', reason: 'On topic' } });
  ownerEmail = (await addStaff(parley, site.account_id, 'owner', { name: 'Olive Owner-Oyelaran-Ostrowska' })).email;
  await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  views = [
    ['queue', '/dashboard/queue?tab=all', 'Moderation queue'],
    ...siteViews(site.site_id, thread, posted.body.id),
    ['not-found', '/dashboard/nowhere', 'No such page'],
  ];
}, 120_000);

describe.skipIf(!CHROMIUM)('the dashboard on a narrow phone', () => {
  it('fits every view in 320 and 390 px without scrolling sideways', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    const errors = consoleErrors(page);
    const wide: string[] = [];
    const fits = async (name: string) => {
      for (const viewport of [NARROW, PHONE]) {
        await page.setViewportSize(viewport);
        if (await scrollsSideways(page)) wide.push(`${name} at ${viewport.width} px`);
      }
    };
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await fits('sign-in');
    await signInThroughPage(page, ownerEmail);
    for (const [name, path, heading] of views) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.waitForFunction(() => !document.querySelector('[role=status].note')?.textContent?.endsWith('…'));
      if (name === 'site-settings') await page.frameLocator('iframe.preview').locator('parley-comments').waitFor();
      await fits(name);
    }
    expect(wide).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it('shows the webhooks, team and keys in light and dark at every width, passing axe-core', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    await signInThroughPage(page, ownerEmail);
    for (const [name, path, heading] of views.filter(([name]) => ['webhooks', 'team', 'keys'].includes(name))) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.waitForFunction(() => !document.querySelector('[role=status].note')?.textContent?.endsWith('…'));
      await shootEverywhere(page, `d-${name}`, async (label) => {
        expect(await seriousViolations(page), label).toEqual([]);
        expect(await scrollsSideways(page), label).toBe(false);
      });
    }
    await context.close();
  }, 240_000);
});
