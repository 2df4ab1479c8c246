import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley } from '../helper.ts';
import { buildWorld, NO_RATE_LIMITS, type World } from './world.ts';

/**
 * Concurrent writes on one comment, checked against a replay of the accepted requests: each user's
 * requests run in order (so their own outcome is known), users run at the same time.
 */
let world: World;
let users: Array<{ id: string; token: string }>;
beforeAll(async () => {
  world = await buildWorld(await startParley(NO_RATE_LIMITS));
  users = await Promise.all(Array.from({ length: 12 }, (_, i) => world.newUser(`racer-${i}`)));
});
afterAll(() => world.parley.close());

const request = (method: string, path: string, token?: string, body?: unknown) => world.parley.request(method, path, { token, body });
const readAsModerator = async (id: string) => (await request('GET', `/v1/comments/${id}`, world.adminKey)).body;

/** Event rows are the webhook outbox: what subscribers will be told. */
async function eventsOf(type: string, commentId: string): Promise<number> {
  const rows = await world.parley.app.db.kysely.selectFrom('events').select('data').where('type', '=', type).execute();
  return rows.filter((row) => JSON.parse(row.data).comment?.id === commentId).length;
}

function randomSequence<T>(choices: T[], length: number): T[] {
  return Array.from({ length }, () => choices[Math.floor(Math.random() * choices.length)]);
}

describe('concurrent writes on one comment', () => {
  it('keeps vote counts exact: the counts equal the replay of every user’s last accepted vote', async () => {
    const id = await world.post(world.adminKey, 'vote on me');
    const finals = await Promise.all(
      users.map(async (user) => {
        let last: string | null = null;
        for (const choice of randomSequence(['up', 'down', 'remove'], 8)) {
          const response = choice === 'remove' ? await request('DELETE', `/v1/comments/${id}/vote`, user.token) : await request('POST', `/v1/comments/${id}/vote`, user.token, { vote_type: choice });
          expect(response.status).toBe(200);
          last = response.body.user_vote;
        }
        return last;
      }),
    );
    const comment = await readAsModerator(id);
    expect(comment.upvotes).toBe(finals.filter((v) => v === 'up').length);
    expect(comment.downvotes).toBe(finals.filter((v) => v === 'down').length);
  });

  it('counts the same vote sent many times at once as one vote', async () => {
    const id = await world.post(world.adminKey, 'double-click me');
    const responses = await Promise.all(Array.from({ length: 10 }, () => request('POST', `/v1/comments/${id}/vote`, users[0].token, { vote_type: 'up' })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect((await readAsModerator(id)).upvotes).toBe(1);
  });

  it('keeps reaction counts exact: they equal the replay of every user’s last reaction', async () => {
    const id = await world.post(world.adminKey, 'react to me');
    const finals = await Promise.all(
      users.map(async (user) => {
        let last: string | null = null;
        for (const type of randomSequence(['funny', 'interesting', 'insightful'], 6)) {
          const response = await request('POST', `/v1/comments/${id}/react`, user.token, { reaction_type: type });
          expect(response.status).toBe(200);
          last = response.body.user_reaction;
        }
        return last;
      }),
    );
    const expected: Record<string, number> = {};
    for (const type of finals) if (type) expected[type] = (expected[type] ?? 0) + 1;
    expect((await readAsModerator(id)).reaction_counts).toEqual(expected);
  });

  it('records one flag (one comment.flagged) per flagger however often they flag at once', async () => {
    const id = await world.post(world.adminKey, 'flag me');
    const responses = await Promise.all(users.flatMap((user) => [1, 2, 3].map(() => request('POST', `/v1/comments/${id}/flag`, user.token, { reason: 'spam' }))));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(await eventsOf('comment.flagged', id)).toBe(users.length);
  });

  it('settles edits racing a delete: the comment ends deleted, every edit is 200 before it or 409 after, one comment.deleted', async () => {
    const id = await world.post(world.credential.user, 'edit me');
    const edits = Array.from({ length: 10 }, (_, i) => request('PATCH', `/v1/comments/${id}`, world.credential.user!, { content: `edit ${i}` }));
    const deletes = [request('DELETE', `/v1/comments/${id}`, world.credential.user!), request('DELETE', `/v1/comments/${id}`, world.adminKey)];
    const [editResponses, deleteResponses] = await Promise.all([Promise.all(edits), Promise.all(deletes)]);
    expect(editResponses.map((r) => r.status).every((s) => s === 200 || s === 409)).toBe(true);
    expect(deleteResponses.map((r) => r.status)).toEqual([200, 200]);
    const final = await readAsModerator(id);
    expect(final).toMatchObject({ is_deleted: true, content: null });
    expect(await eventsOf('comment.deleted', id)).toBe(1);
    expect(await eventsOf('comment.updated', id)).toBe(editResponses.filter((r) => r.status === 200).length);
  });

  it('applies the same moderation action sent at once exactly once, beside votes and reactions', async () => {
    const id = await world.post(world.credential.otherUser, 'moderate me');
    const moderations = Array.from({ length: 6 }, (_, i) => request('PATCH', `/v1/comments/${id}/moderate`, i % 2 ? world.adminKey : world.credential.moderatorKey!, { action: 'remove' }));
    const noise = users.slice(0, 6).map((user) => request('POST', `/v1/comments/${id}/vote`, user.token, { vote_type: 'up' }));
    const [moderated, voted] = await Promise.all([Promise.all(moderations), Promise.all(noise)]);
    expect(moderated.map((r) => r.status).every((s) => s === 200)).toBe(true);
    expect(moderated.every((r) => r.body.status === 'removed')).toBe(true);
    // A vote that lost the race to the removal no longer sees the comment (404); the rest counted.
    expect(voted.map((r) => r.status).every((s) => s === 200 || s === 404)).toBe(true);
    const final = await readAsModerator(id);
    expect(final).toMatchObject({ status: 'removed', moderation_status: 'removed', upvotes: voted.filter((r) => r.status === 200).length });
    expect(await eventsOf('comment.rejected', id)).toBe(1);
    expect(await eventsOf('moderation.action', id)).toBe(1);
  });

  it('a comment posted while its author was being shadow-banned stayed public (PostgreSQL READ COMMITTED race)', async () => {
    const author = await world.newUser('poster');
    const first = await world.post(author.token, 'first');
    const posts = Array.from({ length: 15 }, (_, i) => request('POST', '/v1/comments', author.token, { site_id: world.siteA, thread_url: world.thread, content: `post ${i}` }));
    const ban = request('PATCH', `/v1/comments/${first}/moderate`, world.adminKey, { action: 'shadow_ban' });
    const [created, banned] = await Promise.all([Promise.all(posts), ban]);
    expect(banned.status).toBe(200);
    for (const response of created) {
      expect(response.status).toBe(201);
      const asPublic = await request('GET', `/v1/comments/${response.body.id}`);
      expect(asPublic.status, `comment ${response.body.id} is still public after the shadow ban`).toBe(404);
    }
  });
});
