import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('the participants of a thread, asked wrongly', () => {
  it('answers 404 for an unknown site and 400 for a thread URL that is none, as problems', async () => {
    const { site_id } = await parley.newSite();
    const unknown = await parley.request('GET', `/v1/comments/participants?site_id=site_nope&thread_url=${encodeURIComponent('https://blog.example.com/a')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.body.code).toBe('not_found');

    const notUrl = await parley.request('GET', `/v1/comments/participants?site_id=${site_id}&thread_url=javascript:alert(1)`);
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.errors[0].path).toBe('querystring/thread_url');
    expect((await parley.request('GET', `/v1/comments/participants?site_id=${site_id}`)).status).toBe(400);
  });
});
