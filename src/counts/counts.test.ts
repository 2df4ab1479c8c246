import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';

const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let parley: TestParley;
beforeAll(async () => {
  // On PostgreSQL an instance keeps counts only while Redis tells it of every write.
  parley = await startParley(dialectName === 'postgres' ? { REDIS_URL } : {});
});
afterAll(() => parley.close());

const countsPath = (siteId: string, urls: string[]) => `/v1/counts?site_id=${siteId}${urls.map((url) => `&url=${encodeURIComponent(url)}`).join('')}`;

/** A thread with its users, and its count as the public reads it. */
async function countedThread() {
  const thread = await threadWithUsers(parley);
  const url = decodeURIComponent(/thread_url=([^&]+)/.exec(thread.path)![1]);
  const count = async () => {
    const response = await parley.request('GET', countsPath(thread.site.site_id, [url]));
    expect(response.status).toBe(200);
    return response.body.counts[url] as number;
  };
  const moderate = (id: string, action: string) => thread.write('PATCH', `/v1/comments/${id}/moderate`, thread.moderator, { action });
  return { ...thread, url, count, moderate };
}

describe('comment counts', () => {
  it('count the comments the public sees, replies included, and follow moderation and deletion', async () => {
    const { alice, bob, post, write, count, moderate } = await countedThread();
    expect(await count()).toBe(0);
    const top = await post(alice, 'top');
    const reply = await post(bob, 'reply', top);
    const deep = await post(alice, 'deep', reply);
    await post(bob, 'second top');
    expect(await count()).toBe(4);

    // A removed reply hides its own replies; approving it brings both back.
    await moderate(reply, 'remove');
    expect(await count()).toBe(2);
    await moderate(reply, 'approve');
    expect(await count()).toBe(4);
    await moderate(top, 'spam');
    expect(await count()).toBe(1);
    await moderate(top, 'approve');
    expect(await count()).toBe(4);

    // A deleted comment is not counted, but its replies stay.
    await write('DELETE', `/v1/comments/${reply}`, bob);
    expect(await count()).toBe(3);
    await write('DELETE', `/v1/comments/${deep}`, alice);
    expect(await count()).toBe(2);
  });

  it('leave out the replies of a shadow-banned author and what is held for approval', async () => {
    const { alice, bob, post, count, moderate } = await countedThread();
    const top = await post(alice, 'top');
    const reply = await post(bob, 'reply', top);
    await post(alice, 'under a banned author', reply);
    expect(await count()).toBe(3);
    await moderate(reply, 'shadow_ban');
    expect(await count()).toBe(1);
    await moderate(reply, 'unhide');
    expect(await count()).toBe(3);
  });

  it('answer each URL exactly as sent, 0 for unknown threads, for up to 100 URLs in one request', async () => {
    const { site, alice, post, url } = await countedThread();
    await post(alice, 'one');
    const unknown = Array.from({ length: 98 }, () => pageUrl());
    const sameThread = `${url}#comments`;
    const response = await parley.request('GET', countsPath(site.site_id, [url, sameThread, ...unknown]));
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.counts)).toHaveLength(100);
    expect(response.body.counts[url]).toBe(1);
    expect(response.body.counts[sameThread]).toBe(1);
    for (const other of unknown) expect(response.body.counts[other]).toBe(0);

    const tooMany = await parley.request('GET', countsPath(site.site_id, [url, ...unknown, pageUrl(), pageUrl()]));
    expect(tooMany.status).toBe(400);
    expect(tooMany.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('refuse an invalid URL, none at all, and an unknown site', async () => {
    const { site } = await countedThread();
    const invalid = await parley.request('GET', countsPath(site.site_id, ['not a url']));
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors ?? invalid.body).toBeDefined();
    expect((await parley.request('GET', `/v1/counts?site_id=${site.site_id}`)).status).toBe(400);
    expect((await parley.request('GET', countsPath('site_none', [pageUrl()]))).status).toBe(404);
  });

  it('answer a repeated request with 304 until a comment changes the count', async () => {
    const { site, alice, post, url } = await countedThread();
    const path = countsPath(site.site_id, [url]);
    const first = await parley.request('GET', path);
    const etag = first.headers.get('etag')!;
    expect((await parley.request('GET', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    await post(alice, 'new');
    const after = await parley.request('GET', path, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.body.counts[url]).toBe(1);
  });

  it('give a credential of another site the public count', async () => {
    const { alice, post, site, url } = await countedThread();
    await post(alice, 'one');
    const other = await parley.newSite();
    const response = await parley.request('GET', countsPath(site.site_id, [url]), { token: other.api_key });
    expect(response.body.counts[url]).toBe(1);
    expect((await parley.request('GET', countsPath(site.site_id, [url]), { token: 'pk_unknown' })).status).toBe(401);
  });
});

describe('counts kept in memory', () => {
  it('answer again from memory, and read anew once a comment of the thread is written', async () => {
    const { alice, post, count, moderate } = await countedThread();
    await post(alice, 'top');
    const second = await post(alice, 'second');
    await moderate(second, 'remove');
    expect(await count()).toBe(1);
    // Shown again behind the API's back: the kept count does not see it…
    await parley.app.db.kysely.updateTable('comments').set({ status: 'published', moderation_status: null }).where('id', '=', second).execute();
    expect(await count()).toBe(1);
    // …until a write to the thread clears it.
    await post(alice, 'third');
    expect(await count()).toBe(3);
  });

  it("are cleared on another instance by a write announced through Redis", async () => {
    const database = await freshDatabaseUrl();
    const env = { DATABASE_URL: database.url, REDIS_URL };
    const writer = await startParley(env);
    const reader = await startParley(env);
    try {
      const own = await writer.newSite();
      const thread = pageUrl();
      const path = countsPath(own.site_id, [thread]);
      expect((await reader.request('GET', path)).body.counts[thread]).toBe(0);
      await writer.request('POST', '/v1/comments', { token: own.api_key, body: { thread_url: thread, site_id: own.site_id, content: 'from the other instance' } });
      const deadline = Date.now() + 2000;
      let seen = 0;
      while (seen === 0 && Date.now() < deadline) seen = (await reader.request('GET', path)).body.counts[thread];
      expect(seen).toBe(1);
    } finally {
      await reader.close();
      await writer.close();
      await database.drop();
    }
  });
});
