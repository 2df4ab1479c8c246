import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, parleysPerTest, startParley, type FreshDatabase, type TestParley } from '../../test/helper.ts';
import { SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { SseClient } from '../../test/sse-client.ts';

/**
 * On PostgreSQL, two instances sharing Redis: the reader streams from one while writes go through
 * the other. On SQLite (one process writes the file) one instance does both.
 */
let database: FreshDatabase;
let writer: TestParley;
let reader: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  database = await freshDatabaseUrl();
  const shared: Record<string, string> = dialectName === 'postgres' ? { REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: `live-test-${randomBytes(4).toString('hex')}` } : {};
  writer = await startParley({ DATABASE_URL: database.url, ...shared });
  reader = dialectName === 'postgres' ? await startParley({ DATABASE_URL: database.url, ...shared }) : writer;
  site = await writer.newSite();
});

afterAll(async () => {
  if (reader !== writer) await reader.close();
  await writer.close();
  await database.drop();
});

const streamUrl = (parley: TestParley, thread: string, siteId = site.site_id) =>
  `${parley.url}/v1/comments/stream?site_id=${siteId}&thread_url=${encodeURIComponent(thread)}`;

async function post(thread: string, content: string, extra: Record<string, unknown> = {}, token: string | undefined = site.api_key) {
  const response = await writer.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content, ...extra } });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

async function ready(url: string, headers?: Record<string, string>) {
  const client = await SseClient.open(url, headers);
  expect(client.status).toBe(200);
  await client.until((c) => c.of('ready').length === 1);
  return client;
}

describe('GET /v1/comments/stream', () => {
  it('is an event stream that proxies neither buffer nor compress', async () => {
    const client = await ready(streamUrl(reader, pageUrl()));
    expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.headers.get('x-accel-buffering')).toBe('no');
    expect(client.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(client.headers.get('content-encoding')).toBeNull();
    client.close();
  });

  it('shows a reader a comment posted through another instance within a second', async () => {
    const thread = pageUrl();
    const client = await ready(streamUrl(reader, thread));
    const started = Date.now();
    const id = await post(thread, 'Hello, live');
    await client.until((c) => c.of('comment.created').length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(client.of('comment.created')[0].data.comment).toMatchObject({ id, content: 'Hello, live', replies: [] });
    client.close();
  });

  it('resumes with Last-Event-ID: exactly the comments posted while disconnected arrive', async () => {
    const thread = pageUrl();
    await post(thread, 'before');
    const first = await ready(streamUrl(reader, thread));
    const before = await post(thread, 'seen live');
    await first.until((c) => c.of('comment.created').length === 1);
    const lastEventId = first.lastEventId!;
    first.close();
    const missed = [await post(thread, 'one'), await post(thread, 'two'), await post(thread, 'three')];
    const resumed = await ready(streamUrl(reader, thread), { 'last-event-id': lastEventId });
    expect(resumed.of('comment.created').map((m) => m.data.comment.id)).toEqual(missed);
    expect(missed).not.toContain(before);
    resumed.close();
  });

  it('resumes with the counts of comments voted on while disconnected, as they are now', async () => {
    const thread = pageUrl();
    const [voted, untouched] = [await post(thread, 'vote on me'), await post(thread, 'leave me')];
    const first = await ready(streamUrl(reader, thread));
    const lastEventId = first.lastEventId!;
    first.close();
    for (const name of ['e', 'f', 'g']) {
      const token = await writer.signIn(site.api_key, site.site_id, { id: name, name });
      await writer.request('POST', `/v1/comments/${voted}/vote`, { token, body: { vote_type: name === 'g' ? 'down' : 'up' } });
    }
    const resumed = await ready(streamUrl(reader, thread), { 'last-event-id': lastEventId });
    expect(resumed.of('comment.counts').map((m) => m.data)).toEqual([{ type: 'comment.counts', comment_id: voted, upvotes: 2, downvotes: 1, reaction_counts: {} }]);
    expect(resumed.of('comment.counts').map((m) => m.data.comment_id)).not.toContain(untouched);
    // Counts are outside the thread's sequence: they carry no id, and Last-Event-ID stays where it was.
    expect(resumed.of('comment.counts')[0].id).toBeNull();
    expect(resumed.of('reset')).toHaveLength(0);
    resumed.close();
  });

  it('sends reset when Last-Event-ID cannot be replayed', async () => {
    const thread = pageUrl();
    await post(thread, 'something');
    const client = await ready(streamUrl(reader, thread), { 'last-event-id': '999999' });
    expect(client.of('reset')).toHaveLength(1);
    client.close();
  });

  it('tells readers a removed comment is gone, never sends a pending one, and sends it once approved', async () => {
    const held = await writer.newSite({ moderation: 'all' });
    const thread = pageUrl();
    const client = await ready(streamUrl(reader, thread, held.site_id));
    const guest = await writer.request('POST', '/v1/comments', { body: { site_id: held.site_id, thread_url: thread, content: 'waiting' } });
    expect(guest.body.status).toBe('pending');
    await writer.request('PATCH', `/v1/comments/${guest.body.id}/moderate`, { token: held.api_key, body: { action: 'approve' } });
    await client.until((c) => c.of('comment.created').length === 1);
    expect(client.of('comment.created')[0].data.comment.id).toBe(guest.body.id);
    await writer.request('PATCH', `/v1/comments/${guest.body.id}/moderate`, { token: held.api_key, body: { action: 'remove' } });
    await client.until((c) => c.of('comment.hidden').length === 1);
    expect(client.of('comment.hidden')[0].data).toEqual({ type: 'comment.hidden', comment_id: guest.body.id });
    // Nothing else: the pending comment itself was never sent.
    expect(client.messages.map((m) => m.data.type)).toEqual(['ready', 'comment.created', 'comment.hidden']);
    client.close();
  });

  it('approving a comment whose replies waited under it makes readers reload the thread, so the replies appear', async () => {
    const held = await writer.newSite({ moderation: 'all' });
    const thread = pageUrl();
    const guest = await writer.request('POST', '/v1/comments', { body: { site_id: held.site_id, thread_url: thread, content: 'waiting' } });
    // A moderator's reply is published at once, but the public sees it only with its parent.
    const reply = await writer.request('POST', '/v1/comments', { token: held.api_key, body: { site_id: held.site_id, thread_url: thread, content: 'a reply', parent_id: guest.body.id } });
    expect(reply.body.status).toBe('published');
    const client = await ready(streamUrl(reader, thread, held.site_id));
    await writer.request('PATCH', `/v1/comments/${guest.body.id}/moderate`, { token: held.api_key, body: { action: 'approve' } });
    await client.until((c) => c.of('reset').length === 1);
    expect(client.messages.map((m) => m.data.type)).toEqual(['ready', 'comment.created', 'reset']);
    // What the reload shows: the parent with its reply.
    const page = await writer.request('GET', `/v1/comments?site_id=${held.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(page.body.comments[0].replies.map((r: { id: string }) => r.id)).toEqual([reply.body.id]);
    // A comment approved without replies waiting sends no reset.
    const alone = await writer.request('POST', '/v1/comments', { body: { site_id: held.site_id, thread_url: thread, content: 'alone' } });
    await writer.request('PATCH', `/v1/comments/${alone.body.id}/moderate`, { token: held.api_key, body: { action: 'approve' } });
    await client.until((c) => c.of('comment.created').length === 2);
    expect(client.of('reset')).toHaveLength(1);
    client.close();
  });

  it("sends reset to the threads of an author whose comments a shadow ban hides, and again when it is lifted", async () => {
    const [first, second, untouched] = [pageUrl(), pageUrl(), pageUrl()];
    const signIn = await writer.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: `spammer-${Date.now()}`, name: 'Spammer' } } });
    const author = signIn.body.token as string;
    await post(first, 'buy now', {}, author);
    await post(second, 'buy again', {}, author);
    await post(untouched, 'a decent comment');
    const streams = await Promise.all([first, second, untouched].map((thread) => ready(streamUrl(reader, thread))));
    const ban = await writer.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: signIn.body.user.id, ban_type: 'shadow_ban' } });
    expect(ban.status).toBe(201);
    await Promise.all(streams.slice(0, 2).map((client) => client.until((c) => c.of('reset').length === 1)));
    await writer.request('DELETE', `/api/sites/${site.site_id}/bans/${ban.body.id}`, { token: site.api_key });
    await Promise.all(streams.slice(0, 2).map((client) => client.until((c) => c.of('reset').length === 2)));
    // The thread the author never wrote in heard nothing.
    expect(streams[2].messages.map((m) => m.data.type)).toEqual(['ready']);
    for (const client of streams) client.close();
  });

  it('sends edits and deletions, and vote counts at most once per comment per second', async () => {
    const thread = pageUrl();
    const id = await post(thread, 'original');
    const client = await ready(streamUrl(reader, thread));
    await writer.request('PATCH', `/v1/comments/${id}`, { token: site.api_key, body: { content: 'edited' } });
    await client.until((c) => c.of('comment.updated').length === 1);
    expect(client.of('comment.updated')[0].data.comment).toMatchObject({ id, content: 'edited', is_edited: true });
    const voters = await Promise.all(['a', 'b', 'c', 'd'].map((name) => writer.signIn(site.api_key, site.site_id, { id: name, name })));
    for (const token of voters) await writer.request('POST', `/v1/comments/${id}/vote`, { token, body: { vote_type: 'up' } });
    await client.until((c) => c.of('comment.counts').at(-1)?.data.upvotes === 4, 3000);
    expect(client.of('comment.counts').length).toBeLessThanOrEqual(2);
    await writer.request('DELETE', `/v1/comments/${id}`, { token: site.api_key });
    await client.until((c) => c.of('comment.deleted').length === 1);
    expect(client.of('comment.deleted')[0].data.comment).toMatchObject({ id, content: null, is_deleted: true });
    client.close();
  });

  it('answers 403 when the site has turned live updates off', async () => {
    const off = await writer.newSite();
    await writer.request('PATCH', `/api/sites/${off.site_id}`, { token: off.api_key, body: { live_updates: false } });
    const client = await SseClient.open(streamUrl(reader, pageUrl(), off.site_id));
    expect(client.status).toBe(403);
    expect((await writer.request('GET', `/v1/widget?site_id=${off.site_id}`)).body.site.live_updates).toBe(false);
  });

  it('refuses a malformed Last-Event-ID and an unknown site', async () => {
    expect((await SseClient.open(streamUrl(reader, pageUrl()), { 'last-event-id': 'abc' })).status).toBe(400);
    expect((await SseClient.open(streamUrl(reader, pageUrl(), 'site_nope'))).status).toBe(404);
    expect((await SseClient.open(`${reader.url}/v1/comments/stream?site_id=${site.site_id}&thread_url=nope`)).status).toBe(400);
  });
});

describe('stream limits', () => {
  const parley = parleysPerTest();

  it('caps streams per client address and per instance with 429 and Retry-After', async () => {
    const capped = await parley({ PARLEY_LIVE_MAX_STREAMS_PER_IP: '2', PARLEY_LIVE_MAX_STREAMS: '3' });
    const s = await capped.newSite();
    const url = `${capped.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const open = [await ready(url), await ready(url)];
    const third = await SseClient.open(url);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('30');
    expect(third.messages[0].data).toMatchObject({ code: 'rate_limited' });
    open[0].close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await ready(url);
    again.close();
    open[1].close();
  });

  it('caps streams per client as the other limits count clients: an IPv6 client as its /64', async () => {
    // Requests come from 127.0.0.1, a trusted proxy here, so X-Forwarded-For is each stream's client address.
    const capped = await parley({ TRUST_PROXY: '127.0.0.1', PARLEY_LIVE_MAX_STREAMS_PER_IP: '2' });
    const s = await capped.newSite();
    const url = `${capped.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const open = [await ready(url, from('2001:db8:a:b::1')), await ready(url, from('2001:db8:a:b::2'))];
    const sameSubnet = await SseClient.open(url, from('2001:db8:a:b:ffff::3'));
    expect(sameSubnet.status).toBe(429);
    const otherSubnet = await ready(url, from('2001:db8:a:c::1'));
    for (const client of [...open, otherSubnet]) client.close();
  });

  it('caps streams per instance', async () => {
    const capped = await parley({ PARLEY_LIVE_MAX_STREAMS: '1' });
    const s = await capped.newSite();
    const url = `${capped.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const first = await ready(url);
    expect((await SseClient.open(url)).status).toBe(429);
    first.close();
  });

  it('repairs a lost announcement from the database sequence at the next heartbeat', async () => {
    // Two instances without Redis: the reader's instance is never told of the other's writes.
    const shared = await freshDatabaseUrl();
    try {
      const one = await parley({ DATABASE_URL: shared.url });
      const two = await parley({ DATABASE_URL: shared.url, PARLEY_LIVE_HEARTBEAT: '200ms' });
      const s = await one.newSite();
      const thread = pageUrl();
      const client = await ready(`${two.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(thread)}`);
      await one.request('POST', '/v1/comments', { token: s.api_key, body: { site_id: s.site_id, thread_url: thread, content: 'found by the check' } });
      await client.until((c) => c.of('comment.created').length === 1, 2000);
      const id = client.of('comment.created')[0].data.comment.id;
      await one.request('POST', `/v1/comments/${id}/vote`, { token: s.api_key, body: { vote_type: 'up' } });
      await client.until((c) => c.of('comment.counts').at(-1)?.data.upvotes === 1, 2000);
      client.close();
      await Promise.all([one.app.close(), two.app.close()]);
    } finally {
      await shared.drop();
    }
  });

  it('closes streams cleanly on shutdown', async () => {
    const server = await startParley();
    const s = await server.newSite();
    const client = await ready(`${server.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(3000);
    await client.until((c) => c.ended);
  });

  it('sends a heartbeat and closes streams past their age, which then resume', async () => {
    const short = await parley({ PARLEY_LIVE_HEARTBEAT: '200ms', PARLEY_LIVE_MAX_STREAM_AGE: '500ms' });
    const s = await short.newSite();
    const client = await ready(`${short.url}/v1/comments/stream?site_id=${s.site_id}&thread_url=${encodeURIComponent(pageUrl())}`);
    await client.until((c) => c.ended, 2000);
  });
});
