import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { launchBrowser, signedInDashboard } from '../../test/dashboard.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
/** One Parley that sends mail through a real SMTP server, one with no mail set up. */
let mailing: TestParley;
let silent: TestParley;
let box: Mailbox;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  box = await startMailbox();
  mailing = await startParley({ PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_PUBLIC_URL: 'https://comments.example.com' });
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
    expect((await mailing.request('GET', '/api/auth/me/mail', { headers: session.headers })).body).toEqual({ moderation_mail: 'all', mail_enabled: true });
    await page.reload();
    expect(await page.getByLabel('A mail when a comment waits for approval or is flagged').isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
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
});
