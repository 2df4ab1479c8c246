import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { unsubscribeUrl } from './links.ts';
import { MAIL_STRINGS as S } from './strings.ts';

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

  it('lets one address\'s unsubscribe link stop nothing of another address', async () => {
    const site = await parley.newSite();
    const before = box.mails.length;
    for (const email of ['one@example.com', 'two@example.com']) {
      await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email } });
    }
    const mails = (await box.waitFor(before + 2)).slice(before);
    const one = mails.find((m) => JSON.stringify(m.to).includes('one@example.com'))!;
    await parley.request('POST', pathOf(linkIn(one, S.confirmAction)));
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
