import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, startParley, type TestParley } from '../../test/helper.ts';

/** Requests come from 127.0.0.1, a trusted proxy here, so X-Forwarded-For sets each guest's address. */
let parley: TestParley;
beforeAll(async () => {
  parley = await startParley({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => parley.close());

type Site = { site_id: string; api_key: string };

/** A site with a published comment to vote on, and guest voting as given. */
async function siteWithComment(guestVotes: boolean): Promise<{ site: Site; id: string }> {
  const site = await parley.newSite();
  if (guestVotes) expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { guest_votes: true } } })).status).toBe(200);
  const posted = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Vote on me' } });
  expect(posted.status).toBe(201);
  return { site, id: posted.body.id };
}

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const guestVote = (id: string, ip: string, vote_type: 'up' | 'down') => parley.request('POST', `/v1/comments/${id}/vote`, { headers: from(ip), body: { vote_type } });
const counts = async (site: Site, id: string) => {
  const { upvotes, downvotes } = (await parley.request('GET', `/v1/comments/${id}`, { token: site.api_key })).body;
  return { upvotes, downvotes };
};

describe('guest voting, where a site allows it', () => {
  it('is off by default: a vote, its removal and a reaction without a credential are 401', async () => {
    const { site, id } = await siteWithComment(false);
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam.guest_votes).toBe(false);
    for (const [method, path, body] of [
      ['POST', `/v1/comments/${id}/vote`, { vote_type: 'up' }],
      ['DELETE', `/v1/comments/${id}/vote`, undefined],
      ['POST', `/v1/comments/${id}/react`, { reaction_type: 'funny' }],
    ] as const) {
      const response = await parley.request(method, path, { headers: from('203.0.113.7'), body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    // Nor does a comment that does not exist tell a guest anything else.
    expect((await guestVote('cmt_nothing', '203.0.113.7', 'up')).status).toBe(401);
    expect(await counts(site, id)).toEqual({ upvotes: 0, downvotes: 0 });
  });

  it('counts a guest as its IP range: the vote is answered as a user is, switched and taken back', async () => {
    const { site, id } = await siteWithComment(true);
    const up = await guestVote(id, '203.0.113.7', 'up');
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ upvotes: 1, downvotes: 0, user_vote: 'up', liked_by_site_owner: false });
    expect((await guestVote(id, '203.0.113.7', 'down')).body).toMatchObject({ upvotes: 0, downvotes: 1, user_vote: 'down' });
    const removed = await parley.request('DELETE', `/v1/comments/${id}/vote`, { headers: from('203.0.113.7') });
    expect(removed.body).toMatchObject({ upvotes: 0, downvotes: 0, user_vote: null });
    expect(await counts(site, id)).toEqual({ upvotes: 0, downvotes: 0 });
  });

  it('counts two guests of one /24 once on a comment, and guests of two /24s twice', async () => {
    const { site, id } = await siteWithComment(true);
    expect((await guestVote(id, '198.51.100.10', 'up')).body).toMatchObject({ upvotes: 1, user_vote: 'up' });
    // Another address of the same /24 is the same voter: its vote is the one already there.
    expect((await guestVote(id, '198.51.100.200', 'up')).body).toMatchObject({ upvotes: 1, user_vote: 'up' });
    expect((await guestVote(id, '198.51.101.10', 'up')).body).toMatchObject({ upvotes: 2, user_vote: 'up' });
    expect(await counts(site, id)).toEqual({ upvotes: 2, downvotes: 0 });
    const voters = await parley.app.db.kysely.selectFrom('votes').select('voter_ref').where('comment_id', '=', id).orderBy('voter_ref').execute();
    expect(voters.map((vote) => vote.voter_ref)).toEqual(['ip:198.51.100.0/24', 'ip:198.51.101.0/24']);
  });

  it('counts the addresses of one IPv6 /56, the block a home connection is given, as one voter', async () => {
    const { site, id } = await siteWithComment(true);
    await guestVote(id, '2001:db8:a:b::1', 'up');
    expect((await guestVote(id, '2001:db8:a:b:ffff::9', 'up')).body.upvotes).toBe(1);
    // Another /64 of the same /56.
    expect((await guestVote(id, '2001:db8:a:ff::1', 'up')).body.upvotes).toBe(1);
    expect((await guestVote(id, '2001:db8:a:100::1', 'up')).body.upvotes).toBe(2);
    expect(await counts(site, id)).toEqual({ upvotes: 2, downvotes: 0 });
    const voters = await parley.app.db.kysely.selectFrom('votes').select('voter_ref').where('comment_id', '=', id).orderBy('voter_ref').execute();
    expect(voters.map((vote) => vote.voter_ref)).toEqual(['ip:2001:db8:a:100::/56', 'ip:2001:db8:a::/56']);
  });

  it('lets a guest react, one reaction per range', async () => {
    const { id } = await siteWithComment(true);
    const react = (ip: string) => parley.request('POST', `/v1/comments/${id}/react`, { headers: from(ip), body: { reaction_type: 'funny' } });
    expect((await react('192.0.2.1')).body).toEqual({ reaction_counts: { funny: 1 }, user_reaction: 'funny' });
    // The same range again toggles its one reaction off.
    expect((await react('192.0.2.99')).body).toEqual({ reaction_counts: {}, user_reaction: null });
  });

  it('leaves keys and sessions voting as themselves beside the guests', async () => {
    const { site, id } = await siteWithComment(true);
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'reader-1', name: 'Reader' });
    await guestVote(id, '203.0.113.7', 'up');
    expect((await parley.request('POST', `/v1/comments/${id}/vote`, { token: session, headers: from('203.0.113.7'), body: { vote_type: 'up' } })).body).toMatchObject({ upvotes: 2, user_vote: 'up' });
    expect((await parley.request('POST', `/v1/comments/${id}/vote`, { token: site.api_key, headers: from('203.0.113.7'), body: { vote_type: 'down' } })).body).toMatchObject({ upvotes: 2, downvotes: 1, user_vote: 'down' });
    const voters = (await parley.app.db.kysely.selectFrom('votes').select('voter_ref').where('comment_id', '=', id).execute()).map((vote) => vote.voter_ref);
    expect(voters).toHaveLength(3);
    expect(voters.filter((voter) => voter.startsWith('ip:'))).toEqual(['ip:203.0.113.0/24']);
  });

  it("still hides what the public may not see: a guest's vote on a pending comment is 404", async () => {
    const { site } = await siteWithComment(true);
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } })).status).toBe(200);
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'writer', name: 'Writer' });
    const pending = await parley.request('POST', '/v1/comments', { token: session, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Waiting for a moderator' } });
    expect(pending.body.status).toBe('pending');
    expect((await guestVote(pending.body.id, '203.0.113.7', 'up')).status).toBe(404);
  });
});

const parleyWith = parleysPerTest();

describe('the guest vote limit', () => {
  it('counts a guest address, and a refused vote counts under its IP limit instead', async () => {
    const limited = await parleyWith({ TRUST_PROXY: '127.0.0.1', PARLEY_RATE_LIMIT_GUEST_VOTES_PER_HOUR: '2' });
    const site = await limited.newSite();
    await limited.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { guest_votes: true } } });
    const posted = await limited.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Vote on me' } });
    const vote = (ip: string, id = posted.body.id) => limited.request('POST', `/v1/comments/${id}/vote`, { headers: from(ip), body: { vote_type: 'up' } });
    // A vote on nothing is refused (401) and does not spend the vote limit.
    expect((await vote('203.0.113.7', 'cmt_nothing')).status).toBe(401);
    expect((await vote('203.0.113.7')).status).toBe(200);
    const second = await vote('203.0.113.7');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-limit')).toBe('2');
    const third = await vote('203.0.113.7');
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    // Another address has its own count; a session is not a guest.
    expect((await vote('203.0.113.8')).status).toBe(200);
    const session = await limited.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    expect((await limited.request('POST', `/v1/comments/${posted.body.id}/vote`, { token: session, headers: from('203.0.113.7'), body: { vote_type: 'up' } })).status).toBe(200);
  });
});
