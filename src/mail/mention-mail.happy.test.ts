import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { headerOf, linkIn, mailingParleysPerTest, pathOf, type Mailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { signedInReader } from '../readers/me/readers.fixture.ts';
import { MENTION_MAILS_PER_DAY } from './mentions.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const mailingParley = mailingParleysPerTest(parleysPerTest());
afterEach(() => {
  vi.useRealTimers();
});

/** Longer than two polls of the mail worker: what it would have sent by now, it has. */
const SETTLE_MS = 2_500;

/**
 * A site with a thread, Bob and Carl (the site's users, through its backend) and Mo (a moderator),
 * and readers who signed in by email codes (so with a proven address) as `reader` makes them.
 */
async function thread(parley: TestParley, moderation: 'none' | 'all' = 'none') {
  const site = await parley.newSite({ siteName: 'Tea Blog', moderation });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const carl = await parley.signIn(site.api_key, site.site_id, { id: 'carl', name: 'Carl' });
  const mo = await parley.signIn(site.api_key, site.site_id, { id: 'mo', name: 'Mo', moderator: true });
  const url = pageUrl();
  const reader = async (name: string) => {
    const session = await signedInReader(parley, site.site_id, { email: `${name.toLowerCase()}@example.com`, name });
    return { token: session.token, id: session.user.id, mention: `@[${name}](${session.user.id})` };
  };
  const post = async (token: string, content: string) => {
    const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: url, content } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; status: string; mentions: Array<{ user_id: string; name: string }> };
  };
  const edit = async (token: string, id: string, content: string) => {
    const response = await parley.request('PATCH', `/v1/comments/${id}`, { token, body: { content } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  return { site, bob, carl, mo, url, reader, post, edit };
}

const mailsTo = (box: Mailbox, address: string) => box.mails.filter((mail) => JSON.stringify(mail.to).includes(address));

describe('mention mails', () => {
  it('mails a mentioned reader once, naming who mentioned them, quoting the text and linking the comment, with a one-click link that turns mention mail off', async () => {
    const { parley, box } = await mailingParley();
    const { bob, url, reader, post, edit } = await thread(parley);
    const ann = await reader('Ann');
    const comment = await post(bob, `Ask ${ann.mention} about **oolong**.`);
    expect(comment.mentions).toEqual([{ user_id: ann.id, name: 'Ann' }]);

    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'ann@example.com' }] });
    expect(mail.from?.value[0]).toEqual({ name: 'Tea Blog', address: 'comments@example.com' });
    expect(mail.subject).toBe(S('mentionSubject', { count: 1, page: url }));
    expect(mail.text).toContain(S('mentionBy', { name: 'Bob' }));
    expect(mail.text).toContain('> Ask @Ann about **oolong**.');
    expect(linkIn(mail, S('mentionOpen'))).toBe(`${url}#parley_comment=${comment.id}`);
    expect(mail.html).toContain('Ask @Ann about **oolong**.');
    expect(mail.html).not.toContain('<strong>');

    // Edited with the mention kept: still one mail.
    await edit(bob, comment.id, `Ask ${ann.mention} about **oolong** tea.`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);

    const oneClick = String(headerOf(mail, 'List-Unsubscribe')).replace(/^<|>$/g, '');
    expect(headerOf(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(oneClick).toBe(linkIn(mail, S('unsubscribeMentions')));
    expect((await parley.request('GET', pathOf(oneClick))).body).toContain(S('pageUnsubscribeAskMentions'));
    const clicked = await parley.request('POST', pathOf(oneClick), { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(clicked.status).toBe(200);
    expect(clicked.body).toContain(S('pageUnsubscribeDone'));
    expect((await parley.request('GET', '/v1/me', { token: ann.token })).body.mail).toEqual({ notify_replies: false, mention_mail: false });

    await post(bob, `${ann.mention}, are you there?`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);
  }, 30_000);

  it('mails nothing for a comment held for approval until a moderator approves it, then once', async () => {
    const { parley, box } = await mailingParley();
    const { carl, mo, reader, post } = await thread(parley, 'all');
    const ann = await reader('Ann');
    const held = await post(carl, `Thanks ${ann.mention}!`);
    expect(held.status).toBe('pending');
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(0);

    expect((await parley.request('PATCH', `/v1/comments/${held.id}/moderate`, { token: mo, body: { action: 'approve' } })).status).toBe(200);
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'ann@example.com' }] });
    expect(mail.text).toContain('> Thanks @Ann!');
    // Removed and approved again: the comment is public again, and Ann was told already.
    expect((await parley.request('PATCH', `/v1/comments/${held.id}/moderate`, { token: mo, body: { action: 'remove' } })).status).toBe(200);
    expect((await parley.request('PATCH', `/v1/comments/${held.id}/moderate`, { token: mo, body: { action: 'approve' } })).status).toBe(200);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);
  }, 30_000);

  it('mails no one for a shadow-banned author, never the author themselves, and no reader who turned mention mail off', async () => {
    const { parley, box } = await mailingParley();
    const { carl, mo, bob, reader, post } = await thread(parley);
    const ann = await reader('Ann');
    const cy = await reader('Cy');
    const first = await post(carl, 'Hello all');
    expect((await parley.request('PATCH', `/v1/comments/${first.id}/moderate`, { token: mo, body: { action: 'shadow_ban' } })).status).toBe(200);
    const shadowed = await post(carl, `Psst ${ann.mention}`);
    expect(shadowed.status).toBe('published');
    await post(ann.token, `Note to self, ${ann.mention}: buy tea.`);

    const switched = await parley.request('PATCH', '/v1/me', { token: cy.token, body: { mention_mail: false } });
    expect(switched.status).toBe(200);
    expect(switched.body.mail.mention_mail).toBe(false);
    expect((await parley.request('GET', '/v1/me', { token: cy.token })).body.mail.mention_mail).toBe(false);
    await post(bob, `What do you think, ${cy.mention}?`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(0);

    // A site's own user may switch it too (their name is the site's to change, not this).
    expect((await parley.request('PATCH', '/v1/me', { token: bob, body: { mention_mail: false } })).body.mail.mention_mail).toBe(false);
    expect((await parley.request('PATCH', '/v1/me', { token: bob, body: { name: 'Robert' } })).status).toBe(403);
    expect((await parley.request('PATCH', '/v1/me', { token: cy.token, body: { mention_mail: true } })).body.mail.mention_mail).toBe(true);
    await post(bob, `Now, ${cy.mention}?`);
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'cy@example.com' }] });
  }, 30_000);

  it('mails only the readers an edit newly mentions, once the public sees the edit', async () => {
    const { parley, box } = await mailingParley();
    const { bob, reader, post, edit } = await thread(parley);
    const [ann, dee, eve] = [await reader('Ann'), await reader('Dee'), await reader('Eve')];
    const comment = await post(bob, `Cheers ${ann.mention}`);
    await box.waitFor(1);
    await edit(bob, comment.id, `Cheers ${ann.mention} and ${dee.mention}`);
    const [, second] = await box.waitFor(2);
    expect(second.to).toMatchObject({ value: [{ address: 'dee@example.com' }] });
    expect(second.text).toContain('> Cheers @Ann and @Dee');
    // Dee taken out, then back with Eve: Eve alone is told.
    await edit(bob, comment.id, `Cheers ${ann.mention}`);
    await edit(bob, comment.id, `Cheers ${ann.mention}, ${dee.mention} and ${eve.mention}`);
    const [, , third] = await box.waitFor(3);
    expect(third.to).toMatchObject({ value: [{ address: 'eve@example.com' }] });
    await sleep(SETTLE_MS);
    expect(mailsTo(box, 'ann@example.com')).toHaveLength(1);
    expect(mailsTo(box, 'dee@example.com')).toHaveLength(1);
    expect(box.mails).toHaveLength(3);
  }, 30_000);

  it('rolls the mentions of one reader on one page within ten minutes into one mail', async () => {
    const { parley, box } = await mailingParley();
    const { bob, carl, url, reader, post } = await thread(parley);
    const ann = await reader('Ann');
    await post(bob, `First, ${ann.mention}`);
    await box.waitFor(1);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await post(carl, `Second, ${ann.mention}`);
    await post(bob, `Third, ${ann.mention}`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const [, rolled] = await box.waitFor(2);
    expect(rolled.subject).toBe(S('mentionSubject', { count: 2, page: url }));
    expect(rolled.text).toContain(`${S('mentionBy', { name: 'Carl' })}\n\n> Second, @Ann`);
    expect(rolled.text).toContain(`${S('mentionBy', { name: 'Bob' })}\n\n> Third, @Ann`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
  }, 30_000);

  it("mails an address the reader's site gave, and none once that address stopped all mail", async () => {
    const { parley, box } = await mailingParley();
    const { site, bob, carl, post } = await thread(parley);
    const carlId = (await parley.request('GET', '/v1/me', { token: carl })).body.user.id as string;
    await parley.app.db.kysely.updateTable('site_users').set({ email: 'Carl@Example.com' }).where('id', '=', carlId).execute();
    await post(bob, `Over to @[Carl](${carlId})`);
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'carl@example.com' }] });
    const stopAll = pathOf(linkIn(mail, S('unsubscribeAll')));
    expect((await parley.request('POST', stopAll, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    await post(bob, `Again, @[Carl](${carlId})`);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);
    const queued = await parley.app.db.kysely.selectFrom('mail_outbox').select('kind').where('site_id', '=', site.site_id).where('kind', '=', 'mention').execute();
    expect(queued).toHaveLength(1);
  }, 30_000);

  it('mails one address at most twenty mentions a day from one site, however many pages mention it', async () => {
    const { parley } = await mailingParley();
    const { site, bob, reader } = await thread(parley);
    const ann = await reader('Ann');
    for (let page = 0; page < MENTION_MAILS_PER_DAY + 3; page++) {
      const posted = await parley.request('POST', '/v1/comments', { token: bob, body: { site_id: site.site_id, thread_url: pageUrl(), content: `Page ${page}: ${ann.mention}` } });
      expect(posted.body.mentions).toEqual([{ user_id: ann.id, name: 'Ann' }]);
    }
    const queued = await parley.app.db.kysely.selectFrom('mail_outbox').select('recipient').where('site_id', '=', site.site_id).where('kind', '=', 'mention').execute();
    expect(queued).toHaveLength(MENTION_MAILS_PER_DAY);
  }, 30_000);
});
