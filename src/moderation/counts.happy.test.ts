import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let second: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ moderation: 'guests' });
  second = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second blog', moderation_mode: 'guests' } })).body.id;
});
afterAll(() => parley.close());

async function post(siteId: string, guest: boolean) {
  const response = await parley.request('POST', '/v1/comments', {
    token: guest ? undefined : site.api_key,
    body: { site_id: siteId, thread_url: pageUrl(), content: 'a comment', author_name: guest ? 'Guest' : undefined },
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}
const moderate = (id: string, action: string) => parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } });
const counts = (query = '') => parley.request('GET', `/api/comments/counts${query}`, { token: site.api_key });

describe("the queue's tab counts", () => {
  it('count pending, flagged, spam and removed comments of one site, or of every site the caller moderates', async () => {
    expect((await counts()).body).toEqual({ pending: 0, flagged: 0, spam: 0, removed: 0 });
    await post(site.site_id, true);
    await post(site.site_id, true);
    const flagged = await post(site.site_id, false);
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { body: { reason: 'rude' } });
    await moderate(await post(site.site_id, false), 'spam');
    await moderate(await post(site.site_id, false), 'remove');
    await post(site.site_id, false);
    await post(second, true);
    // A deleted pending comment waits for nobody.
    const deleted = await post(second, true);
    expect((await parley.request('DELETE', `/v1/comments/${deleted}`, { token: site.api_key })).status).toBe(200);

    const one = await counts(`?site_id=${site.site_id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ pending: 2, flagged: 1, spam: 1, removed: 1 });
    expect((await counts()).body).toEqual({ pending: 3, flagged: 1, spam: 1, removed: 1 });
  });

  it('agree with the queue: removing a flagged comment moves it from flagged to removed', async () => {
    const before = (await counts(`?site_id=${site.site_id}`)).body;
    const flagged = await post(site.site_id, false);
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { body: {} });
    expect((await counts(`?site_id=${site.site_id}`)).body).toEqual({ ...before, flagged: before.flagged + 1 });
    await moderate(flagged, 'remove');
    expect((await counts(`?site_id=${site.site_id}`)).body).toEqual({ ...before, removed: before.removed + 1 });
    const queue = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=removed&limit=100`, { token: site.api_key });
    expect(queue.body.comments.length).toBe(before.removed + 1);
  });

  it('are refused for a site of another account (404) and without a credential (401)', async () => {
    const stranger = await parley.newSite();
    expect((await counts(`?site_id=${stranger.site_id}`)).status).toBe(404);
    expect((await parley.request('GET', '/api/comments/counts')).status).toBe(401);
  });
});
