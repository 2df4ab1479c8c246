import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, DESKTOP, launchBrowser, PHONE, shootEverywhere, signedInDashboard } from '../../test/dashboard.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { mailingEnv, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { addStaff, joinThroughInvite, signInStaff, STAFF_PASSWORD, staffEmail } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
/** One Parley that sends mail through a real SMTP server, one with no mail set up. */
let mailing: TestParley;
let silent: TestParley;
let box: Mailbox;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  box = await startMailbox();
  mailing = await startParley(mailingEnv(box));
  silent = await startParley();
  browser = await launchBrowser(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await mailing?.close();
  await silent?.close();
  await box?.close();
});

describe.skipIf(!CHROMIUM)('the profile', () => {
  it('lets a moderator choose their moderation mail, reached from their name', async () => {
    const site = await mailing.newSite({ moderation: 'guests' });
    const moderator = await addStaff(mailing, site.account_id, 'moderator', { name: 'Mo Derator' });
    const { context, page } = await signedInDashboard(browser, mailing, moderator.email);
    await page.getByRole('link', { name: 'Mo Derator' }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    expect(await page.textContent('main')).toContain(moderator.email);
    await page.getByLabel('A mail when a comment waits for approval or is flagged').check();
    await page.getByRole('button', { name: 'Save the mail choice' }).click();
    await page.getByText('Your mail choice is saved').waitFor();
    const session = await signInStaff(mailing, moderator.email);
    expect((await mailing.request('GET', '/api/auth/me/mail', { headers: session.headers })).body).toEqual({ moderation_mail: 'all', mail_enabled: true, frequency: 'instant', time_zone: null });
    await page.reload();
    expect(await page.getByLabel('A mail when a comment waits for approval or is flagged').isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it("lets a moderator take one daily digest instead, at 08:00 of the browser's time zone unless they choose another, kept after a reload", async () => {
    const site = await mailing.newSite({ moderation: 'guests' });
    const moderator = await addStaff(mailing, site.account_id, 'moderator');
    const { context, page } = await signedInDashboard(browser, mailing, moderator.email, '/dashboard/profile');
    await (await context.newCDPSession(page)).send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Tokyo' });
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    expect(await page.getByLabel('As comments wait (at most one mail every ten minutes per site)').isChecked()).toBe(true);
    const zone = page.getByLabel('Time zone of the digest');
    expect(await zone.count()).toBe(0);

    await page.getByLabel('One digest a day at 08:00, with the counts of every site').check();
    expect(await zone.inputValue()).toBe('Asia/Tokyo');
    await page.getByRole('button', { name: 'Save the mail choice' }).click();
    await page.getByText('Your mail choice is saved').waitFor();
    const session = await signInStaff(mailing, moderator.email);
    const saved = () => mailing.request('GET', '/api/auth/me/mail', { headers: session.headers });
    expect((await saved()).body).toMatchObject({ frequency: 'daily', time_zone: 'Asia/Tokyo' });

    await zone.selectOption('America/Chicago');
    await page.getByRole('button', { name: 'Save the mail choice' }).click();
    await expect.poll(async () => (await saved()).body).toMatchObject({ frequency: 'daily', time_zone: 'America/Chicago' });
    await page.reload();
    await zone.waitFor();
    expect(await page.getByLabel('One digest a day at 08:00, with the counts of every site').isChecked()).toBe(true);
    expect(await zone.inputValue()).toBe('America/Chicago');
    await page.getByText('The digest comes at 08:00 in this time zone.').waitFor();
    await shootEverywhere(page, 'd-profile-digest', async (label) => expect(await seriousViolations(page), label).toEqual([]));

    // Back to instant mails: the zone stays saved for a later digest.
    await page.getByLabel('As comments wait (at most one mail every ten minutes per site)').check();
    expect(await zone.count()).toBe(0);
    await page.getByRole('button', { name: 'Save the mail choice' }).click();
    await expect.poll(async () => (await saved()).body).toMatchObject({ frequency: 'instant', time_zone: 'America/Chicago' });
    await context.close();
  });

  it('says why moderation mail cannot be chosen when the server sends no mail', async () => {
    const site = await silent.newSite({});
    const owner = await addStaff(silent, site.account_id, 'owner');
    const { context, page } = await signedInDashboard(browser, silent, owner.email, '/dashboard/profile');
    await page.getByText('This server sends no mail').waitFor();
    for (const choice of ['No moderation mail', 'A mail when a comment waits for approval', 'A mail when a comment waits for approval or is flagged']) {
      expect(await page.getByLabel(choice, { exact: true }).isDisabled()).toBe(true);
    }
    expect(await page.getByRole('button', { name: 'Save the mail choice' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('says an address is not confirmed yet and sends its link again, saying what happened; the team sees it unconfirmed', async () => {
    const email = staffEmail('unconfirmed');
    const { owner } = await joinThroughInvite(mailing, email);
    const toHim = () => box.mails.filter((mail) => mail.to && 'text' in mail.to && mail.to.text === email);
    const { context, page } = await signedInDashboard(browser, mailing, email, '/dashboard/profile');
    await page.getByText('Not confirmed', { exact: true }).waitFor();
    await page.getByText('Parley sends nothing to this address').waitFor();
    await page.getByRole('button', { name: 'Send the link again' }).click();
    await page.getByRole('status').filter({ hasText: `A new link is on its way to ${email}.` }).waitFor();
    await box.waitFor(box.mails.length + 1);
    expect(toHim()).toHaveLength(2);
    expect(await seriousViolations(page)).toEqual([]);
    for (const [theme, size, viewport] of [['light', 'desktop', DESKTOP], ['dark', 'desktop', DESKTOP], ['light', 'phone', PHONE]] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${theme} ${size}`).toEqual([]);
      await page.screenshot({ path: artifact(`dashboard-profile-unconfirmed-${theme}-${size}.png`), fullPage: true });
    }
    // A second within the minute is refused, and the page says why.
    await page.getByRole('button', { name: 'Send the link again' }).click();
    await page.getByRole('alert').filter({ hasText: 'A new confirmation link was mailed less than a minute ago' }).waitFor();
    await context.close();

    const team = await signedInDashboard(browser, mailing, owner.body.staff.email, '/dashboard/team');
    const row = team.page.getByRole('row').filter({ hasText: email });
    await row.getByText('Address not confirmed').waitFor();
    expect(await team.page.getByRole('row').filter({ hasText: owner.body.staff.email }).getByText('Address not confirmed').count()).toBe(0);
    expect(await seriousViolations(team.page)).toEqual([]);
    await team.context.close();
  });

  it('says why the address cannot be confirmed when the server sends no mail', async () => {
    const email = staffEmail('unconfirmed');
    await joinThroughInvite(silent, email);
    const { context, page } = await signedInDashboard(browser, silent, email, '/dashboard/profile');
    await page.getByText('Not confirmed', { exact: true }).waitFor();
    await page.getByText('so no link can confirm the address for now').waitFor();
    expect(await page.getByRole('button', { name: 'Send the link again' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('changes the password, ending the other sessions, and lists the sessions with this one marked, ending another', async () => {
    const site = await silent.newSite({});
    const owner = await addStaff(silent, site.account_id, 'owner', { name: 'Olive Owner' });
    const elsewhere = await signInStaff(silent, owner.email, undefined, { 'user-agent': 'Firefox on the office desktop' });
    const { context, page } = await signedInDashboard(browser, silent, owner.email, '/dashboard/profile');
    const sessions = page.locator('.sessions li');
    await expect.poll(() => sessions.count()).toBe(2);
    expect(await sessions.filter({ hasText: 'This session' }).count()).toBe(1);
    expect(await sessions.filter({ hasText: 'Firefox on the office desktop' }).getByRole('button', { name: /^End the session from/ }).count()).toBe(1);

    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password (10 characters or more)').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('alert').filter({ hasText: /password/i }).waitFor();
    await page.getByLabel('Current password').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('Your password is changed. Other sessions ended: 1.').waitFor();
    expect(await page.getByLabel('Current password').inputValue()).toBe('');
    await expect.poll(() => sessions.count()).toBe(1);
    expect((await silent.request('GET', '/api/auth/me', { headers: elsewhere.headers })).status).toBe(401);

    const another = await signInStaff(silent, owner.email, 'a brand new passphrase', { 'user-agent': 'Safari on a phone' });
    await page.reload();
    await expect.poll(() => sessions.count()).toBe(2);
    await shootEverywhere(page, 'd-profile', async (label) => expect(await seriousViolations(page), label).toEqual([]));
    await sessions.filter({ hasText: 'Safari on a phone' }).getByRole('button').click();
    await page.getByText('The session is ended').waitFor();
    await expect.poll(() => sessions.count()).toBe(1);
    expect((await silent.request('GET', '/api/auth/me', { headers: another.headers })).status).toBe(401);
    expect((await silent.request('GET', '/api/auth/me', { headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).status).toBe(200);
    await context.close();
  });
});
