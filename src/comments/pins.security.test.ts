import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('who pins', () => {
  it('refuses readers with 403, and 404 for a comment they cannot see', async () => {
    const { site, alice, bob, post } = await threadWithUsers(parley);
    const id = await post(alice, 'published');
    const refused = await parley.request('POST', `/v1/comments/${id}/pin`, { token: alice });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Pinning needs a moderator or admin credential for this site');
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } });
    const held = await post(alice, 'held for approval');
    expect((await parley.request('POST', `/v1/comments/${held}/pin`, { token: bob })).status).toBe(404);
    expect((await parley.request('DELETE', `/v1/comments/${held}/pin`, { token: bob })).status).toBe(404);
  });

  it("refuses an integration key with 403, and another account's keys and moderators with 404", async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'published');
    const integration = await parley.request('POST', '/api/keys', { token: site.api_key, body: { name: 'CMS', role: 'integration' } });
    expect((await parley.request('POST', `/v1/comments/${id}/pin`, { token: integration.body.api_key })).status).toBe(403);
    const other = await parley.newSite();
    const otherModerator = await parley.signIn(other.api_key, other.site_id, { id: 'mod', name: 'Mo', moderator: true });
    for (const token of [other.api_key, otherModerator]) {
      expect((await parley.request('POST', `/v1/comments/${id}/pin`, { token })).status).toBe(404);
      expect((await parley.request('DELETE', `/v1/comments/${id}/pin`, { token })).status).toBe(404);
    }
    const list = await parley.request('GET', `/v1/comments/${id}`);
    expect(list.body.pinned).toBe(false);
  });

  it("lets staff who moderate the site pin through /api/, and refuses staff of another account with 404", async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'published');
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    const pinned = await parley.request('POST', `/api/comments/${id}/pin`, { headers: moderator.headers });
    expect(pinned.body).toMatchObject({ id, pinned: true });
    // The cookie without its CSRF token changes nothing.
    expect((await parley.request('DELETE', `/api/comments/${id}/pin`, { headers: { cookie: moderator.cookie } })).status).toBe(403);
    const stranger = await signInStaff(parley, (await addStaff(parley, (await parley.newSite()).account_id, 'owner')).email);
    expect((await parley.request('DELETE', `/api/comments/${id}/pin`, { headers: stranger.headers })).status).toBe(404);
    expect((await parley.request('DELETE', `/api/comments/${id}/pin`, { headers: moderator.headers })).body.pinned).toBe(false);
  });
});
