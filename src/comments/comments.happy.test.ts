import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

describe('posting and listing comments', () => {
  it('creates a comment with the full field set and lists it publicly', async () => {
    const thread = pageUrl();
    const created = await parley.request('POST', '/v1/comments', {
      token: site.api_key,
      body: { thread_url: `${thread}#comments`, site_id: site.site_id, content: '  Hello, world  ', author_name: 'Ada' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      content: 'Hello, world',
      author_name: 'Ada',
      upvotes: 0,
      downvotes: 0,
      reaction_counts: {},
      thread_url: thread,
      site_id: site.site_id,
      parent_id: null,
      replies: [],
      is_edited: false,
      is_deleted: false,
      status: 'published',
      moderation_status: null,
    });
    expect(created.body.id).toMatch(/^cmt_/);
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.page).toBe(1);
    expect(list.body.comments[0].id).toBe(created.body.id);
  });

  it('nests replies under their parent, oldest first', async () => {
    const thread = pageUrl();
    const post = (content: string, parent_id?: string) =>
      parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
    const root = (await post('root')).body;
    const first = (await post('first reply', root.id)).body;
    await post('second reply', root.id);
    await post('nested', first.id);
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    const [top] = list.body.comments;
    expect(list.body.total).toBe(1);
    expect(top.replies.map((r: any) => r.content)).toEqual(['first reply', 'second reply']);
    expect(top.replies[0].replies.map((r: any) => r.content)).toEqual(['nested']);
  });
});

describe('sorting and pages', () => {
  it('sorts newest (default), oldest, top and best, and pages without clamping', async () => {
    const thread = pageUrl();
    const ids: string[] = [];
    for (const content of ['a', 'b', 'c']) {
      const created = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content } });
      ids.push(created.body.id);
    }
    const voters = await Promise.all(['v1', 'v2', 'v3'].map((id) => parley.signIn(site.api_key, site.site_id, { id, name: id })));
    const vote = (token: string, id: string, vote_type: string) => parley.request('POST', `/v1/comments/${id}/vote`, { token, body: { vote_type } });
    // a: +1 -2 (score -1); b: +1 (score 1, wilson low); c: +3 (score 3)
    await vote(voters[0], ids[0], 'up');
    await vote(voters[1], ids[0], 'down');
    await vote(voters[2], ids[0], 'down');
    await vote(voters[0], ids[1], 'up');
    for (const voter of voters) await vote(voter, ids[2], 'up');

    const order = async (query: string) => {
      const response = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}${query}`);
      expect(response.status).toBe(200);
      return response.body.comments.map((c: any) => c.content);
    };
    expect(await order('')).toEqual(['c', 'b', 'a']);
    expect(await order('&sort=oldest')).toEqual(['a', 'b', 'c']);
    expect(await order('&sort=top')).toEqual(['c', 'b', 'a']);
    expect(await order('&sort=best')).toEqual(['c', 'b', 'a']);
    expect(await order('&sort=oldest&limit=2&page=2')).toEqual(['c']);
    const beyond = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&page=9`);
    expect(beyond.body).toEqual({ comments: [], total: 3, page: 9 });
  });

  it('answers an empty thread with an empty page', async () => {
    const response = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}`);
    expect(response.body).toEqual({ comments: [], total: 0, page: 1 });
  });

  it('nests at most 500 replies per top-level comment and marks the cut; GET /:id pages through them all', async () => {
    const thread = pageUrl();
    const root = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: 'root' } });
    const batch = 40;
    for (let i = 0; i < 505; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, 505 - i) }, (_, j) =>
          parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: `r${i + j}`, parent_id: root.body.id } }),
        ),
      );
    }
    // One top-level comment a page: it may nest the most (a page's replies are shared by its top-level comments).
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&limit=1`);
    const [top] = list.body.comments;
    expect(top.replies).toHaveLength(500);
    expect(top.has_more_replies).toBe(true);
    const parts: any[] = [];
    let after = '';
    do {
      const part = await parley.request('GET', `/v1/comments/${root.body.id}?limit=200${after}`);
      expect(part.status).toBe(200);
      parts.push(part.body);
      after = part.body.next_cursor === null ? '' : `&after=${part.body.next_cursor}`;
    } while (after !== '');
    expect(parts.map((part) => [part.replies.length, part.has_more_replies])).toEqual([[200, true], [200, true], [105, false]]);
    expect(new Set(parts.flatMap((part) => part.replies.map((reply: any) => reply.id))).size).toBe(505);
  });
});

describe('editing and deleting', () => {
  it('lets the author edit and marks the comment edited; others get 403', async () => {
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice-edit', name: 'Alice' });
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob-edit', name: 'Bob' });
    const created = await parley.request('POST', '/v1/comments', { token: alice, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'first' } });
    expect(created.body.author_name).toBe('Alice');
    const edited = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: alice, body: { content: 'second' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ content: 'second', is_edited: true });
    const stolen = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: bob, body: { content: 'mine now' } });
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe('forbidden');
    const byAdmin = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: site.api_key, body: { content: 'admin edit' } });
    expect(byAdmin.status).toBe(403);
    const anonymous = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { body: { content: 'guest edit' } });
    expect(anonymous.status).toBe(401);
  });

  it('deletes idempotently, keeps the author or a moderator in charge, and refuses edits after', async () => {
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice-del', name: 'Alice' });
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob-del', name: 'Bob' });
    const thread = pageUrl();
    const mine = await parley.request('POST', '/v1/comments', { token: alice, body: { thread_url: thread, site_id: site.site_id, content: 'mine' } });
    expect((await parley.request('DELETE', `/v1/comments/${mine.body.id}`, { token: bob })).status).toBe(403);
    const first = await parley.request('DELETE', `/v1/comments/${mine.body.id}`, { token: alice });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: mine.body.id, content: null, is_deleted: true });
    const again = await parley.request('DELETE', `/v1/comments/${mine.body.id}`, { token: alice });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const edit = await parley.request('PATCH', `/v1/comments/${mine.body.id}`, { token: alice, body: { content: 'back' } });
    expect(edit.status).toBe(409);
    expect(edit.body.code).toBe('conflict');

    const bobs = await parley.request('POST', '/v1/comments', { token: bob, body: { thread_url: thread, site_id: site.site_id, content: 'bob' } });
    const byModeratorKey = await parley.request('DELETE', `/v1/comments/${bobs.body.id}`, { token: site.api_key });
    expect(byModeratorKey.status).toBe(200);
    expect(byModeratorKey.body.is_deleted).toBe(true);
  });
});

describe('guests', () => {
  it('posts as a guest with an optional name, pending where the site moderates guests', async () => {
    const guarded = await parley.newSite({ moderation: 'guests' });
    const thread = pageUrl();
    const named = await parley.request('POST', '/v1/comments', {
      body: { thread_url: thread, site_id: guarded.site_id, content: 'hi', author_name: 'Visitor', ...(await parley.guestForm(guarded.site_id)) },
    });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ author_name: 'Visitor', status: 'pending' });
    const unnamed = await parley.request('POST', '/v1/comments', { body: { thread_url: thread, site_id: site.site_id, content: 'hi', ...(await parley.guestForm(site.site_id)) } });
    expect(unnamed.body).toMatchObject({ author_name: 'Anonymous', status: 'published' });
  });

  it('tells guest comments from signed-in and API-key ones (author_is_guest) in every response', async () => {
    const thread = pageUrl();
    const user = await parley.signIn(site.api_key, site.site_id, { id: 'guest-marker-user', name: 'Signed In' });
    const form = await parley.guestForm(site.site_id);
    const post = (token: string | undefined, content: string, parent_id?: string) =>
      parley.request('POST', '/v1/comments', {
        token,
        body: { thread_url: thread, site_id: site.site_id, content, parent_id, author_name: token === user ? undefined : 'Signed In', ...(token === undefined && form) },
      });
    const guest = await post(undefined, 'by a guest');
    expect(guest.body.author_is_guest).toBe(true);
    const member = await post(user, 'by a signed-in user', guest.body.id);
    expect(member.body.author_is_guest).toBe(false);
    const key = await post(site.api_key, 'by an API key', guest.body.id);
    expect(key.body.author_is_guest).toBe(false);

    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    const [top] = list.body.comments;
    expect([top.author_is_guest, ...top.replies.map((reply: any) => reply.author_is_guest)]).toEqual([true, false, false]);
    const single = await parley.request('GET', `/v1/comments/${guest.body.id}`, { token: user });
    expect(single.body.author_is_guest).toBe(true);
  });
});

/** Posts through the API, `batch` at a time; returns the new comments' ids in the order given. */
async function postAll(thread: string, comments: Array<{ content: string; parent_id?: string }>, batch = 40): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < comments.length; i += batch) {
    const created = await Promise.all(
      comments.slice(i, i + batch).map((comment) => parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, ...comment } })),
    );
    ids.push(...created.map((response) => response.body.id as string));
  }
  return ids;
}

const flatten = (replies: any[]): any[] => replies.flatMap((reply) => [reply, ...flatten(reply.replies)]);

describe('the size of a list page', () => {
  it('shares a bounded number of replies among the top-level comments of a page; each cut one has a cursor to the rest', async () => {
    const thread = pageUrl();
    const roots = await postAll(thread, ['a', 'b', 'c'].map((content) => ({ content })));
    // Under each: 20 replies, and under the first of those a further 10.
    const direct = await postAll(thread, roots.flatMap((root) => Array.from({ length: 20 }, (_, i) => ({ content: `reply ${i}`, parent_id: root }))), 1);
    await postAll(thread, roots.flatMap((_, r) => Array.from({ length: 10 }, (_, i) => ({ content: `nested ${i}`, parent_id: direct[r * 20] }))), 1);

    // 100 top-level comments a page share 1,000 replies: 10 each.
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.comments).toHaveLength(3);
    for (const top of list.body.comments) {
      const shown = flatten(top.replies);
      expect(shown).toHaveLength(10);
      expect(top).toMatchObject({ has_more_replies: true, next_cursor: shown.at(-1).id });
      // The cursor continues where the list stopped, as the parts of GET /v1/comments/:id do.
      const whole = await parley.request('GET', `/v1/comments/${top.id}?limit=200`);
      const rest = await parley.request('GET', `/v1/comments/${top.id}?limit=200&after=${top.next_cursor}`);
      expect([...shown, ...flatten(rest.body.replies)].map((reply) => reply.id)).toEqual(flatten(whole.body.replies).map((reply: any) => reply.id));
    }
    // A page of one top-level comment nests its whole subtree, and says nothing is left.
    const one = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&limit=1`);
    expect(flatten(one.body.comments[0].replies)).toHaveLength(30);
    expect(one.body.comments[0]).toMatchObject({ has_more_replies: false, next_cursor: null });
  }, 60_000);

  it('bounds the bytes of a page of long replies', async () => {
    const thread = pageUrl();
    const roots = await postAll(thread, Array.from({ length: 20 }, (_, i) => ({ content: `top ${i}` })));
    const long = 'x'.repeat(10_000);
    await postAll(thread, roots.flatMap((root) => Array.from({ length: 20 }, () => ({ content: long, parent_id: root }))));
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&limit=20`);
    expect(list.status).toBe(200);
    // 400 replies of 10,000 characters would be 4 MB; a page holds about 1 MB of replies.
    expect(Number(list.headers.get('content-length'))).toBeLessThan(1_200_000);
    for (const top of list.body.comments) {
      expect(top.replies.length).toBeGreaterThan(0);
      expect(top).toMatchObject({ has_more_replies: true, next_cursor: top.replies.at(-1).id });
    }
  }, 60_000);
});

describe('deep threads', () => {
  it('nests 200 levels per response and lets a client follow a longer chain down with GET /:id', async () => {
    const thread = pageUrl();
    const chain: string[] = [];
    for (let i = 0; i < 260; i++) {
      const created = await parley.request('POST', '/v1/comments', {
        token: site.api_key,
        body: { thread_url: thread, site_id: site.site_id, content: `level ${i}`, parent_id: chain.at(-1) },
      });
      chain.push(created.body.id);
    }
    const depthOf = (comment: any): number => (comment.replies.length ? 1 + depthOf(comment.replies[0]) : 0);
    const deepest = (comment: any): any => (comment.replies.length ? deepest(comment.replies[0]) : comment);
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&limit=1`);
    expect(list.status).toBe(200);
    expect(depthOf(list.body.comments[0])).toBe(200);
    const cutAt = deepest(list.body.comments[0]);
    expect(cutAt).toMatchObject({ id: chain[200], has_more_replies: true });
    const rest = await parley.request('GET', `/v1/comments/${cutAt.id}`);
    expect(rest.status).toBe(200);
    expect(depthOf(rest.body)).toBe(59);
    expect(deepest(rest.body).id).toBe(chain[259]);
  });
});
