import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let stranger: { account_id: string; site_id: string; api_key: string };
let homeUser: string;
let strangerUser: string;
let banId: string;
let noteId: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite();
  stranger = await parley.newSite();
  const user = async (site: typeof home, id: string) =>
    (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id, name: id } } })).body.user.id as string;
  homeUser = await user(home, 'h');
  strangerUser = await user(stranger, 's');
  tokens.moderator = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator' } })).body.api_key;
  tokens.integration = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'integration' } })).body.api_key;
  tokens.session = await parley.signIn(home.api_key, home.site_id, { id: 'm', name: 'M', moderator: true });
  banId = (await parley.request('POST', `/api/sites/${home.site_id}/bans`, { token: home.api_key, body: { user_id: homeUser, ban_type: 'shadow_ban' } })).body.id;
  noteId = (await parley.request('POST', `/api/sites/${home.site_id}/users/${homeUser}/notes`, { token: home.api_key, body: { body: 'n' } })).body.id;
});
afterAll(() => parley.close());

const endpoints = () =>
  [
    ['GET', `/users/${homeUser}`, undefined],
    ['PATCH', `/users/${homeUser}`, { labels: ['Regular'] }],
    ['POST', `/users/${homeUser}/notes`, { body: 'note' }],
    ['DELETE', `/users/${homeUser}/notes/${noteId}`, undefined],
    ['POST', `/users/${homeUser}/moderate`, { action: 'spam' }],
    ['GET', '/bans', undefined],
    ['POST', '/bans', { user_id: homeUser }],
    ['DELETE', `/bans/${banId}`, undefined],
  ] as const;

describe('commenters and bans, by caller', () => {
  it('need a moderating role: 401 without a credential, 403 for integration keys and sessions', async () => {
    for (const [method, path, body] of endpoints()) {
      expect((await parley.request(method, `/api/sites/${home.site_id}${path}`, { body })).status).toBe(401);
      for (const token of [tokens.integration, tokens.session]) {
        expect((await parley.request(method, `/api/sites/${home.site_id}${path}`, { token, body })).status, `${method} ${path}`).toBe(403);
      }
    }
  });

  it("hide one account's site and users from another's keys: 404, nothing changed", async () => {
    for (const [method, path, body] of endpoints()) {
      expect((await parley.request(method, `/api/sites/${home.site_id}${path}`, { token: stranger.api_key, body })).status, `${method} ${path}`).toBe(404);
    }
    // Another site's user through one's own site is no user of it.
    expect((await parley.request('GET', `/api/sites/${stranger.site_id}/users/${homeUser}`, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('POST', `/api/sites/${home.site_id}/bans`, { token: home.api_key, body: { user_id: strangerUser } })).status).toBe(404);
    const profile = await parley.request('GET', `/api/sites/${home.site_id}/users/${homeUser}`, { token: home.api_key });
    expect(profile.body.notes).toHaveLength(1);
    expect(profile.body.bans).toHaveLength(1);
    expect(profile.body.labels).toEqual([]);
  });

  it('let only admins erase a user: 401 without a credential, 403 for moderators, integration keys and sessions, 404 for another account', async () => {
    const erase = (token?: string, site = home, user = homeUser) => parley.request('DELETE', `/api/sites/${site.site_id}/users/${user}`, { token });
    expect((await erase()).status).toBe(401);
    for (const token of [tokens.moderator, tokens.integration, tokens.session]) expect((await erase(token)).status).toBe(403);
    expect((await erase(stranger.api_key)).status).toBe(404);
    // Another site's user through one's own site is no user of it.
    expect((await erase(stranger.api_key, stranger, homeUser)).status).toBe(404);
    const profile = await parley.request('GET', `/api/sites/${home.site_id}/users/${homeUser}`, { token: home.api_key });
    expect(profile.body.name).toBe('h');
  });

  it("let moderator keys moderate commenters (and ban them), and delete their own notes but not an admin's", async () => {
    const adminsNote = noteId;
    noteId = (await parley.request('POST', `/api/sites/${home.site_id}/users/${homeUser}/notes`, { token: tokens.moderator, body: { body: 'mine' } })).body.id;
    expect((await parley.request('DELETE', `/api/sites/${home.site_id}/users/${homeUser}/notes/${adminsNote}`, { token: tokens.moderator })).status).toBe(403);
    for (const [method, path, body] of endpoints()) {
      const response = await parley.request(method, `/api/sites/${home.site_id}${path}`, { token: tokens.moderator, body });
      expect(response.status, `${method} ${path} ${JSON.stringify(response.body)}`).toBeLessThan(300);
    }
  });
});
