import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, consoleErrors, dashboardBed, openDashboard, shootEverywhere, signInThroughPage } from '../../test/dashboard.ts';
import { addStaff } from '../../test/staff.ts';

/**
 * The dashboard opened cold, from a link or by typing an address: the page drawn is whole (no
 * loading line left under it), the browser logs no error, and a page that is not for the person
 * says so.
 */
const CHROMIUM = chromiumForTests();
const bed = dashboardBed();

describe.skipIf(!CHROMIUM)('the dashboard opened cold', () => {
  it('draws the sign-in, setup, invite and reset pages from a link alone, with no loading line and no console error', async () => {
    const pages: Array<[string, string]> = [
      ['/dashboard/sign-in', 'Sign in'],
      ['/dashboard/setup#token=stl_made_up', 'Set up Parley'],
      ['/dashboard/accept-invite#token=stl_made_up', 'Join the team'],
      ['/dashboard/reset-password#token=stl_made_up', 'Choose a new password'],
    ];
    for (const [path, heading] of pages) {
      const { context, page } = await openDashboard(bed.browser, bed.parley, 'about:blank');
      const errors = consoleErrors(page);
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).waitFor();
      expect(await page.textContent('body'), path).not.toContain('Loading the dashboard');
      expect(errors, path).toEqual([]);
      await context.close();
    }
  });

  it('sends someone not signed in from any view to the sign-in page with no failed request logged', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, 'about:blank');
    const errors = consoleErrors(page);
    const failed: string[] = [];
    page.on('response', (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`));
    await page.goto('/dashboard/queue');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/dashboard/queue');
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    await context.close();
  });

  it("shows a moderator who opens an admin's page by its address a page that says so, with a way back, and asks the server nothing it refuses", async () => {
    const site = await bed.parley.newSite({ siteName: 'The Gazette' });
    const moderator = await addStaff(bed.parley, site.account_id, 'moderator', { name: 'Mo Derator' });
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    await signInThroughPage(page, moderator.email);
    const errors = consoleErrors(page);
    const failed: string[] = [];
    page.on('response', (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`));
    for (const path of ['/dashboard/webhooks', '/dashboard/keys', '/dashboard/sites', `/dashboard/sites/${site.site_id}`, '/dashboard/reader-sign-in', '/dashboard/team']) {
      await page.goto(path);
      await page.getByRole('heading', { name: "This page is for the account's admins" }).waitFor();
      expect(await page.locator('main form').count(), path).toBe(0);
    }
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents()).toEqual(['Queue', 'Contested decisions', 'Overview', 'Moderation log']);
    await shootEverywhere(page, 'd-admins-only', async (label) => expect(await seriousViolations(page), label).toEqual([]));
    await page.getByRole('link', { name: 'Go to the moderation queue' }).click();
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    await context.close();
  });

  it('draws the sign-in page whole in light and dark, on a phone and at 320 px', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shootEverywhere(page, 'd-sign-in', async (label) => expect(await seriousViolations(page), label).toEqual([]));
    await page.screenshot({ path: artifact('d-sign-in.png') });
    await context.close();
  });
});
