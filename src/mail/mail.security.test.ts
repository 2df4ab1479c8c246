import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { Writable } from 'node:stream';
import { exportSite } from '../transfer/export.ts';
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
