import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let stranger: { account_id: string; site_id: string; api_key: string };
let threadId: string;

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite();
  stranger = await parley.newSite();
  await parley.request('POST', '/v1/comments', { token: home.api_key, body: { site_id: home.site_id, thread_url: pageUrl(), content: 'x' } });
  threadId = (await parley.request('GET', `/api/sites/${home.site_id}/threads`, { token: home.api_key })).body.threads[0].id;
});
afterAll(() => parley.close());

describe('threads, by caller', () => {
  it('need a moderating role (401, 403) and hide other accounts (404); a moderator key may close', async () => {
    const integration = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'integration' } })).body.api_key;
    const moderator = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator' } })).body.api_key;
    const session = await parley.signIn(home.api_key, home.site_id, { id: 'm', name: 'M', moderator: true });
    const list = `/api/sites/${home.site_id}/threads`;
    const change = `/api/sites/${home.site_id}/threads/${threadId}`;
    expect((await parley.request('GET', list)).status).toBe(401);
    for (const token of [integration, session]) {
      expect((await parley.request('GET', list, { token })).status).toBe(403);
      expect((await parley.request('PATCH', change, { token, body: { closed: true } })).status).toBe(403);
    }
    expect((await parley.request('GET', list, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('PATCH', change, { token: stranger.api_key, body: { closed: true } })).status).toBe(404);
    // A thread of one site named through another site the caller moderates is not found either.
    expect((await parley.request('PATCH', `/api/sites/${stranger.site_id}/threads/${threadId}`, { token: stranger.api_key, body: { closed: true } })).status).toBe(404);
    expect((await parley.request('GET', `${list}?closed=true`, { token: home.api_key })).body.threads).toEqual([]);
    expect((await parley.request('PATCH', change, { token: moderator, body: { closed: true } })).body.closed).toBe(true);
  });
});
