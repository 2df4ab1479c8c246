import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { Writable } from 'node:stream';
import { exportSite } from '../transfer/export.ts';
import { unsubscribeUrl } from './links.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

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

describe('addresses are personal data', () => {
  it('never shows a reader address in comments, lists or the comment webhook event', async () => {
    const site = await parley.newSite();
    const url = pageUrl();
    const posted = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: url, content: 'hi', notify_replies: true, email: 'secret@example.com' } });
    expect(JSON.stringify(posted.body)).not.toContain('secret@example.com');
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(url)}`, { token: site.api_key });
    expect(JSON.stringify(list.body)).not.toContain('secret@example.com');
    const events = await parley.app.db.kysely.selectFrom('events').select('data').where('site_id', '=', site.site_id).execute();
    expect(JSON.stringify(events)).not.toContain('secret@example.com');
  });

  it('exports an address only with --include-personal-data, and deletes it with its site', async () => {
    const site = await parley.newSite();
    await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email: 'export@example.com' } });
    const exported = async (includePersonalData: boolean, format: 'parley' | 'disqus') => {
      const chunks: string[] = [];
      await exportSite(parley.app.db.kysely, { siteId: site.site_id, format, includePersonalData }, new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }));
      return chunks.join('');
    };
    for (const format of ['parley', 'disqus'] as const) {
      expect(await exported(false, format)).not.toContain('export@example.com');
      expect(await exported(true, format)).toContain('export@example.com');
    }
    const deleted = await parley.request('DELETE', `/api/sites/${site.site_id}`, { token: site.api_key, body: { confirm: site.site_id } });
    expect(deleted.status).toBe(200);
    const left = await parley.app.db.kysely.selectFrom('mail_addresses').select('id').where('email', '=', 'export@example.com').execute();
    expect(left).toEqual([]);
  });

  it('lets one address\'s unsubscribe link stop nothing of another address', async () => {
    const site = await parley.newSite();
    for (const email of ['one@example.com', 'two@example.com']) {
      await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email } });
    }
    const mailTo = (address: string) => box.mails.find((m) => JSON.stringify(m.to).includes(address));
    await expect.poll(() => mailTo('one@example.com') && mailTo('two@example.com'), { timeout: 10_000 }).toBeTruthy();
    const one = mailTo('one@example.com')!;
    await parley.request('POST', pathOf(linkIn(one, S('confirmAction'))));
    const addresses = await parley.app.db.kysely.selectFrom('mail_addresses').select(['id', 'email', 'link_key']).where('site_id', '=', site.site_id).execute();
    const [first, second] = ['one@example.com', 'two@example.com'].map((e) => addresses.find((a) => a.email === e)!);
    // A valid link for the first address, pointed at the second.
    const link = new URL(unsubscribeUrl('http://x', first.link_key, { address: first.id, scope: 'all', target: '' }));
    link.searchParams.set('address', second.id);
    expect((await parley.request('POST', link.pathname + link.search)).status).toBe(404);
    const kept = await parley.app.db.kysely.selectFrom('mail_addresses').select('unsubscribed_at').where('id', '=', second.id).executeTakeFirstOrThrow();
    expect(kept.unsubscribed_at).toBeNull();
  });
});

describe('who may have Parley mail an address', () => {
  it('refuses an API key that gives an address or asks for reply mails (403), and queues nothing', async () => {
    const site = await parley.newSite();
    const before = await parley.app.db.kysely.selectFrom('mail_outbox').select('id').execute();
    for (const wish of [{ notify_replies: true, email: 'victim@example.com' }, { email: 'victim@example.com' }, { notify_replies: true }]) {
      const refused = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', ...wish } });
      expect(refused.status, JSON.stringify(wish)).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(refused.body).toMatchObject({ code: 'forbidden', detail: expect.stringContaining('reader') });
    }
    // A key of another account learns nothing of the site: the same answer.
    const other = await parley.newSite();
    const elsewhere = await parley.request('POST', '/v1/comments', { token: other.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', email: 'victim@example.com' } });
    expect(elsewhere.status).toBe(403);
    expect(await parley.app.db.kysely.selectFrom('mail_outbox').select('id').execute()).toEqual(before);
  });

  it('limits confirmation mails per reader and per site (429 with Retry-After), and the comment is not posted', async () => {
    const box = await startMailbox();
    const limited = await startParley({
      PARLEY_SMTP_URL: box.url,
      PARLEY_MAIL_FROM: 'comments@example.com',
      PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_READER: '2',
      PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_SITE: '3',
      TRUST_PROXY: '127.0.0.1',
    });
    try {
      const site = await limited.newSite();
      const url = pageUrl();
      let n = 0;
      const subscribe = (from: string) =>
        limited.request('POST', '/v1/comments', {
          headers: { 'x-forwarded-for': from },
          body: { site_id: site.site_id, thread_url: url, content: `comment ${++n}`, notify_replies: true, email: `reader-${n}@example.com` },
        });
      expect((await subscribe('203.0.113.1')).status).toBe(201);
      expect((await subscribe('203.0.113.1')).status).toBe(201);
      const perReader = await subscribe('203.0.113.1');
      expect(perReader.status).toBe(429);
      expect(perReader.body).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('confirmation mails') });
      expect(Number(perReader.headers.get('retry-after'))).toBeGreaterThan(0);
      // Without the box ticked, the same reader posts.
      const plain = await limited.request('POST', '/v1/comments', { headers: { 'x-forwarded-for': '203.0.113.1' }, body: { site_id: site.site_id, thread_url: url, content: 'no mail' } });
      expect(plain.status).toBe(201);
      expect((await subscribe('203.0.113.2')).status).toBe(201);
      const perSite = await subscribe('203.0.113.3');
      expect(perSite.status).toBe(429);
      await box.waitFor(3);
      const posted = await limited.app.db.kysely.selectFrom('comments').select('content').where('site_id', '=', site.site_id).execute();
      expect(posted.map((c) => c.content).sort()).toEqual(['comment 1', 'comment 2', 'comment 4', 'no mail']);
    } finally {
      await limited.close();
      await box.close();
    }
  });

  it("keeps newlines, bidirectional and zero-width characters and lookalike letters out of the site name in a mail's sender and subject", async () => {
    const names: Array<[string, string]> = [
      ['Tea\r\nBcc: everyone@example.com', 'Tea Bcc: everyone@example.com'],
      ['Bank\u202Emoc.elgoog\u202C \u200Bsupport\u0007', 'Bankmoc.elgoog support'],
      ['\uFF30\uFF41\uFF59\uFF50\uFF41\uFF4C', 'Paypal'],
      ['P\u0430yP\u0430l', 'Parley'],
      ['\u200B\u2066', 'Parley'],
    ];
    for (const [name, shown] of names) {
      // Stored as it is (the API refuses some of these; an import or an older version may have kept them).
      const site = await parley.newSite();
      await parley.app.db.kysely.updateTable('sites').set({ name }).where('id', '=', site.site_id).execute();
      const before = box.mails.length;
      const email = `named-${before}@example.com`;
      await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email } });
      const [mail] = (await box.waitFor(before + 1)).slice(before);
      expect(mail.from?.value[0].name, JSON.stringify(name)).toBe(shown);
      expect(mail.subject).toBe(S('confirmSubject', { site: shown }));
      expect(mail.text).toContain(S('confirmIntro', { site: shown }));
      expect(mail.headerLines.map((h) => h.key)).not.toContain('bcc');
    }
  });
});

describe('double opt-in per subscription, and "stop all mail" until its owner acts', () => {
  /** A site with a page, Bob (signed in) to reply, and Gina's confirmed address with a comment of hers that asked for replies. */
  async function ginaConfirmed() {
    const site = await parley.newSite({ siteName: 'Tea Blog', moderation: 'none' });
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
    const url = pageUrl();
    const email = `gina-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
    const post = async (body: Record<string, unknown>, token?: string) => {
      // A guest sends what the widget sends: its form token (the spam checks' form check).
      const form = token ? {} : await parley.guestForm(site.site_id);
      const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: url, ...form, ...body } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.id as string;
    };
    const mailsTo = () => box.mails.filter((m) => JSON.stringify(m.to).includes(email));
    const ginas = await post({ content: 'Which tea?', author_name: 'Gina', notify_replies: true, email });
    await expect.poll(() => mailsTo().length, { timeout: 10_000 }).toBe(1);
    expect((await parley.request('POST', pathOf(linkIn(mailsTo()[0], S('confirmAction'))))).status).toBe(200);
    await post({ content: 'Oolong.', parent_id: ginas }, bob);
    await expect.poll(() => mailsTo().length, { timeout: 10_000 }).toBe(2);
    const reply = mailsTo()[1];
    const replyMails = () => parley.app.db.kysely.selectFrom('mail_outbox').select('data').where('recipient', '=', email).where('kind', '=', 'reply').execute();
    return { site, bob, email, post, mailsTo, reply, replyMails };
  }

  it("mails a stranger's subscription of a confirmed address its own confirmation, and no reply before it is used", async () => {
    const { bob, email, post, mailsTo, replyMails } = await ginaConfirmed();
    const strangers = await post({ content: 'Reply to claim your prize', author_name: 'Mallory', notify_replies: true, email });
    await expect.poll(() => mailsTo().length, { timeout: 10_000 }).toBe(3);
    const confirm = mailsTo()[2];
    expect(confirm.subject).toBe(S('confirmSubject', { site: 'Tea Blog' }));
    await post({ content: 'Your account is locked: answer with your password', parent_id: strangers }, bob);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(mailsTo()).toHaveLength(3);
    expect(await replyMails()).toHaveLength(1);

    // Only its own link confirms it.
    expect((await parley.request('POST', pathOf(linkIn(confirm, S('confirmAction'))))).status).toBe(200);
    // Queued (sent with the page's next mail, ten minutes after the last).
    const answer = await post({ content: 'A second answer', parent_id: strangers }, bob);
    expect((await replyMails()).map((row) => JSON.parse(row.data).reply_id)).toContain(answer);
  }, 30_000);

  it('holds "stop all mail" against anyone else\'s subscription: no confirmation mail, the stop kept', async () => {
    const { site, email, post, mailsTo, reply } = await ginaConfirmed();
    const everything = pathOf(linkIn(reply, S('unsubscribeAll')));
    expect((await parley.request('POST', everything)).status).toBe(200);
    const stopped = () => parley.app.db.kysely.selectFrom('mail_addresses').select('unsubscribed_at').where('site_id', '=', site.site_id).where('email', '=', email).executeTakeFirstOrThrow();
    const stoppedAt = (await stopped()).unsubscribed_at;
    expect(stoppedAt).not.toBeNull();

    // A guest, and a signed-in reader whose own address it is not: answered as usual, and nothing happens.
    const mallory = await parley.signIn(site.api_key, site.site_id, { id: 'mallory', name: 'Mallory' });
    await post({ content: 'Mail me', author_name: 'Someone', notify_replies: true, email });
    await post({ content: 'Mail me too', notify_replies: true, email }, mallory);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(mailsTo()).toHaveLength(2);
    expect((await stopped()).unsubscribed_at).toBe(stoppedAt);
    expect(await parley.app.db.kysely.selectFrom('mail_outbox').select('id').where('recipient', '=', email).where('kind', '=', 'confirm').execute()).toHaveLength(1);
  }, 30_000);

  it('lets the owner lift the stop from the page of a link of an earlier mail, or by their own signed-in session', async () => {
    const { site, bob, email, post, reply, replyMails } = await ginaConfirmed();
    const everything = pathOf(linkIn(reply, S('unsubscribeAll')));
    expect((await parley.request('POST', everything)).status).toBe(200);
    const page = await parley.request('GET', everything);
    expect(page.body).toContain(S('pageResumeButton'));
    expect(page.body).toContain('<input type="hidden" name="resume" value="mail">');
    // A link for one page cannot resume.
    expect((await parley.request('POST', pathOf(linkIn(reply, S('unsubscribeThread'))), { raw: 'resume=mail', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(400);
    const resumed = await parley.request('POST', everything, { raw: 'resume=mail', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toContain(S('pageResumeDone'));
    const ginas = (await parley.app.db.kysely.selectFrom('mail_subscriptions').select('comment_id').orderBy('created_at').limit(1).where('address_id', '=', new URL(everything, 'http://x').searchParams.get('address')!).executeTakeFirstOrThrow()).comment_id;
    // Queued, not yet sent: one reply mail per page every ten minutes.
    await post({ content: 'Welcome back', parent_id: ginas }, bob);
    expect(await replyMails()).toHaveLength(2);

    // Stopped again; the signed-in reader whose SSO address it is ticks the box: the owner acted.
    expect((await parley.request('POST', everything)).status).toBe(200);
    const gina = await parley.signIn(site.api_key, site.site_id, { id: 'gina', name: 'Gina' });
    await parley.app.db.kysely.updateTable('site_users').set({ email }).where('site_id', '=', site.site_id).where('external_id', '=', 'gina').execute();
    const own = await post({ content: 'Signed in now', notify_replies: true }, gina);
    await post({ content: 'Hello Gina', parent_id: own }, bob);
    expect(await replyMails()).toHaveLength(3);
  }, 30_000);
});
