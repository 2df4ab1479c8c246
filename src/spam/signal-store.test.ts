import { afterEach, describe, expect, it, vi } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, parleysPerTest, startParley, twoInstances, type FreshDatabase, type TestParley } from '../../test/helper.ts';

const TEXT = 'Cheap watches at the best price, write to me for the catalogue';
const SAME_AUTHOR = { check: 'duplicate', code: 'duplicate_same_author', values: {}, detail: 'the same text as a comment of the same address within 24 hours' };

/** A guest's comment from `ip`, as the widget sends it. */
async function asGuest(parley: TestParley, siteId: string, ip: string, content: string, thread = pageUrl()) {
  const body = { site_id: siteId, thread_url: thread, content, ...(await parley.guestForm(siteId)) };
  return parley.request('POST', '/v1/comments', { headers: { 'x-forwarded-for': ip }, body });
}

const reasonsOf = async (parley: TestParley, site: { site_id: string; api_key: string }, id: string) =>
  (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=pending&limit=100`, { token: site.api_key })).body.comments.find(
    (c: { id: string }) => c.id === id,
  )?.spam_reasons;

const startServer = parleysPerTest();
let database: FreshDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

describe("the spam checks' signals", () => {
  it('outlive a restart: a guest who posts a text again after it is held as a copy', async () => {
    database = await freshDatabaseUrl();
    const env = { DATABASE_URL: database.url, TRUST_PROXY: '127.0.0.1' };
    const before = await startParley(env);
    const site = await before.newSite();
    expect((await asGuest(before, site.site_id, '198.51.100.7', TEXT)).body.status).toBe('published');
    await before.close();

    const after = await startParley(env);
    try {
      const again = await asGuest(after, site.site_id, '198.51.100.7', TEXT);
      expect(again.body.status).toBe('pending');
      expect(await reasonsOf(after, site, again.body.id)).toEqual([SAME_AUTHOR]);
    } finally {
      await after.close();
    }
  });

  it('of a comment refused after its checks count for nothing: the guest posts the text again once the thread reopens', async () => {
    const parley = await startServer({ TRUST_PROXY: '127.0.0.1' });
    const site = await parley.newSite();
    const thread = pageUrl();
    expect((await asGuest(parley, site.site_id, '198.51.100.8', 'The first comment of the thread, before it closes', thread)).status).toBe(201);
    const [{ id }] = (await parley.request('GET', `/api/sites/${site.site_id}/threads?url=${encodeURIComponent(thread)}`, { token: site.api_key })).body.threads;
    const patch = (closed: boolean) => parley.request('PATCH', `/api/sites/${site.site_id}/threads/${id}`, { token: site.api_key, body: { closed } });
    await patch(true);
    expect((await asGuest(parley, site.site_id, '198.51.100.9', TEXT, thread)).status).toBe(409);
    await patch(false);
    expect((await asGuest(parley, site.site_id, '198.51.100.9', TEXT, thread)).body.status).toBe('published');
    // The one written is: its copy is held.
    expect((await asGuest(parley, site.site_id, '198.51.100.9', TEXT, thread)).body.status).toBe('pending');
  });

  it("of a deleted site leave memory, and those not yet written are never written", async () => {
    const parley = await startServer();
    const store = parley.app.db.spamSignals;
    const log = await store.ready();
    const signal = (siteId: string) => ({ commentId: `cmt_${siteId}`, siteId, threadKey: pageUrl(), authorKey: 'ip:198.51.100.7', ipRange: '198.51.100.0/24', textHash: 'hash', at: Date.now() });
    const [gone, kept] = [signal('site_gone'), signal('site_kept')];
    for (const one of [gone, kept]) {
      log.add(one);
      store.committed(one);
    }
    store.forgetSite('site_gone');
    await store.flush();
    expect([log.has(gone), log.has(kept)]).toEqual([false, true]);
    expect((await parley.app.db.kysely.selectFrom('spam_signals').select('site_id').execute()).map((row) => row.site_id)).toEqual(['site_kept']);
  });

  it("are read back before a server's first comments open their transactions: ten at once through a pool of two connections all answer", async () => {
    const parley = await startServer({ PARLEY_DATABASE_POOL_SIZE: '2' });
    const site = await parley.newSite();
    const thread = pageUrl();
    const posted = await Promise.all(Array.from({ length: 10 }, (_, n) => asGuest(parley, site.site_id, '127.0.0.1', `Comment number ${n} of the first ten at once`, thread)));
    expect(posted.map((response) => response.status)).toEqual(Array(10).fill(201));
  }, 20_000);

  it.skipIf(dialectName === 'sqlite')('reach the other instances on PostgreSQL within seconds: a copy posted through another is held', async () => {
    await twoInstances(async (writer, reader) => {
      const site = await writer.newSite();
      // Neither hears of the other but through the table: the reader reads it every second.
      await reader.app.db.spamSignals.ready();
      expect((await asGuest(writer, site.site_id, '127.0.0.1', TEXT)).body.status).toBe('published');
      const [{ id }] = await writer.app.db.kysely.selectFrom('comments').select('id').where('site_id', '=', site.site_id).execute();
      await vi.waitFor(
        async () => {
          const rows = await reader.app.db.kysely.selectFrom('spam_signals').select('comment_id').execute();
          expect(rows.map((row) => row.comment_id)).toEqual([id]);
        },
        { timeout: 5000, interval: 50 },
      );
      // Written within 100 ms of its commit; read by the other at its next second.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const copy = await asGuest(reader, site.site_id, '127.0.0.1', TEXT);
      expect(copy.body.status).toBe('pending');
      expect(await reasonsOf(reader, site, copy.body.id)).toEqual([SAME_AUTHOR]);
    });
  });
});
