import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, consoleErrors, dashboardBed, signedInDashboard } from '../../test/dashboard.ts';
import { subscribe } from '../../test/receiver.ts';
import { addStaff } from '../../test/staff.ts';

/** The team's roles and a site's webhooks: changes that break something are asked first, and a refusal is said. */
const CHROMIUM = chromiumForTests();
const bed = dashboardBed({ webhooks: true });

const members = async (site: { account_id: string; api_key: string }) =>
  (await bed.parley.request('GET', `/api/accounts/${site.account_id}/members`, { token: site.api_key })).body.members as Array<{ name: string; role: string }>;
const roleOf = async (site: { account_id: string; api_key: string }, name: string) => (await members(site)).find((member) => member.name === name)?.role;

describe.skipIf(!CHROMIUM)('changing a role', () => {
  it('asks first, naming the person and the new role, and changes nothing when the question is dismissed', async () => {
    const site = await bed.parley.newSite();
    const owner = await addStaff(bed.parley, site.account_id, 'owner', { name: 'Olive Owner' });
    await addStaff(bed.parley, site.account_id, 'moderator', { name: 'Mo Derator' });
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/team');
    const errors = consoleErrors(page);
    const role = page.getByLabel('Role of Mo Derator');
    await role.selectOption('admin');
    const dialog = page.getByRole('dialog', { name: 'Change the role?' });
    await expect.poll(() => dialog.textContent()).toContain('New role for Mo Derator: Admin (now: Moderator).');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('d-team-role-question.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await role.inputValue()).toBe('moderator');
    expect(await roleOf(site, 'Mo Derator')).toBe('moderator');

    await role.selectOption('admin');
    await dialog.getByRole('button', { name: 'Change the role' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Mo Derator is now admin').waitFor();
    expect(await role.inputValue()).toBe('admin');
    expect(await roleOf(site, 'Mo Derator')).toBe('admin');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("says the server's refusal in the question, and the select goes back to the role the server holds", async () => {
    const site = await bed.parley.newSite();
    await addStaff(bed.parley, site.account_id, 'owner', { name: 'Olive Owner' });
    const admin = await addStaff(bed.parley, site.account_id, 'admin', { name: 'Ada Admin' });
    await addStaff(bed.parley, site.account_id, 'moderator', { name: 'Mo Derator' });
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, admin.email, '/dashboard/team');
    const role = page.getByLabel('Role of Mo Derator');
    await role.selectOption('owner');
    const dialog = page.getByRole('dialog', { name: 'Change the role?' });
    await dialog.getByRole('button', { name: 'Change the role' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('Only an owner invites, changes or removes owners');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('d-team-role-refused.png') });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await role.inputValue()).toBe('moderator');
    expect(await roleOf(site, 'Mo Derator')).toBe('moderator');
    await context.close();
  });
});

describe.skipIf(!CHROMIUM)("a site's webhooks", () => {
  it('keeps every event the site takes, import.completed among them, when the form is saved', async () => {
    const site = await bed.parley.newSite({ siteName: 'The Gazette' });
    await subscribe(bed.parley, site, bed.receiver.url, ['comment.created', 'import.completed']);
    const owner = await addStaff(bed.parley, site.account_id, 'owner');
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/webhooks');
    expect(await page.getByLabel('import.completed').isChecked()).toBe(true);
    await page.getByLabel('comment.flagged').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The webhook settings are saved').waitFor();
    const saved = (await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.webhook_events;
    expect([...saved].sort()).toEqual(['comment.created', 'comment.flagged', 'import.completed']);
    await context.close();
  });

  it('asks before rotating the secret, saying that receivers checking the old one fail until updated', async () => {
    const site = await bed.parley.newSite({ siteName: 'The Gazette' });
    await subscribe(bed.parley, site, bed.receiver.url, ['comment.created']);
    const secretOf = async () => (await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.webhook_secret;
    const before = await secretOf();
    const owner = await addStaff(bed.parley, site.account_id, 'owner');
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/webhooks');
    const errors = consoleErrors(page);
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the webhook secret?' });
    await expect.poll(() => dialog.textContent()).toContain('Receivers that check signatures with the old secret will reject the deliveries until they are given the new one');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('d-webhooks-rotate-question.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await secretOf()).toBe(before);

    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await dialog.getByRole('button', { name: 'Rotate the secret' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(secretOf).not.toBe(before);
    // The API shows the secret's end only; the page shows the new one whole, this once.
    const revealed = await page.locator('.secret code').textContent();
    expect(revealed).toMatch(/^whsec_/);
    expect(revealed!.endsWith((await secretOf()).split('…')[1])).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
