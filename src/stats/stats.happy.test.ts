import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

let parley: TestParley;
let receiver: Receiver;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  receiver = await startReceiver((index) => (index % 4 === 3 ? 500 : 200));
  parley = await startParley({ ...WEBHOOK_TEST_ENV, PARLEY_WEBHOOK_RETRY_DELAYS: '1h,1h,1h' });
  site = await parley.newSite({ moderation: 'guests' });
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

const stats = () => parley.request('GET', `/api/sites/${site.site_id}/stats`, { token: site.api_key });
const day = (iso: string) => iso.slice(0, 10);

describe('site stats', () => {
  it('counts comments per day for 90 days by status (past days kept, and kept exact when a status changes), pending ones, top threads and webhook success', async () => {
    await subscribe(parley, site, receiver.url, ['comment.created']);
    const busy = pageUrl();
    const quiet = pageUrl();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: busy, content: `c${i}` } })).body.id);
    await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: quiet, content: 'guest', author_name: 'G' } });
    await parley.request('PATCH', `/v1/comments/${ids[0]}/moderate`, { token: site.api_key, body: { action: 'spam' } });
    // A comment of ten days ago, as an import would write it (straight into the table).
    const { kysely } = parley.app.db;
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const old = await kysely.selectFrom('comments').selectAll().where('id', '=', ids[1]).executeTakeFirstOrThrow();
    await kysely.insertInto('comments').values({ ...old, id: 'cmt_old', root_id: 'cmt_old', created_at: tenDaysAgo, updated_at: tenDaysAgo }).execute();
    await receiver.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const first = await stats();
    expect(first.status).toBe(200);
    expect(first.body.days).toHaveLength(90);
    const today = first.body.days.at(-1);
    expect(today).toEqual({ day: day(new Date().toISOString()), published: 2, pending: 1, removed: 0, spam: 1 });
    expect(first.body.days.find((entry: { day: string }) => entry.day === day(tenDaysAgo))).toEqual({ day: day(tenDaysAgo), published: 1, pending: 0, removed: 0, spam: 0 });
    expect(first.body.pending).toBe(1);
    // (The comment written straight into the table is in no thread's count.)
    expect(first.body.top_threads.map((thread: { url: string; top_level_comments: number }) => [thread.url, thread.top_level_comments])).toEqual([
      [busy, 3],
      [quiet, 1],
    ]);
    expect(first.body.webhooks).toEqual({ deliveries: 4, succeeded: 3, failed: 0, pending: 1, success_rate: 1 });

    // The past day is kept now; a moderation of its comment moves the kept figures.
    await parley.request('PATCH', '/v1/comments/cmt_old/moderate', { token: site.api_key, body: { action: 'remove' } });
    const second = await stats();
    expect(second.body.days.find((entry: { day: string }) => entry.day === day(tenDaysAgo))).toMatchObject({ published: 0, removed: 1 });
  });
});
