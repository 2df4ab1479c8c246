import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { cards, launchBrowser, openDashboard, signInThroughPage } from '../../test/dashboard.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, staffEmail, STAFF_PASSWORD } from '../../test/staff.ts';
import { createLink } from '../staff/links.ts';

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

describe.skipIf(!CHROMIUM)('signing in to the dashboard', () => {
  it('first run: the setup link makes the owner, who lands in the queue signed in, stays signed in on reload, and signs out', async () => {
    const site = await parley.newSite({ siteName: 'First blog' });
    const { token } = await createLink(parley.app.db.kysely, { kind: 'setup', accountId: site.account_id, createdBy: 'setup', role: 'owner' });
    const { context, page } = await openDashboard(browser, parley, `/dashboard/setup#token=${token}`);
    await page.getByRole('heading', { name: 'Set up Parley' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const email = staffEmail('owner');
    await page.getByLabel('Your name').fill('Olive Owner');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (10 characters or more)').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Create my owner account' }).click();
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    expect(await page.getByRole('banner').textContent()).toContain('Olive Owner');
    expect((await parley.request('GET', `/api/accounts/${site.account_id}/members`, { token: site.api_key })).body.members).toMatchObject([{ email, name: 'Olive Owner', role: 'owner' }]);
    await page.reload();
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/dashboard/queue');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/dashboard/queue');
    await context.close();
  });

  it('says in words when the password is wrong, signs in with the right one, and goes where the person was headed', async () => {
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'admin');
    const { context, page } = await openDashboard(browser, parley, '/dashboard/overview');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/password/i);
    await page.getByLabel('Password').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/overview$/);
    await context.close();
  });

  it('an invited moderator accepts the invite and approves a pending comment with the keyboard only', async () => {
    const site = await parley.newSite({ moderation: 'guests' });
    const invite = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { token: site.api_key, body: { role: 'moderator' } });
    expect(invite.status).toBe(201);
    const posted = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'A guest waits for approval', author_name: 'Gus' } });
    expect(posted.body.status).toBe('pending');

    const { context, page } = await openDashboard(browser, parley, new URL(invite.body.url).pathname + new URL(invite.body.url).hash);
    await page.getByRole('heading', { name: 'Join the team' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const email = staffEmail('moderator');
    await page.getByLabel('Your name').fill('Mona Moderator');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (10 characters or more)').fill(STAFF_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    await expect.poll(() => cards(page).count()).toBe(1);
    // A moderator moderates: sites, keys and webhooks are for owners and admins.
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents()).toEqual(['Queue', 'Contested decisions', 'Overview', 'Moderation log']);

    // From here on, only keys: j moves to the comment, a approves it.
    await page.keyboard.press('j');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('A guest waits for approval');
    await page.keyboard.press('a');
    await expect.poll(() => cards(page).count()).toBe(0);
    await expect.poll(async () => (await parley.request('GET', `/v1/comments/${posted.body.id}`)).body.status).toBe('published');
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log`, { token: site.api_key });
    expect(log.body.entries[0]).toMatchObject({ action: 'approve', moderator: { kind: 'staff', name: 'Mona Moderator' } });
    await context.close();
  });

  it('a reset link sets a new password, then the person signs in with it', async () => {
    const site = await parley.newSite();
    const member = await addStaff(parley, site.account_id, 'moderator');
    const link = await parley.request('POST', `/api/accounts/${site.account_id}/members/${member.id}/reset-link`, { token: site.api_key });
    expect(link.status).toBe(201);
    const { context, page } = await openDashboard(browser, parley, new URL(link.body.url).pathname + new URL(link.body.url).hash);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Password (10 characters or more)').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Your password is changed');
    await signInThroughPage(page, member.email, 'a brand new passphrase');
    await context.close();
  });

  it('a link opened without its token says what to do', async () => {
    const { context, page } = await openDashboard(browser, parley, '/dashboard/accept-invite');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('needs the whole link');
    await context.close();
  });
});
