import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

describe('posting and listing comments', () => {
  it('creates a comment with the full field set and lists it publicly', async () => {
    const thread = pageUrl();
    const created = await parley.request('POST', '/v1/comments', {
      token: site.api_key,
      body: { thread_url: `${thread}#comments`, site_id: site.site_id, content: '  Hello, world  ', author_name: 'Ada' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      content: 'Hello, world',
      author_name: 'Ada',
      upvotes: 0,
      downvotes: 0,
      reaction_counts: {},
      thread_url: thread,
      site_id: site.site_id,
      parent_id: null,
      replies: [],
      is_edited: false,
      is_deleted: false,
      status: 'published',
      moderation_status: null,
    });
    expect(created.body.id).toMatch(/^cmt_/);
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.page).toBe(1);
    expect(list.body.comments[0].id).toBe(created.body.id);
  });

  it('nests replies under their parent, oldest first', async () => {
    const thread = pageUrl();
    const post = (content: string, parent_id?: string) =>
      parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
    const root = (await post('root')).body;
    const first = (await post('first reply', root.id)).body;
    await post('second reply', root.id);
    await post('nested', first.id);
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    const [top] = list.body.comments;
    expect(list.body.total).toBe(1);
    expect(top.replies.map((r: any) => r.content)).toEqual(['first reply', 'second reply']);
    expect(top.replies[0].replies.map((r: any) => r.content)).toEqual(['nested']);
  });
});
