import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTime } from 'ulid';
import { dialectName, freshDatabaseUrl, pageUrl, parleysPerTest, startParley, type FreshDatabase, type TestParley } from '../../test/helper.ts';
import { SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { SseClient } from '../../test/sse-client.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

/**
 * The moderation queue's stream for staff. On PostgreSQL two instances share Redis: staff stream
 * from one while comments are written through the other. On SQLite one instance does both.
 */
let database: FreshDatabase;
let writer: TestParley;
let reader: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let second: string;
let stranger: { account_id: string; site_id: string; api_key: string };
/** Staff cookies: the account's owner, and a moderator limited to the home site. */
let owner: Record<string, string>;
let homeModerator: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabaseUrl();
  const shared: Record<string, string> = dialectName === 'postgres' ? { REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: `queue-test-${randomBytes(4).toString('hex')}` } : {};
  writer = await startParley({ DATABASE_URL: database.url, ...shared });
  reader = dialectName === 'postgres' ? await startParley({ DATABASE_URL: database.url, ...shared }) : writer;
  home = await writer.newSite({ moderation: 'all' });
  second = (await writer.request('POST', '/api/sites', { token: home.api_key, body: { name: 'Second', moderation_mode: 'all' } })).body.id;
  stranger = await writer.newSite({ moderation: 'all' });
  owner = { cookie: (await signInStaff(writer, (await addStaff(writer, home.account_id, 'owner')).email)).cookie };
  homeModerator = { cookie: (await signInStaff(writer, (await addStaff(writer, home.account_id, 'moderator', { siteIds: [home.site_id] })).email)).cookie };
});

afterAll(async () => {
  if (reader !== writer) await reader.close();
  await writer.close();
  await database.drop();
});

const queueUrl = (parley: TestParley, siteId?: string) => `${parley.url}/api/comments/stream${siteId ? `?site_id=${siteId}` : ''}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function ready(url: string, headers: Record<string, string>) {
  const client = await SseClient.open(url, headers);
  expect(client.status, JSON.stringify(client.messages[0]?.data)).toBe(200);
  await client.until((c) => c.of('ready').length === 1);
  return client;
}

/** A guest's comment, held for approval on these sites. */
async function held(siteId: string, content = 'waiting for a moderator') {
  const response = await writer.request('POST', '/v1/comments', { body: { site_id: siteId, thread_url: pageUrl(), content } });
  expect(response.body.status).toBe('pending');
  return response.body.id as string;
}

const moderate = (id: string, action: string, token = home.api_key) =>
  writer.request('PATCH', `/v1/comments/${id}/moderate`, { token, body: { action } });

describe('GET /api/comments/stream', () => {
  it('shows staff a held comment, a flag, an approval and a deletion made through another instance', async () => {
    const client = await ready(queueUrl(reader, home.site_id), owner);
    const started = Date.now();
    const id = await held(home.site_id);
    await client.until((c) => c.of('comment.created').length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(client.of('comment.created')[0].data).toEqual({ type: 'comment.created', comment_id: id, site_id: home.site_id, status: 'pending' });
    expect((await moderate(id, 'approve')).status).toBe(200);
    await client.until((c) => c.of('moderation.action').length === 1);
    expect(client.of('moderation.action')[0].data).toMatchObject({ comment_id: id, action: 'approve', status: 'published' });
    expect((await writer.request('POST', `/v1/comments/${id}/flag`, { body: { reason: 'rude' } })).status).toBe(200);
    await client.until((c) => c.of('comment.flagged').length === 1, 1000);
    expect(client.of('comment.flagged')[0].data).toMatchObject({ comment_id: id, status: 'published' });
    expect((await writer.request('DELETE', `/v1/comments/${id}`, { token: home.api_key })).status).toBe(200);
    await client.until((c) => c.of('comment.deleted').length === 1);
    // A comment published on arrival (a moderator's) is no queue change, and is not sent.
    await writer.request('POST', '/v1/comments', { token: home.api_key, body: { site_id: home.site_id, thread_url: pageUrl(), content: 'published at once' } });
    await moderate(await held(home.site_id), 'spam');
    await client.until((c) => c.of('moderation.action').length === 2);
    expect(client.messages.map((m) => m.data.type)).toEqual(['ready', 'comment.created', 'moderation.action', 'comment.flagged', 'comment.deleted', 'comment.created', 'moderation.action']);
    expect(client.of('moderation.action')[1].data).toMatchObject({ action: 'spam', status: 'spam' });
    expect(client.messages.slice(1).every((m) => m.id?.startsWith('evt_'))).toBe(true);
    client.close();
  });

  it('is an event stream that proxies neither buffer nor compress, for a moderator key too', async () => {
    const key = (await writer.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator' } })).body.api_key;
    const client = await ready(queueUrl(reader), bearer(key));
    expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.headers.get('x-accel-buffering')).toBe('no');
    expect(client.headers.get('content-encoding')).toBeNull();
    const id = await held(second);
    await client.until((c) => c.of('comment.created').some((m) => m.data.comment_id === id));
    client.close();
  });

  it('resumes with Last-Event-ID: the changes made while disconnected arrive, on any instance', async () => {
    const first = await ready(queueUrl(reader, home.site_id), bearer(home.api_key));
    const lastEventId = first.lastEventId!;
    first.close();
    const missed = [await held(home.site_id, 'one'), await held(home.site_id, 'two'), await held(home.site_id, 'three')];
    const resumed = await ready(queueUrl(writer, home.site_id), { ...bearer(home.api_key), 'last-event-id': lastEventId });
    // Changes of the seconds before Last-Event-ID may come again; each states the status, so order is what counts.
    expect(resumed.of('comment.created').map((m) => m.data.comment_id).slice(-3)).toEqual(missed);
    expect(resumed.messages.at(-1)!.data.type).toBe('ready');
    const again = await ready(queueUrl(reader, home.site_id), { ...bearer(home.api_key), 'last-event-id': resumed.messages.at(-2)!.id! });
    expect(again.of('comment.created').map((m) => m.data.comment_id)).toContain(missed[2]);
    resumed.close();
    again.close();
  });

  it('sends reset when Last-Event-ID is older than the kept changes, and refuses a malformed one', async () => {
    const old = `evt_${encodeTime(Date.now() - 2 * 24 * 3600 * 1000, 10).toLowerCase()}${'0'.repeat(16)}`;
    const client = await ready(queueUrl(reader, home.site_id), { ...bearer(home.api_key), 'last-event-id': old });
    expect(client.messages.map((m) => m.data.type)).toEqual(['reset', 'ready']);
    client.close();
    expect((await SseClient.open(queueUrl(reader, home.site_id), { ...bearer(home.api_key), 'last-event-id': '12' })).status).toBe(400);
  });
});

describe('GET /api/comments/stream, by caller', () => {
  it('without site_id streams every site the caller moderates, and a site-limited moderator only theirs', async () => {
    const all = await ready(queueUrl(reader), owner);
    const limited = await ready(queueUrl(reader), homeModerator);
    const onSecond = await held(second);
    const onHome = await held(home.site_id);
    await all.until((c) => c.of('comment.created').some((m) => m.data.comment_id === onHome));
    await limited.until((c) => c.of('comment.created').some((m) => m.data.comment_id === onHome));
    expect(all.of('comment.created').map((m) => m.data.comment_id)).toContain(onSecond);
    expect(limited.of('comment.created').map((m) => m.data.comment_id)).not.toContain(onSecond);
    all.close();
    limited.close();
  });

  it("gives another account's staff and keys nothing of a site: 404 when named, none of its changes otherwise", async () => {
    const strangerStaff = { cookie: (await signInStaff(writer, (await addStaff(writer, stranger.account_id, 'owner')).email)).cookie };
    for (const headers of [bearer(stranger.api_key), strangerStaff]) {
      const refused = await SseClient.open(queueUrl(reader, home.site_id), headers);
      expect(refused.status).toBe(404);
      expect(refused.messages[0].data.code).toBe('not_found');
    }
    expect((await SseClient.open(queueUrl(reader, second), homeModerator)).status).toBe(404);
    const theirs = await ready(queueUrl(reader), strangerStaff);
    const mine = await ready(queueUrl(reader), owner);
    const id = await held(home.site_id);
    const theirOwn = await held(stranger.site_id);
    await mine.until((c) => c.of('comment.created').some((m) => m.data.comment_id === id));
    await theirs.until((c) => c.of('comment.created').some((m) => m.data.comment_id === theirOwn));
    expect(theirs.messages.map((m) => m.data.comment_id)).not.toContain(id);
    theirs.close();
    mine.close();
  });

  it('needs a credential (401) with a moderating role (403 for integration keys and sessions)', async () => {
    const integration = (await writer.request('POST', '/api/keys', { token: home.api_key, body: { role: 'integration' } })).body.api_key;
    const moderatorSession = await writer.signIn(home.api_key, home.site_id, { id: 'mod', name: 'Mod', moderator: true });
    expect((await SseClient.open(queueUrl(reader, home.site_id))).status).toBe(401);
    for (const token of [integration, moderatorSession]) expect((await SseClient.open(queueUrl(reader, home.site_id), bearer(token))).status).toBe(403);
  });
});

describe('GET /api/comments/stream, limits', () => {
  const parley = parleysPerTest();

  it('counts against the same per-address cap as the public streams, and closes on shutdown', async () => {
    const capped = await parley({ PARLEY_LIVE_MAX_STREAMS_PER_IP: '2' });
    const s = await capped.newSite();
    const open = [
      await ready(`${capped.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`, {}),
      await ready(queueUrl(capped), bearer(s.api_key)),
    ];
    const third = await SseClient.open(queueUrl(capped), bearer(s.api_key));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('30');
    await capped.app.close();
    await Promise.all(open.map((client) => client.until((c) => c.ended)));
  });

  it('finds a change that was never announced at the next heartbeat', async () => {
    // Two instances without Redis: the stream's instance hears of the other's writes only by checking.
    const shared = await freshDatabaseUrl();
    try {
      const one = await parley({ DATABASE_URL: shared.url });
      const two = await parley({ DATABASE_URL: shared.url, PARLEY_LIVE_HEARTBEAT: '200ms' });
      const s = await one.newSite({ moderation: 'all' });
      const client = await ready(queueUrl(two), bearer(s.api_key));
      await one.request('POST', '/v1/comments', { body: { site_id: s.site_id, thread_url: pageUrl(), content: 'found by the check' } });
      await client.until((c) => c.of('comment.created').length === 1, 2000);
      client.close();
      await Promise.all([one.app.close(), two.app.close()]);
    } finally {
      await shared.drop();
    }
  });
});
