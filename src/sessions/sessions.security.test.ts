import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let commentId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  const author = await parley.signIn(site.api_key, site.site_id, { id: 'author', name: 'Author' });
  commentId = (await parley.request('POST', '/v1/comments', { token: author, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hello' } })).body.id;
});
afterAll(() => parley.close());

const mint = async (token: string, user: Record<string, unknown>) =>
  (await parley.request('POST', '/v1/sessions', { token, body: { site_id: site.site_id, user } })).body as { token: string; user: { id: string } };
const moderate = (token: string) => parley.request('PATCH', `/v1/comments/${commentId}/moderate`, { token, body: { action: 'approve' } });
const sessionsPath = (query = '') => `/api/sites/${site.site_id}/sessions${query}`;

describe('sessions end with their key and their user', () => {
  it('revoking a key ends the moderator sessions it minted: they are 401 afterwards', async () => {
    const key = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator' } })).body;
    const minted = await mint(key.api_key, { id: 'mod-1', name: 'Mod', moderator: true });
    const byAdmin = await mint(site.api_key, { id: 'mod-1', name: 'Mod', moderator: true });
    expect((await moderate(minted.token)).status).toBe(200);
    expect((await parley.request('DELETE', `/api/keys/${key.id}`, { token: site.api_key })).status).toBe(200);
    const after = await moderate(minted.token);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    // Sessions another key minted live on.
    expect((await moderate(byAdmin.token)).status).toBe(200);
  });

  it("an outright ban ends the user's sessions on that site: they are 401 afterwards", async () => {
    const session = await mint(site.api_key, { id: 'mod-2', name: 'Rogue', moderator: true });
    expect((await moderate(session.token)).status).toBe(200);
    const ban = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: session.user.id } });
    expect(ban.status).toBe(201);
    expect((await moderate(session.token)).status).toBe(401);
    const listed = await parley.request('GET', sessionsPath(`?user_id=${session.user.id}`), { token: site.api_key });
    expect(listed.body).toEqual({ sessions: [], total: 0, page: 1 });
  });

  it("a shadow ban leaves the user's sessions alone", async () => {
    const session = await mint(site.api_key, { id: 'shadowed', name: 'Shadowed' });
    const ban = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: session.user.id, ban_type: 'shadow_ban' } });
    expect(ban.status).toBe(201);
    expect((await parley.request('GET', '/v1/sites', { token: session.token })).status).toBe(200);
  });
});

describe('session management tenancy', () => {
  it("keeps a site's sessions to admin keys of its account: others' admin keys 404, other roles and sessions 403", async () => {
    const session = await mint(site.api_key, { id: 'tenant', name: 'Tenant' });
    const listed = await parley.request('GET', sessionsPath(`?user_id=${session.user.id}`), { token: site.api_key });
    const sessionId = listed.body.sessions[0].id;
    const other = await parley.newSite();
    const moderatorKey = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator' } })).body.api_key;
    const requests: Array<[string, string]> = [
      ['GET', sessionsPath()],
      ['DELETE', sessionsPath(`?user_id=${session.user.id}`)],
      ['DELETE', sessionsPath(`/${sessionId}`)],
    ];
    for (const [method, path] of requests) {
      expect((await parley.request(method, path, { token: other.api_key })).status).toBe(404);
      expect((await parley.request(method, path, { token: moderatorKey })).status).toBe(403);
      expect((await parley.request(method, path, { token: session.token })).status).toBe(403);
      expect((await parley.request(method, path)).status).toBe(401);
    }
    expect((await parley.request('GET', '/v1/sites', { token: session.token })).status).toBe(200);
    // Another account's admin key cannot reach a session through its own site either.
    expect((await parley.request('DELETE', `/api/sites/${other.site_id}/sessions/${sessionId}`, { token: other.api_key })).status).toBe(404);
    expect((await parley.request('GET', '/v1/sites', { token: session.token })).status).toBe(200);
  });
});
