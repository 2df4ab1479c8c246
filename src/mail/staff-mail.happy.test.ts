import { afterEach, describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';
import { MAIL_STRINGS as S } from './strings.ts';

const start = parleysPerTest();
const boxes: Mailbox[] = [];
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((box) => box.close()));
});

async function mailingParley() {
  const box = await startMailbox();
  boxes.push(box);
  const parley = await start({ PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_PUBLIC_URL: 'https://comments.example.com' });
  return { parley, box };
}

describe('mail to staff', () => {
  it('mails each moderator as they chose: off nothing, pending for held comments, all for flags too', async () => {
    const { parley, box } = await mailingParley();
    const site = await parley.newSite({ siteName: 'Tea Blog', moderation: 'guests' });
    const choices = { off: await addStaff(parley, site.account_id, 'owner'), pending: await addStaff(parley, site.account_id, 'moderator'), all: await addStaff(parley, site.account_id, 'admin') };
    for (const [choice, staff] of Object.entries(choices)) {
      const session = await signInStaff(parley, staff.email);
      const set = await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { moderation_mail: choice } });
      expect(set.body).toEqual({ moderation_mail: choice, mail_enabled: true });
      expect((await parley.request('GET', '/api/auth/me/mail', { headers: session.headers })).body.moderation_mail).toBe(choice);
    }
    const url = pageUrl();
    const held = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: url, content: 'Please approve me', author_name: 'Gus' } });
    expect(held.body.status).toBe('pending');
    const mails = await box.waitFor(2);
    expect(mails.map((m) => m.to && 'value' in m.to && m.to.value[0].address).sort()).toEqual([choices.pending.email, choices.all.email].sort());
    expect(mails[0].subject).toBe(S.moderationPendingSubject('Tea Blog'));
    expect(mails[0].text).toContain('Please approve me');
    // The comment in its thread, where the dashboard moderates it.
    const opened = new URLSearchParams({ site: site.site_id, url: held.body.thread_url, comment: held.body.id });
    expect(linkIn(mails[0], S.moderationOpen)).toBe(`https://comments.example.com/dashboard/thread?${opened}`);

    const key = site.api_key;
    const published = await parley.request('POST', '/v1/comments', { token: key, body: { site_id: site.site_id, thread_url: url, content: 'Rude words' } });
    expect((await parley.request('POST', `/v1/comments/${published.body.id}/flag`, { body: { reason: 'rude' } })).status).toBe(200);
    const [, , flagged] = await box.waitFor(3);
    expect(flagged.to).toMatchObject({ value: [{ address: choices.all.email }] });
    expect(flagged.subject).toBe(S.moderationFlaggedSubject('Tea Blog'));
    expect(flagged.text).toContain('(rude)');
    await sleep(2_500);
    expect(box.mails).toHaveLength(3);
  }, 30_000);

  it('mails a password reset link to the person it is for, and the link works', async () => {
    const { parley, box } = await mailingParley();
    const site = await parley.newSite();
    const owner = await addStaff(parley, site.account_id, 'owner');
    const moderator = await addStaff(parley, site.account_id, 'moderator');
    const session = await signInStaff(parley, owner.email);
    const issued = await parley.request('POST', `/api/accounts/${site.account_id}/members/${moderator.id}/reset-link`, { headers: session.headers });
    expect(issued.status).toBe(201);
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: moderator.email }] });
    const link = linkIn(mail, S.resetSubject);
    expect(link).toBe(issued.body.url);
    const token = new URL(link).hash.replace('#token=', '');
    expect((await parley.request('POST', '/api/auth/reset', { body: { token, password: 'a brand new password' } })).status).toBe(200);
    expect(pathOf(link)).toBe('/dashboard/reset-password');
  }, 30_000);
});
