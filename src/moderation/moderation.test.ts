import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let author: string;
let moderatorSession: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ moderation: 'all' });
  author = await parley.signIn(site.api_key, site.site_id, { id: 'author', name: 'Author' });
  moderatorSession = await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mod', moderator: true });
});
afterAll(() => parley.close());

async function pendingComment() {
  const response = await parley.request('POST', '/v1/comments', { token: author, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'please approve' } });
  return response.body.id as string;
}
const moderate = (token: string | undefined, id: string, action: string, reason?: string) =>
  parley.request('PATCH', `/v1/comments/${id}/moderate`, { token, body: { action, reason } });

describe('moderation actions', () => {
  it.each([
    ['approve', 'published', null],
    ['remove', 'removed', 'removed'],
    ['spam', 'spam', 'spam'],
    ['unhide', 'published', null],
  ])('%s leads to status %s', async (action, status, moderationStatus) => {
    const id = await pendingComment();
    const response = await moderate(moderatorSession, id, action, 'because');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id, action, status, moderation_status: moderationStatus, content: 'please approve', author_name: 'Author' });
  });

  it('answers an action already in force with 200 and the same state', async () => {
    const id = await pendingComment();
    await moderate(site.api_key, id, 'approve');
    const again = await moderate(site.api_key, id, 'approve');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'published', moderation_status: null });
  });

  it('lets moderator keys moderate and refuses integration keys and plain users with 403', async () => {
    const id = await pendingComment();
    const keys = await Promise.all(
      ['moderator', 'integration'].map((role) => parley.request('POST', '/api/keys', { token: site.api_key, body: { role } })),
    );
    const [moderatorKey, integrationKey] = keys.map((k) => k.body.api_key as string);
    expect((await moderate(integrationKey, id, 'approve')).status).toBe(403);
    expect((await moderate(author, id, 'approve')).body.code).toBe('forbidden');
    expect((await moderate(undefined, id, 'approve')).status).toBe(401);
    expect((await moderate(moderatorKey, id, 'approve')).status).toBe(200);
  });

  it('refuses unknown actions and over-long reasons with 400', async () => {
    const id = await pendingComment();
    expect((await moderate(site.api_key, id, 'delete')).status).toBe(400);
    expect((await moderate(site.api_key, id, 'remove', 'r'.repeat(501))).status).toBe(400);
  });

  it("hides another account's comment from a moderator behind 404", async () => {
    const id = await pendingComment();
    const other = await parley.newSite();
    expect((await moderate(other.api_key, id, 'approve')).status).toBe(404);
  });
});

describe('flags', () => {
  it('lets anyone flag once; a repeat answers the same', async () => {
    const id = await pendingComment();
    await moderate(site.api_key, id, 'approve');
    const first = await parley.request('POST', `/v1/comments/${id}/flag`, { body: { reason: 'rude' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ comment_id: id, flagged: true });
    const repeat = await parley.request('POST', `/v1/comments/${id}/flag`, {});
    expect(repeat.status).toBe(200);
    expect((await parley.request('POST', `/v1/comments/${id}/flag`, { token: author })).status).toBe(200);
    expect((await parley.request('POST', '/v1/comments/cmt_unknown/flag', {})).status).toBe(404);
  });
});

describe('bans', () => {
  it('bans a site user outright: their writes are 403 banned', async () => {
    const trollUser = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'troll', name: 'Troll' } } })).body.user;
    const id = await pendingComment();
    await moderate(site.api_key, id, 'approve');
    const ban = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: trollUser.id, reason: 'spam' } });
    expect(ban.status).toBe(201);
    expect(ban.body).toMatchObject({ site_id: site.site_id, user_id: trollUser.id, ban_type: 'ban', reason: 'spam' });
    // The ban ended the sessions signed in before it; one minted after it is refused every write.
    const troll = await parley.signIn(site.api_key, site.site_id, { id: 'troll', name: 'Troll' });
    const write = await parley.request('POST', '/v1/comments', { token: troll, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi' } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('banned');
    expect((await parley.request('POST', `/v1/comments/${id}/vote`, { token: troll, body: { vote_type: 'up' } })).body.code).toBe('banned');
    const again = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: trollUser.id } });
    expect(again.status).toBe(409);
  });

  it("refuses every write of a banned user with 403 banned, their own comments' flag and delete included", async () => {
    const sinner = await parley.signIn(site.api_key, site.site_id, { id: 'sinner', name: 'Sinner' });
    const own = (await parley.request('POST', '/v1/comments', { token: sinner, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'mine' } })).body.id;
    await moderate(site.api_key, own, 'approve');
    const user = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'sinner', name: 'Sinner' } } })).body.user;
    expect((await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: user.id } })).status).toBe(201);
    const banned = await parley.signIn(site.api_key, site.site_id, { id: 'sinner', name: 'Sinner' });
    const writes = [
      () => parley.request('POST', '/v1/comments', { token: banned, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'again' } }),
      () => parley.request('PATCH', `/v1/comments/${own}`, { token: banned, body: { content: 'edited' } }),
      () => parley.request('POST', `/v1/comments/${own}/vote`, { token: banned, body: { vote_type: 'up' } }),
      () => parley.request('POST', `/v1/comments/${own}/react`, { token: banned, body: { reaction_type: 'funny' } }),
      () => parley.request('POST', `/v1/comments/${own}/flag`, { token: banned, body: { reason: 'mine' } }),
      () => parley.request('DELETE', `/v1/comments/${own}`, { token: banned }),
    ];
    for (const write of writes) {
      const response = await write();
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('banned');
    }
    const kept = await parley.request('GET', `/v1/comments/${own}`, { token: site.api_key });
    expect(kept.body).toMatchObject({ content: 'mine', is_deleted: false });
  });

  it('needs an admin key and a user of that site', async () => {
    const user = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'x', name: 'X' } } })).body.user;
    expect((await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: moderatorSession, body: { user_id: user.id } })).status).toBe(403);
    expect((await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: 'usr_unknown' } })).status).toBe(404);
  });
});
