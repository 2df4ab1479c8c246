import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let threadId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  const thread = pageUrl();
  await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: thread, content: 'x' } });
  threadId = (await parley.request('GET', `/api/sites/${site.site_id}/threads`, { token: site.api_key })).body.threads[0].id;
});
afterAll(() => parley.close());

const patch = (id: string, body: unknown) => parley.request('PATCH', `/api/sites/${site.site_id}/threads/${id}`, { token: site.api_key, body });

describe('threads, refused', () => {
  it('answers an unknown thread with 404', async () => {
    expect((await patch('thr_unknown', { closed: true })).status).toBe(404);
  });

  it.each([
    ['an empty change', {}],
    ['a title over 300 characters', { title: 't'.repeat(301) }],
    ['an empty title', { title: '  ' }],
    ['closed as a string', { closed: 'yes' }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await patch(threadId, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('refuses a bad cursor or URL filter with 400', async () => {
    expect((await parley.request('GET', `/api/sites/${site.site_id}/threads?cursor=x`, { token: site.api_key })).status).toBe(400);
    expect((await parley.request('GET', `/api/sites/${site.site_id}/threads?url=not-a-url`, { token: site.api_key })).status).toBe(400);
  });
});
