import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { mailWords } from '../mail/words.ts';
import { exportSite } from '../transfer/export.ts';
import { ERASED_NAME } from './erase.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

/** Longer than two polls of the mail worker: what it would have sent by now, it has. */
const SETTLE_MS = 2_500;

let parley: TestParley;
let box: Mailbox;
beforeAll(async () => {
  box = await startMailbox();
  parley = await startParley({ PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com' });
});
afterAll(async () => {
  await parley.close();
  await box.close();
});

async function exported(siteId: string, includePersonalData: boolean): Promise<string> {
  const chunks: string[] = [];
  await exportSite(parley.app.db.kysely, { siteId, format: 'parley', includePersonalData }, new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }));
  return chunks.join('');
}

const mailsTo = (address: string) => box.mails.filter((mail) => JSON.stringify(mail.to).includes(address));

describe('erasing a site user', () => {
  it("deletes their addresses, subscriptions and unsent mails, ends their sessions and replaces their name; their comments stay", async () => {
    const site = await parley.newSite({ siteName: 'Tea Blog' });
    const url = pageUrl();
    const signedIn = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'bob-42', name: 'Bob Example' } } });
    const { token: bob, user: { id: userId } } = signedIn.body as { token: string; user: { id: string } };
    const carol = await parley.signIn(site.api_key, site.site_id, { id: 'carol', name: 'Carol' });
    const post = async (token: string, body: Record<string, unknown>) => {
      const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: url, ...body } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body as { id: string; author_name: string };
    };

    // Bob asks for replies by mail under two addresses: one confirmed, one waiting for its link.
    const asked = await post(bob, { content: 'Which tea is best?', notify_replies: true, email: 'bob@example.com' });
    await expect.poll(() => mailsTo('bob@example.com').length, { timeout: 10_000 }).toBe(1);
    expect((await parley.request('POST', pathOf(linkIn(mailsTo('bob@example.com')[0], S('confirmAction'))))).status).toBe(200);
    await post(bob, { content: 'And which cup?', notify_replies: true, email: 'bob.other@example.com' });
    await expect.poll(() => mailsTo('bob.other@example.com').length, { timeout: 10_000 }).toBe(1);
    // The address the site's SSO token gave for Bob, which he once left as a guest too.
    await parley.app.db.kysely.updateTable('site_users').set({ email: 'Bob.SSO@example.com' }).where('id', '=', userId).execute();
    const guestForm = await parley.guestForm(site.site_id);
    const asGuest = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: url, ...guestForm, content: 'Before I had an account', author_name: 'B.', notify_replies: true, email: 'bob.sso@example.com' } });
    expect(asGuest.status).toBe(201);
    await post(carol, { content: 'Oolong, clearly.', parent_id: asked.id });
    await expect.poll(() => mailsTo('bob@example.com').length, { timeout: 10_000 }).toBe(2);
    // A second reply within ten minutes waits in the outbox for the next mail.
    await post(carol, { content: 'Or a green one.', parent_id: asked.id });
    const queued = () => parley.app.db.kysely.selectFrom('mail_outbox').select(['recipient', 'state']).where('site_id', '=', site.site_id).where('recipient', 'like', 'bob%').execute();
    expect(await queued()).toContainEqual({ recipient: 'bob@example.com', state: 'pending' });

    // Read once before, so that what lists keep is what must change.
    const listPath = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(url)}&sort=oldest`;
    expect((await parley.request('GET', listPath)).body.comments[0].author_name).toBe('Bob Example');
    expect((await parley.request('GET', `/v1/comments/${asked.id}`)).body.author_name).toBe('Bob Example');
    const personal = /bob@example\.com|bob\.other@example\.com|bob\.sso@example\.com|bob-42/i;
    expect(await exported(site.site_id, false)).not.toMatch(personal);
    const before = await exported(site.site_id, true);
    expect(before).toContain('bob@example.com');
    expect(before).toContain('bob.sso@example.com');
    expect(before).toContain('Bob Example');

    expect((await parley.request('GET', '/v1/sessions/current/mail', { token: bob })).status).toBe(200);
    // A label the site gave Bob shows on his comments until he is erased.
    await parley.request('PATCH', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key, body: { labels: ['Tea sommelier'] } });
    expect((await parley.request('GET', `/v1/comments/${asked.id}`)).body.author_badges).toEqual(['verified', 'Tea sommelier']);
    const erase = () => parley.request('DELETE', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key });
    const erased = await erase();
    expect(erased.status).toBe(204);
    expect(erased.body).toBeUndefined();

    // Nothing of the addresses is left, and nothing more goes to them.
    expect(await parley.app.db.kysely.selectFrom('mail_addresses').select('email').where('site_id', '=', site.site_id).execute()).toEqual([]);
    expect(await parley.app.db.kysely.selectFrom('mail_subscriptions').select('comment_id').where('comment_id', '=', asked.id).execute()).toEqual([]);
    expect(await queued()).toEqual([]);
    await post(carol, { content: 'Anyone still there?', parent_id: asked.id });
    await sleep(SETTLE_MS);
    expect(mailsTo('bob@example.com')).toHaveLength(2);
    expect(await queued()).toEqual([]);
    expect(await exported(site.site_id, false)).not.toMatch(personal);
    const after = await exported(site.site_id, true);
    expect(after).not.toMatch(personal);
    expect(after).not.toContain('Bob Example');

    // The session is over; the comments stay under the placeholder name.
    expect((await parley.request('GET', '/v1/sessions/current/mail', { token: bob })).status).toBe(401);
    expect((await parley.request('GET', `/v1/comments/${asked.id}`)).body.author_name).toBe(ERASED_NAME);
    const list = await parley.request('GET', listPath);
    // The guest comment was never Bob's as far as Parley knows: it keeps its name, not its address.
    expect(list.body.comments.map((c: { author_name: string; content: string }) => [c.author_name, c.content])).toEqual([
      [ERASED_NAME, 'Which tea is best?'],
      [ERASED_NAME, 'And which cup?'],
      ['B.', 'Before I had an account'],
    ]);
    expect(list.body.comments[0].replies.map((c: { author_name: string }) => c.author_name)).toEqual(['Carol', 'Carol', 'Carol']);
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key });
    expect(profile.body).toMatchObject({ id: userId, name: ERASED_NAME, avatar_url: null, labels: [], erased_at: expect.any(String), comments: { published: 2 } });
    expect((await parley.request('GET', `/v1/comments/${asked.id}`)).body.author_badges).toEqual(['verified']);
    expect(profile.body.external_id).not.toContain('bob-42');
    expect((await parley.app.db.kysely.selectFrom('site_users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email).toBeNull();

    // The site signing the same person in again starts a new user.
    const again = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'bob-42', name: 'Bob Example' } } });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(userId);

    // Asking again changes nothing; the audit log holds one entry, without what was erased.
    expect((await erase()).status).toBe(204);
    const audit = await parley.request('GET', `/api/accounts/${site.account_id}/audit-log`, { token: site.api_key });
    const entries = audit.body.entries.filter((entry: { action: string }) => entry.action === 'user.erased');
    expect(entries).toEqual([
      expect.objectContaining({ target: userId, data: { site_id: site.site_id, addresses: 3, sign_in_methods: 0, sessions_ended: 1, comments_renamed: 2, mentions_renamed: 0 } }),
    ]);
    expect(JSON.stringify(audit.body)).not.toMatch(/bob@example|Bob Example|bob-42/);
  }, 60_000);
});
