import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('what POST /api/comments refuses', () => {
  it('answers problem+json for a bad body, a parent of another thread, a closed thread and an unknown site', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const question = await post(alice, 'A question');
    const thread = new URL(path, parley.url).searchParams.get('thread_url')!;
    const { headers } = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    const send = (body: unknown) => parley.request('POST', '/api/comments', { headers, body });

    const empty = await send({ site_id: site.site_id, thread_url: thread, content: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await send({ site_id: site.site_id, thread_url: thread })).status).toBe(400);
    // Only where and what: a name of one's choosing is no part of it, and staff write under their own.
    expect((await send({ site_id: site.site_id, thread_url: thread, content: 'hi', author_name: 'Someone else' })).body.author_name).toBe('moderator person');
    const elsewhere = await send({ site_id: site.site_id, thread_url: pageUrl(), parent_id: question, content: 'Lost' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errors?.[0]?.path ?? elsewhere.body.detail).toMatch(/parent_id/);
    expect((await send({ site_id: site.site_id, thread_url: 'not a page address', content: 'Lost' })).status).toBe(400);
    expect((await send({ site_id: 'site_unknown', thread_url: thread, content: 'Lost' })).status).toBe(404);

    const threads = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&thread_url=${encodeURIComponent(thread)}`, { headers });
    await parley.request('PATCH', `/api/sites/${site.site_id}/threads/${threads.body.comments[0].thread.id}`, { headers, body: { closed: true } });
    const closed = await send({ site_id: site.site_id, thread_url: thread, parent_id: question, content: 'Too late' });
    expect(closed.status).toBe(409);
  });
});
