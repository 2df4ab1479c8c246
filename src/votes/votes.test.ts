import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { wilsonLowerBound } from './wilson.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let alice: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
});
afterAll(() => parley.close());

async function newComment(token = alice) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'vote on me' } });
  return response.body.id as string;
}
const vote = (token: string | undefined, id: string, vote_type: string) => parley.request('POST', `/v1/comments/${id}/vote`, { token, body: { vote_type } });
const react = (token: string | undefined, id: string, reaction_type: string) => parley.request('POST', `/v1/comments/${id}/react`, { token, body: { reaction_type } });

describe('votes', () => {
  it('records one vote per caller: repeat changes nothing, the opposite switches, DELETE removes', async () => {
    const id = await newComment();
    expect((await vote(alice, id, 'up')).body).toEqual({ upvotes: 1, downvotes: 0, user_vote: 'up', liked_by_site_owner: false });
    expect((await vote(alice, id, 'up')).body).toEqual({ upvotes: 1, downvotes: 0, user_vote: 'up', liked_by_site_owner: false });
    expect((await vote(alice, id, 'down')).body).toEqual({ upvotes: 0, downvotes: 1, user_vote: 'down', liked_by_site_owner: false });
    const removed = await parley.request('DELETE', `/v1/comments/${id}/vote`, { token: alice });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ upvotes: 0, downvotes: 0, user_vote: null, liked_by_site_owner: false });
  });

  it('marks a comment liked by the site owner when an admin key or moderator upvotes it', async () => {
    const id = await newComment();
    expect((await vote(site.api_key, id, 'up')).body.liked_by_site_owner).toBe(true);
    const listed = await parley.request('GET', `/v1/comments/${id}`, { token: alice });
    expect(listed.body).toMatchObject({ upvotes: 1, user_vote: null });
  });

  it("keeps liked_by_site_owner exact as the owner's and others' votes change", async () => {
    const id = await newComment();
    const liked = async (token: string, type: string | null) =>
      (type === null ? await parley.request('DELETE', `/v1/comments/${id}/vote`, { token }) : await vote(token, id, type)).body.liked_by_site_owner;
    expect(await liked(alice, 'up')).toBe(false);
    expect(await liked(site.api_key, 'up')).toBe(true);
    expect(await liked(site.api_key, 'up')).toBe(true);
    expect(await liked(alice, 'down')).toBe(true);
    expect(await liked(site.api_key, 'down')).toBe(false);
    expect(await liked(site.api_key, 'up')).toBe(true);
    expect(await liked(site.api_key, null)).toBe(false);
  });

  it('shows the caller their own vote and reaction in lists', async () => {
    const id = await newComment();
    await vote(alice, id, 'down');
    await react(alice, id, 'funny');
    const mine = await parley.request('GET', `/v1/comments/${id}`, { token: alice });
    expect(mine.body).toMatchObject({ downvotes: 1, user_vote: 'down', user_reaction: 'funny', reaction_counts: { funny: 1 } });
  });

  it('refuses bad votes: 400 for an unknown type, 401 without credential, 404 unknown, 409 deleted', async () => {
    const id = await newComment();
    const bad = await vote(alice, id, 'sideways');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect((await vote(undefined, id, 'up')).status).toBe(401);
    expect((await vote(alice, 'cmt_unknown', 'up')).status).toBe(404);
    await parley.request('DELETE', `/v1/comments/${id}`, { token: alice });
    const deleted = await vote(alice, id, 'up');
    expect(deleted.status).toBe(409);
    expect(deleted.body.code).toBe('conflict');
    expect((await react(alice, id, 'funny')).status).toBe(409);
  });

  it('answers 404 for a comment the caller cannot see', async () => {
    const premod = await parley.newSite({ moderation: 'all' });
    const author = await parley.signIn(premod.api_key, premod.site_id, { id: 'a', name: 'A' });
    const other = await parley.signIn(premod.api_key, premod.site_id, { id: 'b', name: 'B' });
    const pending = await parley.request('POST', '/v1/comments', { token: author, body: { thread_url: pageUrl(), site_id: premod.site_id, content: 'pending' } });
    expect((await vote(other, pending.body.id, 'up')).status).toBe(404);
    expect((await react(other, pending.body.id, 'funny')).status).toBe(404);
  });

  it("answers 404 for a guest's pending comment and replies to it, whose author no signed-in reader is", async () => {
    const premod = await parley.newSite({ moderation: 'guests', allowGuests: true });
    const reader = await parley.signIn(premod.api_key, premod.site_id, { id: 'r', name: 'R' });
    const thread_url = pageUrl();
    const guest = await parley.request('POST', '/v1/comments', { body: { thread_url, site_id: premod.site_id, content: 'a guest waits for approval', ...(await parley.guestForm(premod.site_id)) } });
    expect(guest.status).toBe(201);
    expect((await vote(reader, guest.body.id, 'up')).status).toBe(404);
    expect((await react(reader, guest.body.id, 'funny')).status).toBe(404);
    const reply = await parley.request('POST', '/v1/comments', { token: reader, body: { thread_url, site_id: premod.site_id, parent_id: guest.body.id, content: 'a reply' } });
    expect(reply.status).toBe(400);
  });

  it('counts exactly when 50 users vote and react at once', async () => {
    const id = await newComment();
    const users = await Promise.all(Array.from({ length: 50 }, (_, i) => parley.signIn(site.api_key, site.site_id, { id: `crowd-${i}`, name: `User ${i}` })));
    const votes = await Promise.all(users.map((token, i) => vote(token, id, i % 5 === 0 ? 'down' : 'up')));
    const reactions = await Promise.all(users.map((token, i) => react(token, id, i % 2 === 0 ? 'funny' : 'insightful')));
    expect(votes.every((r) => r.status === 200)).toBe(true);
    expect(reactions.every((r) => r.status === 200)).toBe(true);
    const comment = await parley.request('GET', `/v1/comments/${id}`);
    expect(comment.body).toMatchObject({ upvotes: 40, downvotes: 10, reaction_counts: { funny: 25, insightful: 25 } });
  });

  it('leaves one vote when the same user votes 20 times at once', async () => {
    const id = await newComment();
    const results = await Promise.all(Array.from({ length: 20 }, () => vote(alice, id, 'up')));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const comment = await parley.request('GET', `/v1/comments/${id}`);
    expect(comment.body).toMatchObject({ upvotes: 1, downvotes: 0 });
  });
});

describe('counts', () => {
  // Counts that no mark row explains: an import brings a comment's totals, not its voters.
  const setCounts = (id: string, counts: { upvotes: number; downvotes: number; reaction_counts: string; counts_changed_at?: string }) =>
    parley.app.db.kysely
      .updateTable('comment_counts')
      .set({ ...counts, score: counts.upvotes - counts.downvotes, wilson: wilsonLowerBound(counts.upvotes, counts.downvotes) })
      .where('comment_id', '=', id)
      .execute();
  const stampOf = async (id: string) => (await parley.app.db.kysely.selectFrom('comment_counts').select('counts_changed_at').where('comment_id', '=', id).executeTakeFirstOrThrow()).counts_changed_at;

  it('moves the counts a comment already has by the change, imported ones included', async () => {
    const id = await newComment();
    await setCounts(id, { upvotes: 10, downvotes: 4, reaction_counts: '{"funny":3,"insightful":2}' });
    expect((await vote(alice, id, 'down')).body).toMatchObject({ upvotes: 10, downvotes: 5, user_vote: 'down' });
    expect((await vote(alice, id, 'up')).body).toMatchObject({ upvotes: 11, downvotes: 4, user_vote: 'up' });
    expect((await react(alice, id, 'insightful')).body).toEqual({ reaction_counts: { funny: 3, insightful: 3 }, user_reaction: 'insightful' });
    expect((await react(alice, id, 'interesting')).body).toEqual({ reaction_counts: { funny: 3, insightful: 2, interesting: 1 }, user_reaction: 'interesting' });
    const listed = await parley.request('GET', `/v1/comments/${id}`);
    expect(listed.body).toMatchObject({ upvotes: 11, downvotes: 4, reaction_counts: { funny: 3, insightful: 2, interesting: 1 } });
    // The sort keys of `sort=top` and `sort=best`, computed in the statement from the moved counts.
    const row = await parley.app.db.kysely.selectFrom('comment_counts').select(['score', 'wilson']).where('comment_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.score)).toBe(7);
    expect(Number(row.wilson)).toBeCloseTo(wilsonLowerBound(11, 4), 6);
  });

  it("stamps a change of counts after the comment's last stamp, even one from a clock ahead of this one", async () => {
    const id = await newComment();
    const ahead = new Date(Date.now() + 60_000).toISOString();
    await setCounts(id, { upvotes: 0, downvotes: 0, reaction_counts: '{}', counts_changed_at: ahead });
    await vote(alice, id, 'up');
    const first = await stampOf(id);
    expect(first).toBe(new Date(Date.parse(ahead) + 1).toISOString());
    await react(alice, id, 'funny');
    expect(await stampOf(id)).toBe(new Date(Date.parse(ahead) + 2).toISOString());
  });
});

describe('reactions', () => {
  it('toggles: the same type removes it, another type switches', async () => {
    const id = await newComment();
    expect((await react(alice, id, 'funny')).body).toEqual({ reaction_counts: { funny: 1 }, user_reaction: 'funny' });
    expect((await react(alice, id, 'interesting')).body).toEqual({ reaction_counts: { interesting: 1 }, user_reaction: 'interesting' });
    expect((await react(alice, id, 'interesting')).body).toEqual({ reaction_counts: {}, user_reaction: null });
  });

  it("refuses a reaction outside the site's set, listing the allowed ones", async () => {
    const id = await newComment();
    const response = await react(alice, id, 'angry');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.detail).toContain('funny, interesting, insightful');
  });

  it("follows the site's own reaction set", async () => {
    const patched = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { reactions: ['love', 'funny'] } });
    expect(patched.body.reactions).toEqual(['love', 'funny']);
    const id = await newComment();
    expect((await react(alice, id, 'love')).status).toBe(200);
    expect((await react(alice, id, 'insightful')).status).toBe(400);
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { reactions: ['funny', 'interesting', 'insightful'] } });
  });
});
