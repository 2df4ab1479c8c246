import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { freePort, startOwnRedis, stopRedis } from '../../test/redis-server.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let alice: string;
let moderator: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  moderator = await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mo', moderator: true });
});
afterAll(() => parley.close());

const listPath = (thread: string) => `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`;
const list = (thread: string, headers?: Record<string, string>, token?: string) => parley.request('GET', listPath(thread), { headers, token });

async function post(thread: string, content: string, parent_id?: string): Promise<{ id: string }> {
  const response = await parley.request('POST', '/v1/comments', { token: alice, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
  expect(response.status).toBe(201);
  return response.body;
}

describe('public list cache', () => {
  it('shows every kind of write to a thread on the next read', async () => {
    const thread = pageUrl();
    expect((await list(thread)).body.total).toBe(0);
    const first = await post(thread, 'first');
    expect((await list(thread)).body.comments.map((c: any) => c.content)).toEqual(['first']);

    await post(thread, 'a reply', first.id);
    expect((await list(thread)).body.comments[0].replies.map((c: any) => c.content)).toEqual(['a reply']);

    await parley.request('PATCH', `/v1/comments/${first.id}`, { token: alice, body: { content: 'first, edited' } });
    expect((await list(thread)).body.comments[0].content).toBe('first, edited');

    await parley.request('POST', `/v1/comments/${first.id}/vote`, { token: moderator, body: { vote_type: 'up' } });
    expect((await list(thread)).body.comments[0].upvotes).toBe(1);

    await parley.request('POST', `/v1/comments/${first.id}/react`, { token: moderator, body: { reaction_type: 'funny' } });
    expect((await list(thread)).body.comments[0].reaction_counts).toEqual({ funny: 1 });

    await parley.request('DELETE', `/v1/comments/${first.id}`, { token: alice });
    expect((await list(thread)).body.comments[0]).toMatchObject({ content: null, is_deleted: true });

    await parley.request('PATCH', `/v1/comments/${first.id}/moderate`, { token: moderator, body: { action: 'remove' } });
    expect((await list(thread)).body).toMatchObject({ comments: [], total: 0 });
  });

  it('leaves the cached pages of other threads untouched', async () => {
    const written = pageUrl();
    const other = pageUrl();
    await post(written, 'here');
    await post(other, 'there');
    const before = await list(other);
    const writtenBefore = await list(written);

    await post(written, 'more');

    const otherAfter = await list(other, { 'if-none-match': before.headers.get('etag')! });
    expect(otherAfter.status).toBe(304);
    const writtenAfter = await list(written, { 'if-none-match': writtenBefore.headers.get('etag')! });
    expect(writtenAfter.status).toBe(200);
    expect(writtenAfter.body.total).toBe(2);
    expect(writtenAfter.headers.get('etag')).not.toBe(writtenBefore.headers.get('etag'));
  });

  it("hides a shadow-banned author's comments from the public on every thread at once", async () => {
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
    const threads = [pageUrl(), pageUrl()];
    for (const thread of threads) {
      await parley.request('POST', '/v1/comments', { token: bob, body: { thread_url: thread, site_id: site.site_id, content: 'from bob' } });
      expect((await list(thread)).body.total).toBe(1);
    }
    const [target] = (await list(threads[0])).body.comments;
    await parley.request('PATCH', `/v1/comments/${target.id}/moderate`, { token: moderator, body: { action: 'shadow_ban' } });
    for (const thread of threads) expect((await list(thread)).body).toMatchObject({ comments: [], total: 0 });
    expect((await list(threads[1], undefined, bob)).body.total).toBe(1);
  });

  it('keeps a page per query: another page or sort of the same thread is its own answer', async () => {
    const thread = pageUrl();
    await post(thread, 'one');
    await post(thread, 'two');
    const newest = await parley.request('GET', `${listPath(thread)}&limit=1`);
    const oldest = await parley.request('GET', `${listPath(thread)}&limit=1&sort=oldest`);
    expect(newest.body.comments[0].content).toBe('two');
    expect(oldest.body.comments[0].content).toBe('one');
  });
});

describe('public GET /v1/comments/:id cache', () => {
  const one = (id: string, headers?: Record<string, string>, token?: string) => parley.request('GET', `/v1/comments/${id}`, { headers, token });

  it('shows every write to its thread on the next read, and answers 304 while nothing changed', async () => {
    const thread = pageUrl();
    const root = await post(thread, 'root');
    const first = await one(root.id);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await one(root.id, { 'if-none-match': etag })).status).toBe(304);

    const reply = await post(thread, 'a reply', root.id);
    const afterReply = await one(root.id, { 'if-none-match': etag });
    expect(afterReply.status).toBe(200);
    expect(afterReply.body.replies.map((c: any) => c.content)).toEqual(['a reply']);

    await parley.request('POST', `/v1/comments/${reply.id}/vote`, { token: moderator, body: { vote_type: 'up' } });
    expect((await one(root.id)).body.replies[0].upvotes).toBe(1);

    await parley.request('PATCH', `/v1/comments/${reply.id}`, { token: alice, body: { content: 'a reply, edited' } });
    expect((await one(root.id)).body.replies[0].content).toBe('a reply, edited');

    await parley.request('PATCH', `/v1/comments/${reply.id}/moderate`, { token: moderator, body: { action: 'remove' } });
    expect((await one(root.id)).body.replies).toEqual([]);
    expect((await one(reply.id)).status).toBe(404);

    await parley.request('PATCH', `/v1/comments/${reply.id}/moderate`, { token: moderator, body: { action: 'approve' } });
    expect((await one(reply.id)).body.content).toBe('a reply, edited');
  });

  it('keeps its answer through writes to other threads', async () => {
    const root = await post(pageUrl(), 'quiet thread');
    const etag = (await one(root.id)).headers.get('etag')!;
    await post(pageUrl(), 'busy thread');
    expect((await one(root.id, { 'if-none-match': etag })).status).toBe(304);
  });

  it("gives a signed-in reader their own marks and never shows them to the public", async () => {
    const root = await post(pageUrl(), 'marked');
    const publicBefore = await one(root.id);
    await parley.request('POST', `/v1/comments/${root.id}/vote`, { token: moderator, body: { vote_type: 'down' } });
    expect((await one(root.id, undefined, moderator)).body).toMatchObject({ user_vote: 'down', downvotes: 1 });
    expect((await one(root.id, undefined, alice)).body).toMatchObject({ user_vote: null, user_is_author: true });
    const publicAfter = await one(root.id);
    expect(publicAfter.body).toMatchObject({ user_vote: null, user_is_author: false, downvotes: 1 });
    expect(publicAfter.headers.get('etag')).not.toBe(publicBefore.headers.get('etag'));
  });

  it("hides a shadow-banned author's comment from the public at once", async () => {
    const erin = await parley.signIn(site.api_key, site.site_id, { id: 'erin', name: 'Erin' });
    const thread = pageUrl();
    const created = await parley.request('POST', '/v1/comments', { token: erin, body: { thread_url: thread, site_id: site.site_id, content: 'from erin' } });
    const other = await parley.request('POST', '/v1/comments', { token: erin, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'elsewhere' } });
    expect((await one(other.body.id)).status).toBe(200);
    await parley.request('PATCH', `/v1/comments/${created.body.id}/moderate`, { token: moderator, body: { action: 'shadow_ban' } });
    expect((await one(other.body.id)).status).toBe(404);
    expect((await one(other.body.id, undefined, erin)).status).toBe(200);
  });
});

describe("a reader's list made from the cached public list", () => {
  const marksOf = (comments: any[]): any[] =>
    comments.flatMap((c) => [[c.content, c.user_vote, c.user_reaction, c.user_is_author], ...marksOf(c.replies)]);

  it("carries each reader's own votes, reactions and authorship, nested replies included, and never leaks them", async () => {
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob-marks', name: 'Bob' });
    const thread = pageUrl();
    const root = await post(thread, 'root by alice');
    const reply = await post(thread, 'reply by alice', root.id);
    await parley.request('POST', `/v1/comments/${reply.id}/vote`, { token: bob, body: { vote_type: 'down' } });
    await parley.request('POST', `/v1/comments/${root.id}/react`, { token: bob, body: { reaction_type: 'funny' } });
    const publicBefore = await list(thread);

    expect(marksOf((await list(thread, undefined, bob)).body.comments)).toEqual([
      ['root by alice', null, 'funny', false],
      ['reply by alice', 'down', null, false],
    ]);
    expect(marksOf((await list(thread, undefined, alice)).body.comments)).toEqual([
      ['root by alice', null, null, true],
      ['reply by alice', null, null, true],
    ]);
    const publicAfter = await list(thread);
    expect(marksOf(publicAfter.body.comments)).toEqual([
      ['root by alice', null, null, false],
      ['reply by alice', null, null, false],
    ]);
    expect(publicAfter.headers.get('etag')).toBe(publicBefore.headers.get('etag'));

    const carol = await parley.signIn(site.api_key, site.site_id, { id: 'carol-marks', name: 'Carol' });
    await parley.request('POST', `/v1/comments/${reply.id}/react`, { token: carol, body: { reaction_type: 'interesting' } });
    expect(marksOf((await list(thread, undefined, carol)).body.comments)).toEqual([
      ['root by alice', null, null, false],
      ['reply by alice', null, 'interesting', false],
    ]);

    await parley.request('POST', `/v1/comments/${reply.id}/vote`, { token: bob, body: { vote_type: 'up' } });
    const afterSwitch = (await list(thread, undefined, bob)).body;
    expect(afterSwitch.comments[0].replies[0]).toMatchObject({ user_vote: 'up', upvotes: 1, downvotes: 0 });
  });

  it("is the public list with only the reader's marks changed, whatever the comments' text holds", async () => {
    const frank = await parley.signIn(site.api_key, site.site_id, { id: 'frank', name: 'Frank' });
    const thread = pageUrl();
    const tricky = await post(thread, 'quoting "user_vote":null,"user_reaction":null,"user_is_author":false — ünïcödé 💬');
    const middle = await post(thread, 'middle ✓', tricky.id);
    const deep = await post(thread, 'deep', middle.id);
    const other = await post(thread, 'another root');
    const own = await parley.request('POST', '/v1/comments', { token: frank, body: { thread_url: thread, site_id: site.site_id, content: 'by frank', parent_id: other.id } });
    await parley.request('POST', `/v1/comments/${deep.id}/vote`, { token: frank, body: { vote_type: 'up' } });
    await parley.request('POST', `/v1/comments/${tricky.id}/react`, { token: frank, body: { reaction_type: 'insightful' } });

    const publicList = (await list(thread)).body;
    const expected = JSON.parse(JSON.stringify(publicList));
    const marked: Record<string, object> = {
      [deep.id]: { user_vote: 'up', upvotes: 1 },
      [tricky.id]: { user_reaction: 'insightful' },
      [own.body.id]: { user_is_author: true },
    };
    const lay = (comments: any[]) => comments.forEach((c) => { Object.assign(c, marked[c.id]); lay(c.replies); });
    lay(expected.comments);
    const reader = await list(thread, undefined, frank);
    expect(reader.body).toEqual(expected);
    expect(reader.headers.get('etag')).not.toBe((await list(thread)).headers.get('etag'));
    expect((await list(thread, { 'if-none-match': reader.headers.get('etag')! }, frank)).status).toBe(304);

    await parley.request('POST', `/v1/comments/${deep.id}/vote`, { token: frank, body: { vote_type: 'down' } });
    const switched = await list(thread, { 'if-none-match': reader.headers.get('etag')! }, frank);
    expect(switched.status).toBe(200);
    expect(switched.body.comments[1].replies[0].replies[0]).toMatchObject({ id: deep.id, user_vote: 'down', downvotes: 1 });
  });

  it('shows a reader their own pending comment, which the public and other readers do not see', async () => {
    const held = await parley.newSite({ moderation: 'all' });
    const carol = await parley.signIn(held.api_key, held.site_id, { id: 'carol', name: 'Carol' });
    const dave = await parley.signIn(held.api_key, held.site_id, { id: 'dave', name: 'Dave' });
    const thread = pageUrl();
    const path = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${held.site_id}`;
    const approved = await parley.request('POST', '/v1/comments', { token: held.api_key, body: { thread_url: thread, site_id: held.site_id, content: 'by the site' } });
    expect(approved.body.status).toBe('published');
    expect((await parley.request('GET', path, { token: carol })).body.total).toBe(1);

    await parley.request('POST', '/v1/comments', { token: carol, body: { thread_url: thread, site_id: held.site_id, content: 'awaiting approval' } });

    const own = (await parley.request('GET', path, { token: carol })).body;
    expect(own.total).toBe(2);
    expect(own.comments.map((c: any) => [c.content, c.status, c.user_is_author])).toEqual([
      ['awaiting approval', 'pending', true],
      ['by the site', 'published', false],
    ]);
    for (const token of [dave, undefined]) {
      const other = (await parley.request('GET', path, { token })).body;
      expect(other.comments.map((c: any) => c.content)).toEqual(['by the site']);
      expect(other.total).toBe(1);
    }
  });
});

describe('ETag and If-None-Match', () => {
  it('answers 304 without a body when the tag is current, and 200 with the new tag after a write', async () => {
    const thread = pageUrl();
    await post(thread, 'tagged');
    const first = await list(thread);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);

    const unchanged = await list(thread, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBeUndefined();
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect((await list(thread, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await list(thread, { 'if-none-match': '"other"' })).status).toBe(200);

    await post(thread, 'newer');
    const changed = await list(thread, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.total).toBe(2);
  });

  it("tags a signed-in user's own list by its own content", async () => {
    const thread = pageUrl();
    const comment = await post(thread, 'mine');
    await parley.request('POST', `/v1/comments/${comment.id}/vote`, { token: alice, body: { vote_type: 'up' } });
    const personal = await list(thread, undefined, alice);
    expect(personal.body.comments[0].user_vote).toBe('up');
    const publicEtag = (await list(thread)).headers.get('etag');
    expect(personal.headers.get('etag')).not.toBe(publicEtag);
    expect((await list(thread, { 'if-none-match': personal.headers.get('etag')! }, alice)).status).toBe(304);
  });
});

describe('with the response cache off', () => {
  it('answers the same lists and tags', async () => {
    const uncached = await startParley({ PARLEY_RESPONSE_CACHE_MB: '0' });
    try {
      const own = await uncached.newSite();
      const thread = pageUrl();
      const path = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${own.site_id}`;
      await uncached.request('POST', '/v1/comments', { token: own.api_key, body: { thread_url: thread, site_id: own.site_id, content: 'hello' } });
      const first = await uncached.request('GET', path);
      expect(first.body.total).toBe(1);
      expect((await uncached.request('GET', path, { headers: { 'if-none-match': first.headers.get('etag')! } })).status).toBe(304);
    } finally {
      await uncached.close();
    }
  });
});

describe('across instances', () => {
  it('clears the other instances\' cached pages through Redis', async () => {
    const database = await freshDatabaseUrl();
    const env = { DATABASE_URL: database.url, REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const writer = await startParley(env);
    const reader = await startParley(env);
    try {
      const own = await writer.newSite();
      const thread = pageUrl();
      const path = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${own.site_id}`;
      expect((await reader.request('GET', path)).body.total).toBe(0);
      await writer.request('POST', '/v1/comments', { token: own.api_key, body: { thread_url: thread, site_id: own.site_id, content: 'from the other instance' } });
      // The announcement travels through Redis: the reader's next reads see it within moments.
      const deadline = Date.now() + 2000;
      let total = 0;
      while (total === 0 && Date.now() < deadline) total = (await reader.request('GET', path)).body.total;
      expect(total).toBe(1);
    } finally {
      await reader.close();
      await writer.close();
      await database.drop();
    }
  });
});

// Two instances on one PostgreSQL database (SQLite serves one instance only).
describe.runIf(dialectName === 'postgres')('instances that may miss each other\'s writes', () => {
  async function twoInstances(env: Record<string, string>) {
    const database = await freshDatabaseUrl();
    const writer = await startParley({ ...env, DATABASE_URL: database.url });
    const reader = await startParley({ ...env, DATABASE_URL: database.url });
    const own = await writer.newSite();
    const thread = pageUrl();
    const path = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${own.site_id}`;
    const write = (content: string) =>
      writer.request('POST', '/v1/comments', { token: own.api_key, body: { thread_url: thread, site_id: own.site_id, content } });
    const total = async () => (await reader.request('GET', path)).body.total as number;
    const close = async () => {
      await reader.close();
      await writer.close();
      await database.drop();
    };
    return { write, total, close };
  }

  it('never serves a stale page on PostgreSQL without Redis (the cache stays off)', async () => {
    const { write, total, close } = await twoInstances({});
    try {
      expect(await total()).toBe(0);
      expect(await total()).toBe(0);
      await write('written through the other instance');
      expect(await total()).toBe(1);
    } finally {
      await close();
    }
  });

  it('reads from the database while Redis is away, and stays fresh once it is back', async () => {
    const port = await freePort();
    let redis = await startOwnRedis(port);
    const { write, total, close } = await twoInstances({ REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      expect(await total()).toBe(0);
      await stopRedis(redis);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await write('while Redis is away');
      expect(await total()).toBe(1);
      redis = await startOwnRedis(port);
      const deadline = Date.now() + 5000;
      let seen = 1;
      while (Date.now() < deadline && seen === 1) {
        await write('after Redis is back');
        seen = await total();
      }
      expect(seen).toBeGreaterThan(1);
      const before = await total();
      await write('one more');
      const until = Date.now() + 2000;
      let after = before;
      while (after === before && Date.now() < until) after = await total();
      expect(after).toBe(before + 1);
    } finally {
      await close();
      await stopRedis(redis);
    }
  });
});
