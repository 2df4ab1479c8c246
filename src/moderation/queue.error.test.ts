import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let comment: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  const posted = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hello' } });
  comment = posted.body.id;
});
afterAll(() => parley.close());

const queue = (query: string) => parley.request('GET', `/api/comments?${query}`, { token: site.api_key });
const bulk = (body: unknown) => parley.request('POST', '/api/comments/moderate', { token: site.api_key, body });

describe('the moderation queue, refused', () => {
  it.each([
    ['an unknown status', 'status=hidden', 'querystring/status'],
    ['an unknown sort', 'sort=top', 'querystring/sort'],
    ['limit 0', 'limit=0', 'querystring/limit'],
    ['limit 101', 'limit=101', 'querystring/limit'],
    ['a search without a word', 'q=%22%20%2A%20-', 'querystring/q'],
    ['a time that is not one', 'since=yesterday', 'querystring/since'],
    ['a cursor that is not one', 'cursor=bm90IGEgY3Vyc29y', 'querystring/cursor'],
    ['a thread URL that is not one', 'thread_url=ftp%3A%2F%2Fx', 'querystring/thread_url'],
    ['a search ordered by flags', 'q=hello&sort=most_flagged', 'querystring/sort'],
    ['an empty author', 'author=', 'querystring/author'],
    ['an empty thread', 'thread=', 'querystring/thread'],
    ['a thread of spaces only', 'thread=%20%20', 'querystring/thread'],
    ['a thread over 2048 characters', `thread=${'a'.repeat(2049)}`, 'querystring/thread'],
  ])('answers %s with 400 naming the parameter', async (_name, query, path) => {
    const response = await queue(query);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors[0].path).toBe(path);
  });

  it('refuses a thread search that names more than 100 threads, asking for more of it', async () => {
    const many = await parley.newSite();
    await Promise.all(
      Array.from({ length: 101 }, (_, i) =>
        parley.request('POST', '/v1/comments', { token: many.api_key, body: { site_id: many.site_id, thread_url: `https://example.com/many/${i}`, content: 'hello' } }),
      ),
    );
    await parley.app.db.kysely.updateTable('threads').set({ title: 'Many a page' }).where('site_id', '=', many.site_id).execute();
    const tooMany = await parley.request('GET', `/api/comments?site_id=${many.site_id}&thread=many`, { token: many.api_key });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0]).toEqual({ path: 'querystring/thread', message: 'names more than 100 threads: give more of the title, or the path or URL' });
    const byPath = await parley.request('GET', `/api/comments?site_id=${many.site_id}&thread=${encodeURIComponent('/many/1')}`, { token: many.api_key });
    expect(byPath.body.comments).toHaveLength(1);
  });

  it("refuses a cursor of another order, as a page of it would skip or repeat comments", async () => {
    await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'another' } });
    const newest = await queue('limit=1');
    const oldest = await queue(`limit=1&sort=oldest&cursor=${newest.body.next_cursor}`);
    expect(oldest.status).toBe(400);
    expect(oldest.body.errors[0].path).toBe('querystring/cursor');
    const searched = await queue(`limit=1&q=another&cursor=${newest.body.next_cursor}`);
    expect(searched.status).toBe(400);
  });

  const crafted = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
  it.each([
    ['most_flagged, a count that is no integer', 'most_flagged', ['queue:most_flagged', 1.5, '2024-01-01T00:00:00.000Z', 'cmt_x']],
    ['most_flagged, a count past the column', 'most_flagged', ['queue:most_flagged', 2 ** 40, '2024-01-01T00:00:00.000Z', 'cmt_x']],
    ['most_flagged, a negative count', 'most_flagged', ['queue:most_flagged', -1, '2024-01-01T00:00:00.000Z', 'cmt_x']],
    ['newest, a time with a NUL character', 'newest', ['queue:newest', '2024-01-01\u0000', 'cmt_x']],
    ['oldest, an id with a NUL character', 'oldest', ['queue:oldest', '2024-01-01T00:00:00.000Z', 'cmt_\u0000']],
    ['a search, a key that is no integer', 'newest&q=hello', ['queue:newest:search', 0.5]],
  ])('answers a crafted cursor (%s) with 400, never a database error', async (_name, sort, key) => {
    const response = await queue(`sort=${sort}&cursor=${crafted(key)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.errors[0].path).toBe('querystring/cursor');
  });

  it('answers an unknown site with 404', async () => {
    expect((await queue('site_id=site_unknown')).status).toBe(404);
  });
});

describe('bulk moderation, refused', () => {
  it.each([
    ['no ids', { ids: [], action: 'approve' }],
    ['101 ids', { ids: Array.from({ length: 101 }, (_, i) => `cmt_${i}`), action: 'approve' }],
    ['the same id twice', { ids: ['cmt_a', 'cmt_a'], action: 'approve' }],
    ['an unknown action', { ids: ['cmt_a'], action: 'delete' }],
    ['a reason over 500 characters', { ids: ['cmt_a'], action: 'remove', reason: 'r'.repeat(501) }],
  ])('answers %s with 400', async (_name, body) => {
    const response = await bulk(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('answers unknown ids one by one with not_found, and goes ahead with the others', async () => {
    const response = await bulk({ ids: ['cmt_unknown', comment], action: 'remove' });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([
      { id: 'cmt_unknown', ok: false, error: expect.objectContaining({ status: 404, code: 'not_found' }) },
      { id: comment, ok: true, result: expect.objectContaining({ status: 'removed' }) },
    ]);
  });
});

describe('moderation log and flags, refused', () => {
  it('answers an unknown action filter with 400 and an unknown comment with 404', async () => {
    expect((await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?action=delete`, { token: site.api_key })).status).toBe(400);
    expect((await parley.request('GET', '/api/comments/cmt_unknown/flags', { token: site.api_key })).status).toBe(404);
    expect((await parley.request('GET', '/api/sites/site_unknown/moderation-log', { token: site.api_key })).status).toBe(404);
  });
});
