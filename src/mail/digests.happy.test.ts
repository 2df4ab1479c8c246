import { describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { headerOf, linkIn, mailingParleysPerTest, pathOf } from '../../test/mailbox.ts';
import { notify } from '../../test/notifications.ts';
import { sleep } from '../../test/receiver.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';
import { mailWords } from './words.ts';

const S = mailWords('en');
const mailingParley = mailingParleysPerTest(parleysPerTest());
/** Longer than two polls of the mail worker: what it would have sent by now, it has. */
const SETTLE_MS = 2_500;

/** A site with a page where Alice wrote, and Bob, a signed-in reader whose site gave his address. */
async function readers(parley: TestParley) {
  const site = await parley.newSite({ siteName: 'Tea Blog' });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  const db = parley.app.db.kysely;
  await db.updateTable('site_users').set({ email: 'bob@example.com' }).where('site_id', '=', site.site_id).where('external_id', '=', 'bob').execute();
  const bobId = (await db.selectFrom('site_users').select('id').where('site_id', '=', site.site_id).where('external_id', '=', 'bob').executeTakeFirstOrThrow()).id;
  const url = pageUrl();
  const post = async (token: string, content: string, parent_id?: string) => {
    const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: url, content, parent_id } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string };
  };
  const told = (kind: Parameters<typeof notify>[1]['kind'], commentId: string, data?: Record<string, unknown>) => notify(parley.app.db, { siteId: site.site_id, userId: bobId, kind, commentId, data });
  /** Makes Bob's digest due now, as the clock reaching his 08:00 would. */
  const digestDue = () => db.updateTable('site_users').set({ digest_due_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', bobId).execute();
  return { site, bob, alice, bobId, url, post, told, digestDue };
}

describe('notification mails and digests', () => {
  it("mails an instant reader each followed page's new comment and each decision with its reason", async () => {
    const { parley, box } = await mailingParley();
    const { site, alice, bob, bobId, url, post, told } = await readers(parley);
    const comment = await post(alice, 'Oolong is best brewed twice.');
    const db = parley.app.db.kysely;
    const { thread_id } = await db.selectFrom('comments').select('thread_id').where('id', '=', comment.id).executeTakeFirstOrThrow();
    const follow = { id: 'fol_bob_follows', site_id: site.site_id, user_id: bobId, thread_id, created_at: new Date().toISOString() };
    await db.insertInto('follows').values(follow).execute();
    const made = await told('followed_thread', comment.id);
    expect(made.mailed_at).not.toBeNull();

    const [followed] = await box.waitFor(1);
    expect(followed.to).toMatchObject({ value: [{ address: 'bob@example.com' }] });
    expect(followed.subject).toBe(S('notice.followedSubject', { count: 1, page: url }));
    expect(followed.text).toContain('Alice wrote:');
    expect(followed.text).toContain('> Oolong is best brewed twice.');
    expect(linkIn(followed, S('notice.followedOpen'))).toBe(`${url}#parley_comment=${comment.id}`);

    const own = await post(bob, 'Buy cheap tea at spam.example');
    await told('moderation', own.id, { action: 'removed', reason: 'Advertising' });
    const [, notice] = await box.waitFor(2);
    expect(notice.subject).toBe(S('notice.removedSubject', { page: url }));
    expect(notice.text).toContain(S('notice.removedIntro'));
    expect(notice.text).toContain(S('notice.reason', { reason: 'Advertising' }));
    expect(notice.text).toContain(S('notice.contest'));
    expect(notice.text).not.toContain(S('notice.contact'));

    // The followed mail's one-click unsubscribe stops following the page: the next comment tells by mail no more.
    const oneClick = String(headerOf(followed, 'List-Unsubscribe')).replace(/^<|>$/g, '');
    expect((await parley.request('GET', pathOf(oneClick))).body).toContain(S('notice.pageUnfollowAsk'));
    expect((await parley.request('POST', pathOf(oneClick), { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    expect(await db.selectFrom('follows').select('id').where('id', '=', follow.id).execute()).toEqual([]);
    await told('followed_thread', (await post(alice, 'Second steep.')).id);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
  }, 30_000);

  it("tells how to contest a decision through the site's contact when the site gave one", async () => {
    const { parley, box } = await mailingParley();
    const { site, bob, url, post, told } = await readers(parley);
    const contact = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { contact: 'help@example.com' } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(200);
    await told('moderation', (await post(bob, 'Buy cheap tea at spam.example')).id, { action: 'spam', reason: null });
    const [notice] = await box.waitFor(1);
    expect(notice.subject).toBe(S('notice.spamSubject', { page: url }));
    expect(notice.text).toContain(S('notice.contestWithContact'));
    expect(notice.text).not.toContain(S('notice.contest'));
    expect(linkIn(notice, S('notice.contact'))).toBe('mailto:help@example.com');
    expect(notice.html).toContain(`<a href="mailto:help@example.com">${S('notice.contact')}</a>`);
  }, 30_000);

  it('sends a daily reader no mail per event, then one digest of everything unread at their hour, once', async () => {
    const { parley, box } = await mailingParley();
    const { alice, bob, bobId, url, post, told, digestDue } = await readers(parley);
    const set = await parley.request('PUT', '/v1/sessions/current/mail', { token: bob, body: { frequency: 'daily', time_zone: 'Europe/Berlin', notify_replies: true } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ frequency: 'daily', time_zone: 'Europe/Berlin', notify_replies: true });
    const db = parley.app.db.kysely;
    const { digest_due_at } = await db.selectFrom('site_users').select('digest_due_at').where('id', '=', bobId).executeTakeFirstOrThrow();
    // 08:00 in Berlin is 07:00 UTC in winter, 06:00 in summer.
    expect(digest_due_at).toMatch(/T0[67]:00:00\.000Z$/);
    expect(Date.parse(digest_due_at!) - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const mine = await post(bob, 'Which green tea?');
    const reply = await post(alice, 'Sencha, @Bob.', mine.id);
    // The fan-out worker tells Bob of Alice's reply, as it would any reader.
    await expect.poll(() => db.selectFrom('notifications').select('id').where('user_id', '=', bobId).where('comment_id', '=', reply.id).execute()).toHaveLength(1);
    await told('moderation', mine.id, { action: 'held', reason: null });
    const read = await told('mention', (await post(alice, 'Already seen')).id);
    await db.updateTable('notifications').set({ read_at: new Date().toISOString() }).where('id', '=', read.id).execute();
    await sleep(SETTLE_MS);
    // No reply mail, no decision mail: the digest tells of them.
    expect(box.mails).toHaveLength(0);

    await digestDue();
    const [digest] = await box.waitFor(1);
    expect(digest.subject).toBe(S('digest.dailySubject', { count: 2, site: 'Tea Blog' }));
    expect(digest.text).toContain(S('digest.reply', { name: 'Alice', page: url }));
    expect(digest.text).toContain('> Sencha, @Bob.');
    expect(digest.text).toContain(S('notice.heldSubject', { page: url }));
    expect(digest.text).not.toContain('Already seen');
    expect(headerOf(digest, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const unmailed = await db.selectFrom('notifications').select('id').where('user_id', '=', bobId).where('mailed_at', 'is', null).where('read_at', 'is', null).execute();
    expect(unmailed).toEqual([]);
    const after = await db.selectFrom('site_users').select('digest_due_at').where('id', '=', bobId).executeTakeFirstOrThrow();
    expect(Date.parse(after.digest_due_at!)).toBeGreaterThan(Date.now());

    // Nothing new: the next due digest sends nothing.
    await digestDue();
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);

    // One click stops notification mail altogether.
    const oneClick = String(headerOf(digest, 'List-Unsubscribe')).replace(/^<|>$/g, '');
    expect((await parley.request('POST', pathOf(oneClick), { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    expect((await parley.request('GET', '/v1/sessions/current/mail', { token: bob })).body).toMatchObject({ frequency: 'off' });
  }, 30_000);

  it('sends a weekly digest on Mondays at 08:00 of the time zone, and refuses an unknown zone', async () => {
    const { parley } = await mailingParley();
    const { bob, bobId } = await readers(parley);
    const wrong = await parley.request('PUT', '/v1/sessions/current/mail', { token: bob, body: { frequency: 'weekly', time_zone: 'Mars/Olympus' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].path).toBe('body/time_zone');
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { token: bob, body: {} })).status).toBe(400);
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { token: bob, body: { frequency: 'weekly', time_zone: 'Asia/Tokyo' } })).status).toBe(200);
    const { digest_due_at } = await parley.app.db.kysely.selectFrom('site_users').select('digest_due_at').where('id', '=', bobId).executeTakeFirstOrThrow();
    const local = new Intl.DateTimeFormat('en', { timeZone: 'Asia/Tokyo', weekday: 'long', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).format(new Date(digest_due_at!));
    expect(local).toBe('Monday 08:00');
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { token: bob, body: { frequency: 'instant' } })).body).toMatchObject({ frequency: 'instant', time_zone: 'Asia/Tokyo' });
    expect((await parley.app.db.kysely.selectFrom('site_users').select('digest_due_at').where('id', '=', bobId).executeTakeFirstOrThrow()).digest_due_at).toBeNull();
  });

  it('gives a moderator who chose the daily digest no mail per held comment, and one a day with the counts and the queue', async () => {
    const { parley, box } = await mailingParley();
    const site = await parley.newSite({ siteName: 'Tea Blog', moderation: 'all' });
    const staff = await addStaff(parley, site.account_id, 'moderator');
    const session = await signInStaff(parley, staff.email);
    const set = await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { moderation_mail: 'all', frequency: 'daily', time_zone: 'America/New_York' } });
    expect(set.body).toEqual({ moderation_mail: 'all', mail_enabled: true, frequency: 'daily', time_zone: 'America/New_York' });
    const url = pageUrl();
    for (const content of ['First held', 'Second held']) {
      const held = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: url, content, author_name: 'Gus', ...(await parley.guestForm(site.site_id)) } });
      expect(held.body.status).toBe('pending');
    }
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(0);

    await parley.app.db.kysely.updateTable('staff').set({ digest_due_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', staff.id).execute();
    const [digest] = await box.waitFor(1);
    expect(digest.subject).toBe(S('digest.staffSubject', { count: 2 }));
    expect(digest.text).toContain(S('digest.staffPending', { site: 'Tea Blog', count: 2 }));
    expect(linkIn(digest, S('digest.staffQueue', { site: 'Tea Blog' }))).toBe(`https://comments.example.com/dashboard/queue?site=${site.site_id}&tab=pending`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);
  }, 30_000);
});
