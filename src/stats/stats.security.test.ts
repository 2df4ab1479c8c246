import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('site stats, by caller', () => {
  it('need a moderating role of the site: 401, 403 for integration keys and sessions, 404 for other accounts and unknown sites', async () => {
    const home = await parley.newSite();
    const stranger = await parley.newSite();
    const path = `/api/sites/${home.site_id}/stats`;
    const integration = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'integration' } })).body.api_key;
    const moderator = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator' } })).body.api_key;
    const session = await parley.signIn(home.api_key, home.site_id, { id: 'm', name: 'M', moderator: true });
    expect((await parley.request('GET', path)).status).toBe(401);
    expect((await parley.request('GET', path, { token: integration })).status).toBe(403);
    expect((await parley.request('GET', path, { token: session })).status).toBe(403);
    expect((await parley.request('GET', path, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('GET', '/api/sites/site_unknown/stats', { token: home.api_key })).status).toBe(404);
    expect((await parley.request('GET', path, { token: moderator })).status).toBe(200);
  });
});
