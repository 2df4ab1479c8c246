import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../../test/helper.ts';
import { linkIn, mailingEnv, pathOf, startMailbox, type Mailbox } from '../../../test/mailbox.ts';
import { mailWords } from '../../mail/words.ts';
import { identityProvider, signedInReader } from './readers.fixture.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

let parley: TestParley;
let box: Mailbox;
beforeAll(async () => {
  box = await startMailbox();
  parley = await startParley(mailingEnv(box));
});
afterAll(async () => {
  await parley.close();
  await box.close();
});

const mailsTo = (address: string) => box.mails.filter((mail) => JSON.stringify(mail.to).includes(address));

/** A guest's comment with "Email me replies" to `email`, its confirmation link followed when `confirm`. */
async function guestComment(siteId: string, thread: string, email: string, content: string, confirm: boolean) {
  const mailed = mailsTo(email).length;
  const form = await parley.guestForm(siteId);
  const response = await parley.request('POST', '/v1/comments', { body: { site_id: siteId, thread_url: thread, ...form, content, author_name: 'A guest', notify_replies: true, email } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  await expect.poll(() => mailsTo(email).length, { timeout: 10_000 }).toBe(mailed + 1);
  if (confirm) expect((await parley.request('POST', pathOf(linkIn(mailsTo(email).at(-1)!, S('confirmAction'))))).status).toBe(200);
  return response.body.id as string;
}

describe("claiming a reader's guest comments", () => {
  it('makes theirs only the comments whose reply mails they confirmed to an address they proved on this site', async () => {
    const site = await parley.newSite({ siteName: 'Tea Blog' });
    const elsewhere = await parley.newSite({ siteName: 'Another Blog' });
    const thread = pageUrl();
    const theirs = await guestComment(site.site_id, thread, 'ann@example.com', 'Before I had an account', true);
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'guests' } });
    const held = await guestComment(site.site_id, thread, 'ann@example.com', 'Held for a moderator', true);
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'none' } });
    // Someone typed Ann's (confirmed) address under their own comment: its link went to Ann, who did not follow it.
    const typedByAnother = await guestComment(site.site_id, thread, 'ann@example.com', 'Not Ann at all', false);
    const notConfirmed = await guestComment(site.site_id, thread, 'ann.work@example.com', 'From work', false);
    const unproven = await guestComment(site.site_id, thread, 'someone@example.com', 'Someone else', true);
    const onAnotherSite = await guestComment(elsewhere.site_id, pageUrl(), 'ann@example.com', 'On another blog', true);

    // Ann proves ann@ by a code, and ann.work@ through GitHub, which vouches for it.
    const ann = await signedInReader(parley, site.site_id, { email: 'ann@example.com', name: 'Ann' });
    const github = await identityProvider(parley, site.site_id, 'github', 'GitHub');
    await signedInReader(parley, site.site_id, { provider: github, subject: 'ann-gh', email: 'ann@example.com' });
    await signedInReader(parley, site.site_id, { provider: github, subject: 'ann-gh', email: 'ann.work@example.com' });
    // A provider that does not vouch for someone@ proves nothing.
    const unvouched = await identityProvider(parley, site.site_id, 'oidc', 'Some OIDC');
    await signedInReader(parley, site.site_id, { provider: unvouched, subject: 'x', email: 'someone@example.com', emailVerified: false });

    expect((await parley.request('GET', '/v1/me', { token: ann.token })).body.claimable_guest_comments).toBe(2);
    const list = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}&sort=oldest`;
    expect((await parley.request('GET', list)).body.comments[0]).toMatchObject({ id: theirs, author_name: 'A guest', author_is_guest: true });

    const claimed = await parley.request('POST', '/v1/me/guest-comments/claim', { token: ann.token });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({ claimed: 2 });
    expect((await parley.request('POST', '/v1/me/guest-comments/claim', { token: ann.token })).body).toEqual({ claimed: 0 });
    expect((await parley.request('GET', '/v1/me', { token: ann.token })).body.claimable_guest_comments).toBe(0);

    // Lists already read show the new author; Ann sees her held comment as her own.
    const shown = (await parley.request('GET', list)).body.comments.map((c: { id: string; author_name: string; author_is_guest: boolean }) => [c.id, c.author_name, c.author_is_guest]);
    expect(shown).toEqual([
      [theirs, 'Ann', false],
      [typedByAnother, 'A guest', true],
      [notConfirmed, 'A guest', true],
      [unproven, 'A guest', true],
    ]);
    const annSees = (await parley.request('GET', list, { token: ann.token })).body.comments;
    expect(annSees.filter((c: { user_is_author: boolean }) => c.user_is_author).map((c: { id: string }) => c.id)).toEqual([theirs, held]);
    expect((await parley.request('GET', `/v1/comments/${onAnotherSite}`)).body.author_is_guest).toBe(true);
    expect((await parley.request('GET', '/v1/me/comments', { token: ann.token })).body.comments.map((c: { id: string }) => c.id)).toEqual([held, theirs]);

    // The per-author counts moved with them.
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${ann.user.id}`, { token: site.api_key });
    expect(profile.body.comments).toEqual({ published: 1, pending: 1, removed: 0, spam: 0 });
  }, 60_000);

  it("claims nothing for a site's SSO user", async () => {
    const site = await parley.newSite();
    await guestComment(site.site_id, pageUrl(), 'sam@example.com', 'As a guest', true);
    const sam = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'sam', name: 'Sam' } } });
    await parley.app.db.kysely.updateTable('site_users').set({ email: 'sam@example.com' }).where('id', '=', sam.body.user.id).execute();
    expect((await parley.request('GET', '/v1/me', { token: sam.body.token })).body.claimable_guest_comments).toBe(0);
    expect((await parley.request('POST', '/v1/me/guest-comments/claim', { token: sam.body.token })).body).toEqual({ claimed: 0 });
  }, 30_000);
});
