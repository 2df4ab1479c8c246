import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let commentId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  const created = await parley.request('POST', '/v1/comments', {
    token: site.api_key,
    body: { thread_url: pageUrl(), site_id: site.site_id, content: 'A comment to act on' },
  });
  commentId = created.body.id;
});
afterAll(() => parley.close());

// PostgreSQL cannot store U+0000 in text at all; the answer must not depend on the database.
describe('text holding the NUL character', () => {
  it.each([
    ['a path id', 'GET', () => `/v1/comments/${encodeURIComponent('cmt_\u0000')}`, undefined, 'params/id'],
    ['a query parameter', 'GET', () => `/v1/comments?site_id=${encodeURIComponent(`${site.site_id}\u0000`)}&thread_url=${encodeURIComponent(pageUrl())}`, undefined, 'querystring/site_id'],
    ['a flag reason', 'POST', () => `/v1/comments/${commentId}/flag`, { reason: 'spam\u0000' }, 'body/reason'],
    ['a moderation reason', 'PATCH', () => `/v1/comments/${commentId}/moderate`, { action: 'approve', reason: 'ok\u0000' }, 'body/reason'],
    ['an API key name', 'POST', () => '/api/keys', { role: 'moderator', name: 'bot\u0000' }, 'body/name'],
    ['a nested list item', 'POST', () => '/api/keys', { role: 'moderator', site_ids: ['site_\u0000'] }, 'body/site_ids/0'],
  ])('is refused with 400 in %s', async (_where, method, path, body, errorPath) => {
    const response = await parley.request(method, path(), { token: site.api_key, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors).toEqual([{ path: errorPath, message: 'must not contain the NUL character' }]);
  });

  it('leaves a percent-encoded %00 in a page address alone', async () => {
    const thread = `${pageUrl()}?q=%00`;
    const created = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: 'Hi' } });
    expect(created.status).toBe(201);
    expect(created.body.thread_url).toBe(thread);
  });
});
