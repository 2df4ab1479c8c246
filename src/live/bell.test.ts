import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, parleysPerTest, startParley, type FreshDatabase, type TestParley } from '../../test/helper.ts';
import { notifyReader, readAll } from '../../test/notifications.ts';
import { SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { SseClient } from '../../test/sse-client.ts';

/**
 * The notification bell a reader's thread stream carries. On PostgreSQL two instances share Redis:
 * notifications are made (and announced) on one while the bell streams from the other. On SQLite one
 * instance does both.
 */
let database: FreshDatabase;
let writer: TestParley;
let reader: TestParley;
let site: { site_id: string; api_key: string };
/** A comment the notifications are about. */
let about: string;

beforeAll(async () => {
  database = await freshDatabaseUrl();
  const shared: Record<string, string> = dialectName === 'postgres' ? { REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: `bell-test-${randomBytes(4).toString('hex')}` } : {};
  writer = await startParley({ DATABASE_URL: database.url, ...shared });
  reader = dialectName === 'postgres' ? await startParley({ DATABASE_URL: database.url, ...shared }) : writer;
  site = await writer.newSite();
  about = (await writer.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'a reply to you' } })).body.id;
});

afterAll(async () => {
  if (reader !== writer) await reader.close();
  await writer.close();
  await database.drop();
});

/** A reader signed in to the site: their session token, their user, and the bell GET /v1/widget gives them. */
async function signedIn(parley: TestParley, siteId = site.site_id, apiKey = site.api_key) {
  const session = await parley.request('POST', '/v1/sessions', { token: apiKey, body: { site_id: siteId, user: { id: `reader-${randomBytes(4).toString('hex')}`, name: 'Rita' } } });
  expect(session.status).toBe(201);
  const token = session.body.token as string;
  const widget = await parley.request('GET', `/v1/widget?site_id=${siteId}`, { token });
  return { token, user: { siteId, userId: session.body.user.id as string }, bell: widget.body.notifications as { unread: number; stream_key: string } };
}

function bellUrl(parley: TestParley, key: string | null, siteId = site.site_id, thread = pageUrl()) {
  const url = `${parley.url}/v1/comments/stream?site_id=${siteId}&thread_url=${encodeURIComponent(thread)}`;
  return key === null ? url : `${url}&notifications_key=${encodeURIComponent(key)}`;
}

/** A stream, once it is ready and (with a key) has said the unread count. */
async function opened(url: string, withBell = true) {
  const client = await SseClient.open(url);
  expect(client.status, JSON.stringify(client.messages[0]?.data)).toBe(200);
  await client.until((c) => c.of('ready').length === 1 && (!withBell || c.of('notifications').length === 1));
  return client;
}

const counts = (client: SseClient) => client.of('notifications').map((m) => m.data.unread);

describe('GET /v1/widget, notifications', () => {
  it("gives a signed-in reader their unread count and a stream key, and guests and keys none", async () => {
    const rita = await signedIn(writer);
    expect(rita.bell).toEqual({ unread: 0, stream_key: expect.stringMatching(/^sess_[0-9a-z]{26}\.[A-Za-z0-9_-]{43}$/) });
    await notifyReader(writer, rita.user, about);
    await notifyReader(writer, rita.user, about);
    expect((await reader.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: rita.token })).body.notifications.unread).toBe(2);
    expect((await reader.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.notifications).toBeNull();
    expect((await reader.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: site.api_key })).body.notifications).toBeNull();
  });
});

describe('GET /v1/comments/stream?notifications_key', () => {
  it('says the unread count when it opens, then each change made on another instance, and only changes', async () => {
    const rita = await signedIn(writer);
    const other = await signedIn(writer);
    await notifyReader(writer, rita.user, about);
    const thread = pageUrl();
    const client = await opened(bellUrl(reader, rita.bell.stream_key, site.site_id, thread));
    expect(client.messages.map((m) => m.data.type)).toEqual(['ready', 'notifications']);
    expect(client.of('notifications')[0]).toEqual({ id: null, data: { type: 'notifications', unread: 1 } });

    const started = Date.now();
    await notifyReader(writer, rita.user, about);
    await client.until((c) => counts(c).at(-1) === 2, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    // Another reader's notification, and an announcement that changes nothing, say nothing to this bell.
    await notifyReader(writer, other.user, about);
    writer.app.db.changes.readersNotified(site.site_id, [rita.user.userId]);
    await readAll(writer, rita.user);
    await client.until((c) => counts(c).at(-1) === 0);
    expect(counts(client)).toEqual([1, 2, 0]);

    // The thread's own frames still come on the same stream.
    const comment = await writer.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: thread, content: 'on the page' } });
    await client.until((c) => c.of('comment.created').some((m) => m.data.comment.id === comment.body.id));
    client.close();
  });

  it("tells every one of a reader's streams (another page, another tab), and no stream without the key", async () => {
    const rita = await signedIn(writer);
    const tabs = [await opened(bellUrl(reader, rita.bell.stream_key)), await opened(bellUrl(writer, rita.bell.stream_key)), await opened(bellUrl(reader, rita.bell.stream_key))];
    const keyless = await opened(bellUrl(reader, null), false);
    await notifyReader(writer, rita.user, about);
    for (const tab of tabs) await tab.until((c) => counts(c).at(-1) === 1);
    for (const tab of tabs) expect(counts(tab)).toEqual([0, 1]);
    expect(keyless.of('notifications')).toEqual([]);
    [...tabs, keyless].forEach((client) => client.close());
  });
});

describe('GET /v1/comments/stream?notifications_key, missed announcements', () => {
  const parley = parleysPerTest();

  it('finds a count changed without an announcement at the next heartbeat', async () => {
    // Two instances without Redis: the bell's instance hears of the other's notifications only by checking.
    const shared = await freshDatabaseUrl();
    try {
      const one = await parley({ DATABASE_URL: shared.url });
      const two = await parley({ DATABASE_URL: shared.url, PARLEY_LIVE_HEARTBEAT: '200ms' });
      const s = await one.newSite();
      const comment = (await one.request('POST', '/v1/comments', { token: s.api_key, body: { site_id: s.site_id, thread_url: pageUrl(), content: 'unannounced' } })).body.id;
      const rita = await signedIn(one, s.site_id, s.api_key);
      const client = await opened(bellUrl(two, rita.bell.stream_key, s.site_id));
      await notifyReader(one, rita.user, comment, { announce: false });
      await client.until((c) => counts(c).at(-1) === 1, 2000);
      client.close();
      await Promise.all([one.app.close(), two.app.close()]);
    } finally {
      await shared.drop();
    }
  });
});
