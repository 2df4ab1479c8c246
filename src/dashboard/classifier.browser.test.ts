import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, dashboardBed, DESKTOP, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl, type TestParley } from '../../test/helper.ts';
import { addStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
const bed = dashboardBed();
const NARROW = { width: 320, height: 800 };

/** Checked with axe-core and for the part (ours) fitting the width, and saved as screenshots (of the part, or the whole page) in light and dark, at desktop and phone widths. */
async function shoot(page: Page, part: Locator, name: string, whole = false) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const [size, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE, narrow: NARROW })) {
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${name} ${theme} ${size}`).toEqual([]);
      expect((await part.boundingBox())!.width, `${name} ${size} is wider than the page`).toBeLessThanOrEqual(viewport.width);
      expect(await part.evaluate((element) => element.scrollWidth <= element.clientWidth), `${name} ${size} overflows`).toBe(true);
      const path = artifact(`dashboard-classifier-${name}-${theme}-${size}.png`);
      await (whole ? page.screenshot({ path, fullPage: true }) : part.screenshot({ path }));
    }
  }
  await page.setViewportSize(DESKTOP);
}

type Site = { site_id: string; api_key: string; account_id: string };

/** Two comments marked spam and two approved (the site needs two of each), then one the model holds, which the moderator marks spam. */
async function teachAndAgree(parley: TestParley, site: Site) {
  const settings = { moderation_mode: 'all', spam: { thread_per_minute: 0, site_per_minute: 0, classifier: { min_examples: 2 } } };
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: settings })).status).toBe(200);
  let n = 0;
  const post = async (content: string) => {
    const token = await parley.signIn(site.api_key, site.site_id, { id: `reader-${++n}`, name: `Reader ${n}` });
    return (await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageUrl(), content } })).body as { id: string; status: string };
  };
  const moderate = (id: string, action: string) => parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } });
  for (const text of ['Cheap casino pills, win money fast', 'Casino bonus money, cheap pills online']) await moderate((await post(text)).id, 'spam');
  for (const text of ['Thanks for the article about the garden', 'The history of the bridge in this article is lovely']) await moderate((await post(text)).id, 'approve');
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'none' } })).status).toBe(200);
  const held = await post('Win casino money with cheap pills');
  expect(held.status).toBe('pending');
  await moderate(held.id, 'spam');
}

describe.skipIf(!CHROMIUM)('the spam classifier in the dashboard', () => {
  it("shows on the site's spam panel what it has learnt and whether it holds comments, saves its setting, and its agreement rate on the overview", async () => {
    const site = await bed.parley.newSite({ siteName: 'Tide blog' });
    const owner = await addStaff(bed.parley, site.account_id, 'owner', { name: 'Olive Owner' });
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, `/dashboard/sites/${site.site_id}`);
    const classifier = page.getByRole('group', { name: 'Learning classifier' });
    await classifier.getByText('Learnt so far: 0 marked spam, 0 approved. Not active yet: it needs at least 20 of each kind.').waitFor();
    await classifier.scrollIntoViewIfNeeded();
    await shoot(page, classifier, 'learning');

    await teachAndAgree(bed.parley, site);
    await page.reload();
    await classifier.getByText('Learnt so far: 3 marked spam, 2 approved. Active: it holds new comments scored 0.9 or more.').waitFor();
    expect(await classifier.getByLabel('Classifier').inputValue()).toBe('hold_above');
    await classifier.getByLabel(/^Threshold/).fill('0.95');
    await page.getByRole('button', { name: 'Save the spam defence' }).click();
    await page.getByText('The spam defence is saved').waitFor();
    await classifier.getByText('Active: it holds new comments scored 0.95 or more.', { exact: false }).waitFor();
    await classifier.getByLabel('Classifier').selectOption('off');
    await page.getByRole('button', { name: 'Save the spam defence' }).click();
    await classifier.getByText('Off: it holds nothing.', { exact: false }).waitFor();
    expect((await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam.classifier).toEqual({ mode: 'off', threshold: 0.95, min_examples: 2 });
    await classifier.scrollIntoViewIfNeeded();
    await shoot(page, classifier, 'off');

    // A threshold outside 0.5..0.999 is refused by the browser before anything is sent.
    await classifier.getByLabel(/^Threshold/).fill('1');
    await page.getByRole('button', { name: 'Save the spam defence' }).click();
    expect(await classifier.getByLabel(/^Threshold/).evaluate((input) => (input as HTMLInputElement).validity.rangeOverflow)).toBe(true);

    await page.goto(`/dashboard/overview?site=${site.site_id}`);
    const panel = page.locator('.panel', { has: page.getByRole('heading', { name: 'Agreement with the spam classifier' }) });
    await panel.getByText('100%').waitFor();
    await panel.getByText('Held: 1 · moderators agreed: 1 · disagreed: 0').waitFor();
    await shoot(page, panel, 'overview', true);
    await context.close();
  }, 120_000);
});
