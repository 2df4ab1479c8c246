import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let userId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  userId = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'u', name: 'U' } } })).body.user.id;
});
afterAll(() => parley.close());

const api = (method: string, path: string, body?: unknown) => parley.request(method, `/api/sites/${site.site_id}${path}`, { token: site.api_key, body });

describe('commenters and bans, refused', () => {
  it('answers an unknown user, note or ban with 404', async () => {
    expect((await api('GET', '/users/usr_unknown')).status).toBe(404);
    expect((await api('POST', '/users/usr_unknown/notes', { body: 'x' })).status).toBe(404);
    expect((await api('DELETE', `/users/${userId}/notes/note_unknown`)).status).toBe(404);
    expect((await api('POST', '/users/usr_unknown/moderate', { action: 'remove' })).status).toBe(404);
    expect((await api('DELETE', '/users/usr_unknown')).status).toBe(404);
    expect((await api('POST', '/bans', { user_id: 'usr_unknown' })).status).toBe(404);
    expect((await api('DELETE', '/bans/ban_unknown')).status).toBe(404);
  });

  it.each([
    ['an empty note', 'POST', '/notes', { body: '   ' }, 'body/body'],
    ['a note over 2,000 characters', 'POST', '/notes', { body: 'n'.repeat(2001) }, 'body/body'],
    ['an action other than remove or spam', 'POST', '/moderate', { action: 'approve' }, 'body/action'],
  ])('refuses %s with 400', async (_name, method, suffix, body, path) => {
    const response = await api(method, `/users/${userId}${suffix}`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe(path);
  });

  it('refuses a ban expiring in the past, a timed shadow ban, and a time that is not one', async () => {
    const past = await api('POST', '/bans', { user_id: userId, expires_at: '2020-01-01T00:00:00.000Z' });
    expect(past.status).toBe(400);
    expect(past.body.errors[0]).toEqual({ path: 'body/expires_at', message: 'must be in the future' });
    const shadow = await api('POST', '/bans', { user_id: userId, ban_type: 'shadow_ban', expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect(shadow.status).toBe(400);
    expect((await api('POST', '/bans', { user_id: userId, expires_at: 'tomorrow' })).status).toBe(400);
  });

  it('answers a ban already in force with 409', async () => {
    expect((await api('POST', '/bans', { user_id: userId })).status).toBe(201);
    expect((await api('POST', '/bans', { user_id: userId })).status).toBe(409);
  });
});
