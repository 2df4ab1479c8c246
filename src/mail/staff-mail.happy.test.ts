import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, mailingParleysPerTest } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const start = parleysPerTest();
/** Longer than two polls of the mail worker: what it would have sent by now, it has. */
const SETTLE_MS = 2_500;
const INTERVAL_MS = 10 * 60_000;
const mailingParley = mailingParleysPerTest(start);
// Registered after the mailbox's hook, so it runs before it (hooks after a test run last first):
// the mailbox's SMTP conversation ends on the real clock.
afterEach(() => {
  vi.useRealTimers();
});

/** A site whose comments all wait for approval, with what its readers and moderators do. */
async function moderatedSite(parley: TestParley) {
  const created = await parley.newSite({ siteName: 'Tea Blog', moderation: 'all' });
  const site = { ...created, url: pageUrl() };
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const post = async (content: string) => {
    const response = await parley.request('POST', '/v1/comments', { token: bob, body: { site_id: site.site_id, thread_url: site.url, content } });
    expect(response.body.status).toBe('pending');
    return response.body as { id: string };
  };
  const flag = async (id: string, reason: string) => expect((await parley.request('POST', `/v1/comments/${id}/flag`, { body: { reason } })).status).toBe(200);
  const moderate = async (id: string, action: string) => expect((await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } })).status).toBe(200);
  return { site, post, flag, moderate };
}

async function moderatorWanting(parley: TestParley, accountId: string, choice: 'pending' | 'all') {
  const staff = await addStaff(parley, accountId, 'moderator');
  const session = await signInStaff(parley, staff.email);
  expect((await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { moderation_mail: choice } })).status).toBe(200);
  return staff;
}

describe('mail to staff', () => {
  it('mails each moderator as they chose: off nothing, pending for held comments, all for flags too', async () => {
    const { parley, box } = await mailingParley();
    const site = await parley.newSite({ siteName: 'Tea Blog', moderation: 'guests' });
    const choices = { off: await addStaff(parley, site.account_id, 'owner'), pending: await addStaff(parley, site.account_id, 'moderator'), all: await addStaff(parley, site.account_id, 'admin') };
    for (const [choice, staff] of Object.entries(choices)) {
      const session = await signInStaff(parley, staff.email);
      const set = await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { moderation_mail: choice } });
      expect(set.body).toEqual({ moderation_mail: choice, mail_enabled: true, frequency: 'instant', time_zone: null });
      expect((await parley.request('GET', '/api/auth/me/mail', { headers: session.headers })).body.moderation_mail).toBe(choice);
      // Fields it does not know are ignored: a body of nothing else changes nothing.
      expect((await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { a: 1 } })).body).toEqual(set.body);
    }
    const url = pageUrl();
    const held = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: url, content: 'Please approve me', author_name: 'Gus' } });
    expect(held.body.status).toBe('pending');
    const mails = await box.waitFor(2);
    expect(mails.map((m) => m.to && 'value' in m.to && m.to.value[0].address).sort()).toEqual([choices.pending.email, choices.all.email].sort());
    expect(mails[0].subject).toBe(S('moderationSubjectPending', { site: 'Tea Blog', pending: 1 }));
    expect(mails[0].text).toContain('Please approve me');
    // The comment in its thread, where the dashboard moderates it.
    const opened = new URLSearchParams({ site: site.site_id, url: held.body.thread_url, comment: held.body.id });
    expect(linkIn(mails[0], S('moderationOpen'))).toBe(`https://comments.example.com/dashboard/thread?${opened}`);

    // The flag comes within ten minutes of the mail about the held comment: it waits for their end.
    await sleep(SETTLE_MS);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const key = site.api_key;
    const published = await parley.request('POST', '/v1/comments', { token: key, body: { site_id: site.site_id, thread_url: url, content: 'Rude words' } });
    expect((await parley.request('POST', `/v1/comments/${published.body.id}/flag`, { body: { reason: 'rude' } })).status).toBe(200);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
    vi.setSystemTime(Date.now() + INTERVAL_MS);
    const [, , flagged] = await box.waitFor(3);
    expect(flagged.to).toMatchObject({ value: [{ address: choices.all.email }] });
    expect(flagged.subject).toBe(S('moderationSubjectFlagged', { site: 'Tea Blog', flagged: 1 }));
    expect(flagged.text).toContain('(flagged: rude)');
    expect(flagged.text).not.toContain('Please approve me');
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(3);
  }, 30_000);

  it('rolls the comments held or flagged within ten minutes into one mail, without those approved meanwhile', async () => {
    const { parley, box } = await mailingParley();
    const { site, post, flag, moderate } = await moderatedSite(parley);
    const moderator = await moderatorWanting(parley, site.account_id, 'all');
    await post('First of the day');
    // The first mail of a quiet period goes at once.
    const [alone] = await box.waitFor(1);
    expect(alone.to).toMatchObject({ value: [{ address: moderator.email }] });
    expect(alone.subject).toBe(S('moderationSubjectPending', { site: 'Tea Blog', pending: 1 }));
    expect(alone.text).toContain('First of the day');
    await sleep(SETTLE_MS);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const kept = await post('Buy cheap watches');
    const approved = await post('A fair question about tea');
    const also = await post('More cheap watches');
    const shown = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: site.url, content: 'Rude words' } });
    await flag(shown.body.id, 'rude');
    await moderate(approved.id, 'approve');
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);

    vi.setSystemTime(Date.now() + INTERVAL_MS);
    const [, rolled] = await box.waitFor(2);
    expect(rolled.subject).toBe(S('moderationSubjectBoth', { site: 'Tea Blog', pending: 2, flagged: 1 }));
    expect(rolled.text).toContain(S('moderationPendingHeading', { count: 2 }));
    expect(rolled.text).toContain(S('moderationFlaggedHeading', { count: 1 }));
    expect(rolled.text).toContain('Buy cheap watches');
    expect(rolled.text).toContain('More cheap watches');
    expect(rolled.text).toContain(`${S('moderationFlaggedBy', { name: shown.body.author_name, reasons: 'rude' })}\n\n> Rude words`);
    expect(rolled.text).not.toMatch(/First of the day|A fair question/);
    // Each comment with its link in the dashboard, in the order they came, then the queue.
    const links = (rolled.text ?? '').split('\n').filter((line) => line.startsWith(`${S('moderationOpen')}: `)).map((line) => new URL(line.slice(S('moderationOpen').length + 2)).searchParams.get('comment'));
    expect(links).toEqual([kept.id, also.id, shown.body.id]);
    expect(linkIn(rolled, S('moderationQueue'))).toBe(`https://comments.example.com/dashboard/queue?site=${site.site_id}&tab=pending`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);

    // Held after that mail, then approved before the next could go: nothing is left to tell.
    const late = await post('Held, then approved');
    await moderate(late.id, 'approve');
    vi.setSystemTime(Date.now() + INTERVAL_MS);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
    const states = await parley.app.db.kysely.selectFrom('mail_outbox').select(['state', 'data']).where('recipient', '=', moderator.email).execute();
    expect(states.find((row) => row.data.includes(late.id))?.state).toBe('dropped');
    expect(states.filter((row) => row.state === 'pending')).toEqual([]);
  }, 30_000);

  it('lists twenty comments of a wave and counts the others, for each moderator one mail', async () => {
    const { parley, box } = await mailingParley();
    const { site, post } = await moderatedSite(parley);
    const moderators = [await moderatorWanting(parley, site.account_id, 'pending'), await moderatorWanting(parley, site.account_id, 'all')];
    await post('Before the wave');
    await box.waitFor(2);
    await sleep(SETTLE_MS);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let n = 1; n <= 24; n++) await post(`Spam number ${n}`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
    vi.setSystemTime(Date.now() + INTERVAL_MS);
    const mails = (await box.waitFor(4)).slice(2);
    expect(mails.map((mail) => mail.to && 'value' in mail.to && mail.to.value[0].address).sort()).toEqual(moderators.map((m) => m.email).sort());
    for (const mail of mails) {
      expect(mail.subject).toBe(S('moderationSubjectPending', { site: 'Tea Blog', pending: 24 }));
      expect(mail.text).toContain('> Spam number 20\n');
      expect(mail.text).not.toContain('> Spam number 21');
      expect(mail.text).toContain(S('moderationMore', { count: 4 }));
      expect(linkIn(mail, S('moderationQueue'))).toBe(`https://comments.example.com/dashboard/queue?site=${site.site_id}&tab=pending`);
    }
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(4);
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
    const link = linkIn(mail, S('resetSubject'));
    expect(link).toBe(issued.body.url);
    const token = new URL(link).hash.replace('#token=', '');
    expect((await parley.request('POST', '/api/auth/reset', { body: { token, password: 'a brand new password' } })).status).toBe(200);
    expect(pathOf(link)).toBe('/dashboard/reset-password');
  }, 30_000);
});
