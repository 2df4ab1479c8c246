import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCaller } from '../auth/caller.ts';
import { dialectName, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { createComment } from './service.ts';

// GET /v1/comments/:id answers a comment with a bounded part of its subtree and a cursor to the next
// part (src/comments/subtree-page.ts), and readers who see what the public sees share the public's
// cached answer (src/comments/public-comment.ts). The cache serves only where every write is heard:
// on PostgreSQL that takes Redis.
let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley(dialectName === 'postgres' ? { REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {});
  site = await parley.newSite();
});
afterAll(() => parley.close());

interface Seeded {
  id: string;
  parent_id: string | null;
  created_at: string;
}

/** Writes comments through the service, `parallel` at a time (each one its own transaction, as over HTTP). */
async function seed(thread: string, parents: Array<string | undefined>, parallel = 32): Promise<Seeded[]> {
  const key = await resolveCaller(parley.app.db, site.api_key, '127.0.0.1');
  const created: Seeded[] = [];
  for (let start = 0; start < parents.length; start += parallel) {
    const batch = parents.slice(start, start + parallel).map((parent_id, i) =>
      createComment(parley.app.db, key, { thread_url: thread, site_id: site.site_id, content: `comment ${start + i}`, parent_id }),
    );
    created.push(...(await Promise.all(batch)));
  }
  return created;
}

/** The replies below `rootId` in the order lists nest them: depth first, oldest first under each comment. */
function nestedOrder(rootId: string, comments: Seeded[]): string[] {
  const children = new Map<string, Seeded[]>();
  for (const comment of comments) children.set(comment.parent_id!, [...(children.get(comment.parent_id!) ?? []), comment]);
  const order: string[] = [];
  const visit = (id: string) => {
    const below = (children.get(id) ?? []).sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
    for (const child of below) {
      order.push(child.id);
      visit(child.id);
    }
  };
  visit(rootId);
  return order;
}

/** An answer's replies in the order of its JSON (pre-order), each with its parent and has_more_replies. */
function flatten(replies: any[]): any[] {
  return replies.flatMap((reply) => [reply, ...flatten(reply.replies)]);
}

const one = (id: string, query = '', token?: string) => parley.request('GET', `/v1/comments/${id}${query}`, { token });

describe('GET /v1/comments/:id, a part of the subtree at a time', () => {
  it('answers a comment with thousands of replies in bounded parts, whose cursor walks the whole subtree once, in the order lists nest it', async () => {
    const thread = pageUrl();
    const [root] = await seed(thread, [undefined]);
    const direct = await seed(thread, Array.from({ length: 2000 }, () => root.id));
    // Every 50th direct reply gets 20 replies, and the newest of those a chain five deep.
    const nested = await seed(thread, direct.filter((_, i) => i % 50 === 0).flatMap((parent) => Array.from({ length: 20 }, () => parent.id)));
    const newest = new Map<string, Seeded>();
    for (const reply of nested) if ((newest.get(reply.parent_id!)?.created_at ?? '') <= reply.created_at) newest.set(reply.parent_id!, reply);
    let chainEnds = [...newest.values()];
    const chains: Seeded[] = [];
    for (let level = 0; level < 5; level++) {
      chainEnds = await seed(thread, chainEnds.map((end) => end.id));
      chains.push(...chainEnds);
    }
    const all = [...direct, ...nested, ...chains];
    expect(all).toHaveLength(3000);
    const expected = nestedOrder(root.id, all);
    const childCount = new Map<string, number>();
    for (const comment of all) childCount.set(comment.parent_id!, (childCount.get(comment.parent_id!) ?? 0) + 1);

    const walked: string[] = [];
    const pages: any[][] = [];
    let cursor: string | null = null;
    do {
      const response = await one(root.id, cursor === null ? '' : `?after=${cursor}`);
      expect(response.status).toBe(200);
      // 100 replies of a few dozen characters each: far from the megabytes of the whole subtree.
      expect(Number(response.headers.get('content-length'))).toBeLessThan(80_000);
      expect(response.body).toMatchObject({ id: root.id, content: 'comment 0' });
      const replies = flatten(response.body.replies);
      expect(replies.length).toBeLessThanOrEqual(100);
      // A reply whose parent came in an earlier part stands directly under the comment, its parent named.
      for (const top of response.body.replies) expect(top.parent_id === root.id || walked.includes(top.parent_id)).toBe(true);
      expect(response.body.has_more_replies).toBe(response.body.next_cursor !== null);
      walked.push(...replies.map((reply) => reply.id));
      pages.push(replies);
      cursor = response.body.next_cursor;
    } while (cursor !== null);

    expect(walked).toEqual(expected);
    expect(pages.length).toBe(30);
    // has_more_replies marks exactly the comments whose replies are not all in their own part.
    for (const [index, replies] of pages.entries()) {
      const later = new Set(pages.slice(index + 1).flat().map((reply) => reply.parent_id));
      for (const reply of replies) expect([reply.id, reply.has_more_replies]).toEqual([reply.id, later.has(reply.id)]);
    }
    expect(pages.flat().filter((reply) => childCount.has(reply.id)).every((reply) => reply.replies.length > 0 || reply.has_more_replies)).toBe(true);
  }, 120_000);

  it('marks a reply has_more_replies only when replies of its own are left, not for those further down', async () => {
    const thread = pageUrl();
    const [root] = await seed(thread, [undefined]);
    const [first, second] = await seed(thread, [root.id, root.id], 1);
    const [onlyReply] = await seed(thread, [first.id]);
    const [deep] = await seed(thread, [onlyReply.id, onlyReply.id], 1);
    const part = await one(root.id, '?limit=3');
    expect(flatten(part.body.replies).map((reply) => [reply.id, reply.has_more_replies])).toEqual([
      [first.id, false],
      [onlyReply.id, true],
      [deep.id, false],
    ]);
    expect(part.body.has_more_replies).toBe(true);
    const rest = await one(root.id, `?after=${part.body.next_cursor}`);
    expect(rest.body.replies.map((reply: any) => [reply.parent_id, reply.has_more_replies])).toEqual([
      [onlyReply.id, false],
      [root.id, false],
    ]);
    expect(rest.body.replies[1].id).toBe(second.id);
    expect([rest.body.has_more_replies, rest.body.next_cursor]).toEqual([false, null]);
  });

  it('takes limit from 1 to 200, and refuses anything else, and a cursor not of this subtree, with 400', async () => {
    const thread = pageUrl();
    const [root, other] = await seed(thread, [undefined, undefined]);
    const replies = await seed(thread, [root.id, root.id, root.id], 1);
    const [elsewhere] = await seed(thread, [other.id]);
    const first = await one(root.id, '?limit=1');
    expect(first.body.replies.map((reply: any) => reply.id)).toEqual([replies[0].id]);
    expect(first.body.next_cursor).toBe(replies[0].id);
    expect((await one(root.id, `?limit=200&after=${replies[0].id}`)).body.replies.map((reply: any) => reply.id)).toEqual([replies[1].id, replies[2].id]);
    for (const query of ['?limit=0', '?limit=201', '?limit=-1', '?limit=1.5', '?limit=ten', `?after=${elsewhere.id}`, `?after=${root.id}`, '?after=cmt_unknown', '?after=']) {
      const refused = await one(root.id, query);
      expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'validation_failed']);
    }
  });

  it('continues after a part whose replies were removed since, and keeps a deleted reply while replies below it are left', async () => {
    const thread = pageUrl();
    const moderator = await parley.signIn(site.api_key, site.site_id, { id: 'paging-mod', name: 'Mo', moderator: true });
    const [root] = await seed(thread, [undefined]);
    const [first, second] = await seed(thread, [root.id, root.id], 1);
    const below = await seed(thread, [first.id, first.id, first.id, first.id], 1);
    const part = await one(root.id, '?limit=3');
    expect(flatten(part.body.replies).map((reply) => reply.id)).toEqual([first.id, below[0].id, below[1].id]);
    expect(part.body.replies[0].has_more_replies).toBe(true);

    await parley.request('PATCH', `/v1/comments/${first.id}/moderate`, { token: moderator, body: { action: 'remove' } });
    const rest = await one(root.id, `?after=${part.body.next_cursor}`);
    expect(rest.body.replies.map((reply: any) => reply.id)).toEqual([second.id]);
    expect(rest.body.next_cursor).toBeNull();

    await parley.request('PATCH', `/v1/comments/${first.id}/moderate`, { token: moderator, body: { action: 'approve' } });
    await parley.request('DELETE', `/v1/comments/${first.id}`, { token: site.api_key });
    const placeholder = await one(root.id, '?limit=1');
    expect(placeholder.body.replies).toEqual([expect.objectContaining({ id: first.id, content: null, is_deleted: true, has_more_replies: true, replies: [] })]);
  });
});

describe("a signed-in reader's GET /v1/comments/:id", () => {
  it("is the public's cached answer with the reader's own marks; a moderator's is read for them", async () => {
    const thread = pageUrl();
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'paging-alice', name: 'Alice' });
    const moderator = await parley.signIn(site.api_key, site.site_id, { id: 'paging-mo', name: 'Mo', moderator: true });
    const [root] = await seed(thread, [undefined]);
    const reply = await parley.request('POST', '/v1/comments', { token: alice, body: { thread_url: thread, site_id: site.site_id, content: 'by alice', parent_id: root.id } });
    await parley.request('POST', `/v1/comments/${root.id}/vote`, { token: alice, body: { vote_type: 'up' } });
    const publicAnswer = await one(root.id);
    expect(publicAnswer.body.replies[0]).toMatchObject({ content: 'by alice', user_is_author: false });

    // A change the cache does not hear of: what is read from the cache still shows the old text.
    await parley.app.db.kysely.updateTable('comments').set({ content: 'changed behind the cache' }).where('id', '=', reply.body.id).execute();
    const fromCache = await one(root.id, '', alice);
    expect(fromCache.status).toBe(200);
    expect(fromCache.body).toMatchObject({ user_vote: 'up', user_is_author: false, upvotes: 1 });
    expect(fromCache.body.replies[0]).toMatchObject({ content: 'by alice', user_vote: null, user_is_author: true });
    expect((await one(root.id, '', site.api_key)).body.replies[0].content).toBe('changed behind the cache');
    expect((await one(root.id, '', moderator)).body.replies[0].content).toBe('changed behind the cache');
    // And the public's answer never carries a reader's marks.
    expect((await one(root.id)).body).toEqual(publicAnswer.body);
    expect((await one(root.id, '', alice)).headers.get('etag')).not.toBe(publicAnswer.headers.get('etag'));
  });
});
