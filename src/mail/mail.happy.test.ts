import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { headerOf, linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const start = parleysPerTest();
const boxes: Mailbox[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(boxes.splice(0).map((box) => box.close()));
});

/** Longer than two polls of the mail worker: what it would have sent by now, it has. */
const SETTLE_MS = 2_500;

async function mailingParley(extra: Record<string, string> = {}) {
  const box = await startMailbox();
  boxes.push(box);
  const parley = await start({ PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_MAIL_RETRY_DELAYS: '1s,1s,1s', ...extra });
  return { parley, box };
}

/** A site with a thread, a signed-in reader (Bob) and a moderator (Mo). */
async function thread(parley: TestParley, moderation: 'none' | 'guests' | 'all' = 'none') {
  const site = await parley.newSite({ siteName: 'Tea Blog', moderation });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const mo = await parley.signIn(site.api_key, site.site_id, { id: 'mo', name: 'Mo', moderator: true });
  const url = pageUrl();
  const post = async (body: Record<string, unknown>, token?: string) => {
    // A guest sends what the widget sends: its form token (the spam checks' form check).
    const form = token ? {} : await parley.guestForm(site.site_id);
    const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: url, ...form, ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; status: string };
  };
  return { site, bob, mo, url, post };
}

/** A guest's comment with "Email me replies", its address confirmed through the mailed link. */
async function confirmedGuest(parley: TestParley, box: Mailbox, post: (body: Record<string, unknown>) => Promise<{ id: string }>, already = 0) {
  const comment = await post({ content: 'Which tea is best?', author_name: 'Gina', notify_replies: true, email: 'Gina@Example.com' });
  const [confirm] = (await box.waitFor(already + 1)).slice(already);
  expect(confirm.to).toMatchObject({ value: [{ address: 'gina@example.com' }] });
  const link = pathOf(linkIn(confirm, S('confirmAction')));
  expect((await parley.request('POST', link)).status).toBe(200);
  return comment;
}

describe('reply notifications by email', () => {
  it('walks a guest through confirming, a reply mail, unsubscribing, and no more mail', async () => {
    const { parley, box } = await mailingParley();
    const { bob, post } = await thread(parley);
    const comment = await post({ content: 'Which tea is best?', author_name: 'Gina', notify_replies: true, email: 'Gina@Example.com' });

    const [confirm] = await box.waitFor(1);
    expect(confirm.subject).toBe(S('confirmSubject', { site: 'Tea Blog' }));
    expect(confirm.from?.value[0]).toEqual({ name: 'Tea Blog', address: 'comments@example.com' });
    expect(confirm.html).toContain(S('confirmAction'));
    // Before confirming, a reply sends nothing.
    await post({ content: 'Too early', parent_id: comment.id }, bob);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);

    const link = pathOf(linkIn(confirm, S('confirmAction')));
    const asked = await parley.request('GET', link);
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-type')).toMatch(/text\/html/);
    expect(asked.body).toContain('<form method="post">');
    expect((await parley.request('POST', link)).status).toBe(200);
    expect((await parley.request('POST', link)).status).toBe(404);

    await post({ content: 'Oolong, clearly.', parent_id: comment.id }, bob);
    const [, reply] = await box.waitFor(2);
    expect(reply.subject).toContain('New reply');
    expect(reply.text).toContain('Bob wrote:');
    expect(reply.text).toContain('> Oolong, clearly.');
    expect(reply.text).not.toContain('Too early');
    expect(reply.html).toContain('Oolong, clearly.');
    const oneClick = String(headerOf(reply, 'List-Unsubscribe')).replace(/^<|>$/g, '');
    expect(headerOf(reply, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

    // Only asks on GET (mail scanners open links); the POST of a mail client's one-click does it.
    const unsubscribe = pathOf(linkIn(reply, S('unsubscribeThread')));
    expect((await parley.request('GET', unsubscribe)).body).toContain(S('pageUnsubscribeAskThread'));
    const clicked = await parley.request('POST', pathOf(oneClick), { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(clicked.status).toBe(200);
    expect(clicked.body).toContain(S('pageUnsubscribeDone'));

    await post({ content: 'Anyone there?', parent_id: comment.id }, bob);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
  }, 30_000);

  it("lets a reader have their address forgotten from a link for every mail, without signing in", async () => {
    const { parley, box } = await mailingParley();
    const { site, bob, post } = await thread(parley);
    const comment = await confirmedGuest(parley, box, post);
    await post({ content: 'Oolong, clearly.', parent_id: comment.id }, bob);
    const [, reply] = await box.waitFor(2);

    // A link for one page offers no such thing, and refuses it.
    const onePage = pathOf(linkIn(reply, S('unsubscribeThread')));
    expect((await parley.request('GET', onePage)).body).not.toContain(S('pageForgetButton'));
    const refused = await parley.request('POST', onePage, { raw: 'forget=address', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe('body/forget');

    const everything = pathOf(linkIn(reply, S('unsubscribeAll')));
    const asked = await parley.request('GET', everything);
    expect(asked.body).toContain(S('pageForgetButton'));
    expect(asked.body).toContain('<input type="hidden" name="forget" value="address">');
    const forgotten = await parley.request('POST', everything, { raw: 'forget=address', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(forgotten.status).toBe(200);
    expect(forgotten.body).toContain(S('pageForgetDone'));
    const db = parley.app.db.kysely;
    expect(await db.selectFrom('mail_addresses').select('id').where('site_id', '=', site.site_id).execute()).toEqual([]);
    expect(await db.selectFrom('mail_subscriptions').select('comment_id').where('comment_id', '=', comment.id).execute()).toEqual([]);
    expect(await db.selectFrom('mail_outbox').select('id').where('recipient', '=', 'gina@example.com').execute()).toEqual([]);
    // The link named the address, which is gone.
    expect((await parley.request('POST', everything, { raw: 'forget=address', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(404);

    await post({ content: 'Anyone there?', parent_id: comment.id }, bob);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
    expect(await db.selectFrom('mail_outbox').select('id').where('recipient', '=', 'gina@example.com').execute()).toEqual([]);
  }, 30_000);

  it('takes a one-click unsubscribe and the forget button posted as multipart/form-data (RFC 8058), and refuses a broken one with 400', async () => {
    const { parley, box } = await mailingParley();
    const { bob, post } = await thread(parley);
    const comment = await confirmedGuest(parley, box, post);
    await post({ content: 'Oolong, clearly.', parent_id: comment.id }, bob);
    const [, reply] = await box.waitFor(2);
    const oneClick = pathOf(String(headerOf(reply, 'List-Unsubscribe')).replace(/^<|>$/g, ''));
    const form = (name: string, value: string) => {
      const body = new FormData();
      body.set(name, value);
      return body;
    };

    const broken = await fetch(parley.url + oneClick, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: 'not multipart' });
    expect(broken.status).toBe(400);
    expect(broken.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await fetch(parley.url + oneClick, { method: 'POST', body: form('List-Unsubscribe', 'x'.repeat(70_000)) })).status).toBe(413);
    const clicked = await fetch(parley.url + oneClick, { method: 'POST', body: form('List-Unsubscribe', 'One-Click') });
    expect(clicked.status).toBe(200);
    expect(await clicked.text()).toContain(S('pageUnsubscribeDone'));
    const forgotten = await fetch(parley.url + oneClick, { method: 'POST', body: form('forget', 'address') });
    expect(await forgotten.text()).toContain(S('pageForgetDone'));
    expect(await parley.app.db.kysely.selectFrom('mail_addresses').select('id').where('email', '=', 'gina@example.com').execute()).toEqual([]);
  }, 30_000);

  it('mails nothing for replies held, marked spam or shadow-banned, and the approved one alone once approved', async () => {
    const { parley, box } = await mailingParley();
    const { site, bob, mo, post } = await thread(parley, 'guests');
    const gina = await parley.signIn(site.api_key, site.site_id, { id: 'gina', name: 'Gina' });
    const comment = await confirmedGuest(parley, box, (body) => post(body, gina));
    const held = await post({ content: 'held for a moderator', author_name: 'Guest', parent_id: comment.id });
    expect(held.status).toBe('pending');
    const spam = await post({ content: 'buy cheap tea', author_name: 'Spammer', parent_id: comment.id });
    expect((await parley.request('PATCH', `/v1/comments/${spam.id}/moderate`, { token: mo, body: { action: 'spam' } })).status).toBe(200);
    const elsewhere = await post({ content: 'a comment of his' }, bob);
    expect((await parley.request('PATCH', `/v1/comments/${elsewhere.id}/moderate`, { token: mo, body: { action: 'shadow_ban' } })).status).toBe(200);
    const banned = await post({ content: 'from the shadows', parent_id: comment.id }, bob);
    expect(banned.status).toBe('published');
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(1);

    expect((await parley.request('PATCH', `/v1/comments/${held.id}/moderate`, { token: mo, body: { action: 'approve' } })).status).toBe(200);
    const [, approved] = await box.waitFor(2);
    expect(approved.text).toContain('held for a moderator');
    expect(approved.text).not.toMatch(/cheap tea|shadows/);
  }, 30_000);

  it('never mails the replier, and rolls replies of ten minutes into one mail', async () => {
    const { parley, box } = await mailingParley();
    const { bob, post } = await thread(parley);
    const comment = await confirmedGuest(parley, box, post);
    // Her answer asks for replies too: that request is confirmed on its own.
    await post({ content: 'answering myself', author_name: 'Gina', parent_id: comment.id, notify_replies: true, email: 'gina@example.com' });
    expect((await box.waitFor(2))[1].subject).toBe(S('confirmSubject', { site: 'Tea Blog' }));
    await post({ content: 'first answer', parent_id: comment.id }, bob);
    await box.waitFor(3);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(3);
    expect(box.mails[2].text).toContain('first answer');
    expect(box.mails[2].text).not.toContain('answering myself');

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await post({ content: 'second answer', parent_id: comment.id }, bob);
    await post({ content: 'third answer', parent_id: comment.id }, bob);
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(3);
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const [, , , rolled] = await box.waitFor(4);
    expect(rolled.subject).toContain('2 new replies');
    expect(rolled.text).toContain('second answer');
    expect(rolled.text).toContain('third answer');
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(4);
  }, 30_000);

  it('gives a signed-in reader with an SSO address no confirmation step, and follows their default', async () => {
    const { parley, box } = await mailingParley();
    const { site, bob, post } = await thread(parley);
    const ada = await parley.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
    await parley.app.db.kysely.updateTable('site_users').set({ email: 'ada@example.com' }).where('external_id', '=', 'ada').execute();
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { token: ada, body: { notify_replies: true } })).body).toEqual({
      notify_replies: true,
      email: 'ada@example.com',
      mail_enabled: true,
      frequency: 'instant',
      time_zone: null,
    });
    const comment = await post({ content: 'Green tea for me' }, ada);
    await post({ content: 'Me too', parent_id: comment.id }, bob);
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'ada@example.com' }] });
    expect(mail.text).toContain('Me too');
  }, 30_000);
});
