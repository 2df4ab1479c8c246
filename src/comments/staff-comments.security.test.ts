import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('who writes through POST /api/comments', () => {
  it('refuses readers, an integration key, a cookie without its CSRF token, and staff of other sites and accounts', async () => {
    const { site, alice, moderator: readerModerator, path, post } = await threadWithUsers(parley);
    const question = await post(alice, 'A question');
    const thread = new URL(path, parley.url).searchParams.get('thread_url')!;
    const body = { site_id: site.site_id, thread_url: thread, parent_id: question, content: 'Not from you' };
    const send = (options: { token?: string; headers?: Record<string, string> }) => parley.request('POST', '/api/comments', { ...options, body });

    expect((await send({})).status).toBe(401);
    expect((await send({ token: alice })).status).toBe(403);
    // A reader who moderates writes through /v1 with their session's badges, not as staff.
    expect((await send({ token: readerModerator })).status).toBe(403);
    const integration = await parley.request('POST', '/api/keys', { token: site.api_key, body: { name: 'CMS', role: 'integration' } });
    expect((await send({ token: integration.body.api_key })).status).toBe(403);

    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    expect((await send({ headers: { cookie: moderator.cookie } })).status).toBe(403);

    const sibling = await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Sibling', domains: ['sibling.example'] } });
    const siblingModerator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator', { siteIds: [sibling.body.id] })).email);
    expect((await send({ headers: siblingModerator.headers })).status).toBe(404);
    const other = await parley.newSite();
    const stranger = await signInStaff(parley, (await addStaff(parley, other.account_id, 'owner')).email);
    expect((await send({ headers: stranger.headers })).status).toBe(404);
    expect((await send({ token: other.api_key })).status).toBe(404);

    const listed = await parley.request('GET', path);
    expect(listed.body.comments[0].replies).toEqual([]);
  });

  it('never lets a reader’s label pass for the staff badge', async () => {
    const { site, alice } = await threadWithUsers(parley);
    const userId = (await parley.request('GET', '/v1/me', { token: alice })).body.user.id as string;
    const labelled = await parley.request('PATCH', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key, body: { labels: ['staff'] } });
    expect(labelled.status).toBe(400);
  });

  it("refuses a moderator deleting another's note with 403, and keeps it", async () => {
    const { site, alice } = await threadWithUsers(parley);
    const userId = (await parley.request('GET', '/v1/me', { token: alice })).body.user.id as string;
    const notes = `/api/sites/${site.site_id}/users/${userId}/notes`;
    const note = await parley.request('POST', notes, { token: site.api_key, body: { body: 'Known spammer elsewhere' } });
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    const refused = await parley.request('DELETE', `${notes}/${note.body.id}`, { headers: moderator.headers });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("Only the note's author or an owner or admin can delete it");
    expect((await parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { headers: moderator.headers })).body.notes).toHaveLength(1);
  });
});
