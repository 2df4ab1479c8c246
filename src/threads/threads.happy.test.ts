import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let reader: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  reader = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
});
afterAll(() => parley.close());

const post = (thread: string, content = 'hello', parent_id?: string, token = reader) =>
  parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content, parent_id } });
const threads = (query = '') => parley.request('GET', `/api/sites/${site.site_id}/threads?${query}`, { token: site.api_key });
const patch = (id: string, body: unknown) => parley.request('PATCH', `/api/sites/${site.site_id}/threads/${id}`, { token: site.api_key, body });

describe('threads', () => {
  it('lists threads newest first with their comments by status and last activity', async () => {
    const older = pageUrl();
    const newer = pageUrl();
    const first = (await post(older)).body.id;
    await post(older, 'reply', first);
    const removed = (await post(older, 'to remove')).body.id;
    await parley.request('PATCH', `/v1/comments/${removed}/moderate`, { token: site.api_key, body: { action: 'remove' } });
    const deleted = (await post(older, 'to delete')).body.id;
    await parley.request('DELETE', `/v1/comments/${deleted}`, { token: reader });
    const last = await post(newer, 'the newest');

    const listed = await threads(`limit=2`);
    expect(listed.status).toBe(200);
    const [top, next] = listed.body.threads;
    expect(top).toEqual({
      id: expect.stringMatching(/^thr_/),
      url: newer,
      title: null,
      closed: false,
      closed_at: null,
      created_at: expect.any(String),
      last_activity_at: last.body.created_at,
      comments: { published: 1, pending: 0, removed: 0, spam: 0, deleted: 0 },
    });
    expect(next).toMatchObject({ url: older, comments: { published: 2, pending: 0, removed: 1, spam: 0, deleted: 1 } });
    expect((await threads(`url=${encodeURIComponent(`${older}#comments`)}`)).body.threads.map((t: { url: string }) => t.url)).toEqual([older]);
  });

  it('closes a thread to new comments and replies (409), and reopens it', async () => {
    const thread = pageUrl();
    const root = (await post(thread)).body.id;
    const id = (await threads(`url=${encodeURIComponent(thread)}`)).body.threads[0].id;
    const closed = await patch(id, { closed: true, title: '  Announcements ' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ id, title: 'Announcements', closed: true, closed_at: expect.any(String) });
    for (const attempt of [await post(thread, 'too late'), await post(thread, 'a late reply', root), await post(thread, 'as the admin', undefined, site.api_key)]) {
      expect(attempt.status).toBe(409);
      expect(attempt.body).toMatchObject({ code: 'conflict', detail: 'The thread is closed to new comments' });
    }
    // Reading it is as before; and nothing was counted by the refused comments.
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(list.body).toMatchObject({ total: 1, comments: [{ id: root }] });
    expect((await threads('closed=true')).body.threads.map((t: { id: string }) => t.id)).toContain(id);
    expect((await threads('closed=false')).body.threads.map((t: { id: string }) => t.id)).not.toContain(id);

    const reopened = await patch(id, { closed: false });
    expect(reopened.body).toMatchObject({ closed: false, closed_at: null, title: 'Announcements' });
    expect((await post(thread, 'welcome back', root)).status).toBe(201);
    expect((await patch(id, { title: null })).body.title).toBeNull();
  });

  it('pages with a cursor', async () => {
    const first = await threads('limit=1');
    const second = await threads(`limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.threads[0].id).not.toBe(first.body.threads[0].id);
    expect(second.body.threads[0].created_at <= first.body.threads[0].created_at).toBe(true);
  });
});
