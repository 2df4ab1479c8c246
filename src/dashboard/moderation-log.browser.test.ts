import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { consoleErrors, launchBrowser, scrollsSideways, shootEverywhere, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';
import { newId } from '../ids.ts';

/** The moderation log as a view of its own: every site the person moderates, filtered by who, action, site and days. */
const CHROMIUM = chromiumForTests();
let parley: TestParley;
let browser: Browser;
let site: { account_id: string; site_id: string; api_key: string };
let almanac: string;
let owner: { id: string; email: string };
let held: string;

const rows = (page: import('playwright-core').Page) => page.locator('main tbody tr');
const today = () => new Date().toLocaleDateString('en-CA');

beforeAll(async () => {
  if (!CHROMIUM) return;
  parley = await startParley();
  browser = await launchBrowser(CHROMIUM);
  site = await parley.newSite({ siteName: 'The Gazette' });
  almanac = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'The Almanac' } })).body.id;
  owner = await addStaff(parley, site.account_id, 'owner', { name: 'Olive Owner' });
  const staff = await signInStaff(parley, owner.email);
  const post = async (siteId: string, content: string) => {
    const token = await parley.signIn(site.api_key, siteId, { id: 'writer', name: 'Wren Writer' });
    return (await parley.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: pageUrl(), content } })).body.id as string;
  };
  const removed = await post(site.site_id, 'Removed by the key');
  await parley.request('POST', '/api/comments/moderate', { token: site.api_key, body: { ids: [removed], action: 'remove', reason: 'Off topic' } });
  const pinned = await post(almanac, 'Pinned by Olive');
  expect((await parley.request('POST', '/api/comments/moderate', { headers: staff.headers, body: { ids: [pinned], action: 'spam' } })).status).toBe(200);
  // Actions a newer Parley logs: one this dashboard words, one it does not know.
  held = await post(site.site_id, 'Held by the model');
  const now = new Date().toISOString();
  await parley.app.db.kysely
    .insertInto('moderation_log')
    .values([
      { id: newId('mod'), site_id: site.site_id, comment_id: held, action: 'classifier_hold', reason: null, moderator_ref: 'system', created_at: now },
      { id: newId('mod'), site_id: site.site_id, comment_id: held, action: 'made_up_action', reason: null, moderator_ref: 'system', created_at: now },
    ])
    .execute();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await parley?.close();
});

describe.skipIf(!CHROMIUM)('the moderation log', () => {
  it('lists every site with its name, words a newer action and names an unknown one, and filters by site, who, action and days', async () => {
    const { context, page } = await signedInDashboard(browser, parley, owner.email);
    const errors = consoleErrors(page);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Moderation log' }).click();
    await page.getByRole('heading', { name: 'Moderation log' }).waitFor();
    await expect.poll(() => rows(page).count()).toBe(4);
    const text = await page.locator('main table').textContent();
    for (const words of ['The Gazette', 'The Almanac', 'held by the spam classifier', 'made_up_action', 'Olive Owner', 'spam', 'Off topic']) expect(text).toContain(words);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel(/^Site/).selectOption({ label: 'The Almanac' });
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('site')).toBe(almanac);
    await page.getByLabel(/^Site/).selectOption({ label: 'Every site' });
    await expect.poll(() => rows(page).count()).toBe(4);

    await page.getByLabel(/^Who/).selectOption({ label: 'You' });
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().textContent()).toContain('Olive Owner');
    await page.getByLabel(/^Who/).selectOption({ label: 'Anyone' });
    await expect.poll(() => rows(page).count()).toBe(4);
    // A name in the log filters by that person.
    await page.getByRole('button', { name: 'Olive Owner' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await page.getByLabel(/^Who/).inputValue()).toBe(owner.id);
    await page.getByLabel(/^Who/).selectOption({ label: 'Anyone' });

    await page.getByLabel(/^Action/).selectOption({ label: 'remove' });
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().textContent()).toContain('Off topic');
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await expect.poll(() => rows(page).count()).toBe(4);

    await page.getByLabel('To (included)').fill('2020-01-01');
    await page.getByText('No entry matches these filters.').waitFor();
    await page.getByLabel('To (included)').fill(today());
    await page.getByLabel('From').fill(today());
    await expect.poll(() => rows(page).count()).toBe(4);
    // The filters are in the address: a reload or a shared link shows the same entries.
    await page.reload();
    await expect.poll(() => rows(page).count()).toBe(4);
    expect(await page.getByLabel('From').inputValue()).toBe(today());
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is shown in light and dark, on a phone and at 320 px, without the page scrolling sideways', async () => {
    const { context, page } = await signedInDashboard(browser, parley, owner.email, '/dashboard/log');
    await expect.poll(() => rows(page).count()).toBe(4);
    await shootEverywhere(page, 'd-log', async (label) => {
      expect(await seriousViolations(page), label).toEqual([]);
      expect(await scrollsSideways(page), label).toBe(false);
    });
    await context.close();
  });
});
