import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const mint = (token: string | undefined, user: Record<string, unknown>, siteId = site.site_id) =>
  parley.request('POST', '/v1/sessions', { token, body: { site_id: siteId, user } });

describe('sessions', () => {
  it("mints a session for a site's user with 201, token and user", async () => {
    const response = await mint(site.api_key, { id: 'u-1', name: 'Uma', avatar_url: 'https://cdn.example.com/u.png' });
    expect(response.status).toBe(201);
    expect(response.body.token).toMatch(/^sess_[0-9A-Za-z]{32,}$/);
    expect(Date.parse(response.body.expires_at) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    expect(response.body.user).toEqual({ id: expect.stringMatching(/^usr_/), external_id: 'u-1', name: 'Uma', avatar_url: 'https://cdn.example.com/u.png', moderator: false });
  });

  it('keeps one user per external id and refreshes the name', async () => {
    const first = await mint(site.api_key, { id: 'u-2', name: 'Old' });
    const second = await mint(site.api_key, { id: 'u-2', name: 'New' });
    expect(second.body.user.id).toBe(first.body.user.id);
    const comment = await parley.request('POST', '/v1/comments', {
      token: first.body.token,
      body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi', author_name: 'ignored for sessions' },
    });
    expect(comment.body.author_name).toBe('New');
  });

  it("refuses a user name holding a bidirectional control or zero-width character, as a comment's author_name", async () => {
    for (const name of ['Eve\u202Egnp.exe', 'Z\u200Boe', '\uFEFF']) {
      const response = await mint(site.api_key, { id: 'u-bidi', name });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it('needs an admin or moderator key for a moderator session', async () => {
    const integration = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration' } })).body.api_key;
    const moderatorKey = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator' } })).body.api_key;
    expect((await mint(integration, { id: 'm', name: 'M', moderator: true })).status).toBe(403);
    expect((await mint(integration, { id: 'n', name: 'N' })).status).toBe(201);
    expect((await mint(moderatorKey, { id: 'm', name: 'M', moderator: true })).body.user.moderator).toBe(true);
  });

  it('refuses minting without a key, with a session, for another tenant, or with bad input', async () => {
    const session = (await mint(site.api_key, { id: 'u-3', name: 'U' })).body.token;
    expect((await mint(undefined, { id: 'x', name: 'X' })).status).toBe(401);
    expect((await mint(session, { id: 'x', name: 'X' })).status).toBe(403);
    const other = await parley.newSite();
    expect((await mint(other.api_key, { id: 'x', name: 'X' })).status).toBe(404);
    expect((await mint(site.api_key, { id: 'x' })).status).toBe(400);
    expect((await mint(site.api_key, { id: 'x', name: '' })).status).toBe(400);
    expect((await mint(site.api_key, { id: 'x', name: 'X', avatar_url: 'javascript:alert(1)' })).status).toBe(400);
  });

  it('revokes the current session with 204; the token is then 401', async () => {
    const token = (await mint(site.api_key, { id: 'u-4', name: 'U' })).body.token;
    const revoked = await parley.request('DELETE', '/v1/sessions/current', { token });
    expect(revoked.status).toBe(204);
    const after = await parley.request('POST', '/v1/comments', { token, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi' } });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    expect((await parley.request('DELETE', '/v1/sessions/current', { token: site.api_key })).status).toBe(403);
    expect((await parley.request('DELETE', '/v1/sessions/current')).status).toBe(401);
  });

  it('refuses an expired session with 401', async () => {
    const token = (await mint(site.api_key, { id: 'u-5', name: 'U' })).body.token;
    await parley.app.db.kysely.updateTable('sessions').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute();
    const response = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}`, { token });
    expect(response.status).toBe(401);
  });

  it("keeps a session to its own site: another site's comments are 404 to write", async () => {
    const token = (await mint(site.api_key, { id: 'u-6', name: 'U' })).body.token;
    const otherSite = await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second' } });
    const response = await parley.request('POST', '/v1/comments', { token, body: { thread_url: pageUrl(), site_id: otherSite.body.id, content: 'hi' } });
    expect(response.status).toBe(404);
  });
});

describe('session management', () => {
  const sessionsPath = (query = '') => `/api/sites/${site.site_id}/sessions${query}`;
  const list = (query = '') => parley.request('GET', sessionsPath(query), { token: site.api_key });

  it("lists a site's live sessions, newest first, without their tokens; by user on request", async () => {
    const first = await mint(site.api_key, { id: 'lister', name: 'Lister' });
    const second = await mint(site.api_key, { id: 'lister', name: 'Lister', moderator: true });
    const gone = await mint(site.api_key, { id: 'lister', name: 'Lister' });
    await parley.request('DELETE', '/v1/sessions/current', { token: gone.body.token });
    const userId = first.body.user.id;
    const listed = await list(`?user_id=${userId}`);
    expect(listed.status).toBe(200);
    const keyId = (await parley.app.db.kysely.selectFrom('api_keys').select('id').where('account_id', '=', site.account_id).executeTakeFirstOrThrow()).id;
    const user = { id: userId, external_id: 'lister', name: 'Lister' };
    expect(listed.body).toEqual({
      sessions: [
        { id: expect.stringMatching(/^sess_/), user, moderator: true, key_id: keyId, created_at: expect.any(String), expires_at: second.body.expires_at, revoked_at: null },
        { id: expect.stringMatching(/^sess_/), user, moderator: false, key_id: keyId, created_at: expect.any(String), expires_at: first.body.expires_at, revoked_at: null },
      ],
      total: 2,
      page: 1,
    });
    expect(JSON.stringify(listed.body)).not.toContain(first.body.token.slice(5));
    const paged = await list(`?user_id=${userId}&page=2&limit=1`);
    expect(paged.body).toMatchObject({ sessions: [listed.body.sessions[1]], total: 2, page: 2 });
    const all = await list('?limit=100');
    expect(all.body.sessions.map((s: any) => s.user.id)).toContain(userId);
    expect((await list('?limit=0')).status).toBe(400);
  });

  it('revokes one session: the answer is the session, its token is then 401, revoking again answers the same', async () => {
    const minted = await mint(site.api_key, { id: 'one', name: 'One' });
    const sessionId = (await list(`?user_id=${minted.body.user.id}`)).body.sessions[0].id;
    const revoked = await parley.request('DELETE', sessionsPath(`/${sessionId}`), { token: site.api_key });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: sessionId, user: { id: minted.body.user.id, external_id: 'one', name: 'One' }, revoked_at: expect.any(String) });
    expect((await parley.request('GET', '/v1/sites', { token: minted.body.token })).status).toBe(401);
    expect((await parley.request('DELETE', sessionsPath(`/${sessionId}`), { token: site.api_key })).body).toEqual(revoked.body);
    expect((await parley.request('DELETE', sessionsPath('/sess_unknown'), { token: site.api_key })).status).toBe(404);
  });

  it("revokes all of one user's sessions, or all of the site's, answering how many ended", async () => {
    const a1 = await mint(site.api_key, { id: 'many-a', name: 'A' });
    const a2 = await mint(site.api_key, { id: 'many-a', name: 'A' });
    const b = await mint(site.api_key, { id: 'many-b', name: 'B' });
    const ofUser = await parley.request('DELETE', sessionsPath(`?user_id=${a1.body.user.id}`), { token: site.api_key });
    expect(ofUser.status).toBe(200);
    expect(ofUser.body).toEqual({ revoked: 2 });
    for (const token of [a1.body.token, a2.body.token]) expect((await parley.request('GET', '/v1/sites', { token })).status).toBe(401);
    expect((await parley.request('GET', '/v1/sites', { token: b.body.token })).status).toBe(200);
    const live = (await list('?limit=100')).body.total;
    const everyone = await parley.request('DELETE', sessionsPath(), { token: site.api_key });
    expect(everyone.body).toEqual({ revoked: live });
    expect((await parley.request('GET', '/v1/sites', { token: b.body.token })).status).toBe(401);
    expect((await list()).body).toEqual({ sessions: [], total: 0, page: 1 });
  });
});
